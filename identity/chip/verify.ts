// Passive authentication of an eMRTD chip's data (ICAO 9303-11 §5.1), with Active Authentication when the chip was
// challenged. Pure and synchronous: the caller runs it on a worker thread (the identity pool) or in the CLI.
import type { MrzFields } from '../document/index.js';
import { type ActiveAuthResult, verifyActiveAuthentication } from './active-auth.js';
import { digest } from './algorithms.js';
import { type Certificate, certificateSummary, parseCertificate } from './certificates.js';
import { type ChainResult, chainToCsca, type ParsedAnchors, type SigningTimeSource } from './chain.js';
import { embeddedSigner, isSigner, verifyCms } from './cms.js';
import { alpha2Of } from './countries.js';
import {
  type Dg1,
  dateOfIssue,
  type Portrait,
  parseDg1,
  parsePortrait,
  parseSecurityInfos,
  type SecurityInfos,
} from './data-groups.js';
import { parseSod, type Sod } from './sod.js';
import { toHex } from './tlv.js';

/** What a reader app sends: EF.SOD, the data groups it read, optionally the Document Signer certificate (when the
 * SOD does not embed it) and the chip's answer to an Active Authentication challenge. */
export interface ChipData {
  sod: Uint8Array;
  data_groups: Partial<Record<number, Uint8Array>>;
  document_signer?: Uint8Array | null;
  active_authentication?: { challenge: Uint8Array; signature: Uint8Array } | null;
}

export type ChipSubCheckName =
  | 'chip_read'
  | 'chip_data_integrity'
  | 'chip_signature'
  | 'chip_certificate_chain'
  | 'chip_active_authentication'
  | 'chip_mrz_matches_visual';

/** The reason code each chip sub-check raises when it fails (the rules are the document check type's). */
export const CHIP_REASON_CODES: Readonly<Record<ChipSubCheckName, string>> = {
  chip_read: 'document_chip_unreadable',
  chip_data_integrity: 'document_chip_invalid',
  chip_signature: 'document_chip_invalid',
  chip_certificate_chain: 'document_chip_untrusted',
  chip_active_authentication: 'document_chip_not_genuine',
  chip_mrz_matches_visual: 'document_chip_mismatch',
};

/** `passed` null: not evaluated (nothing to check, or an earlier step failed). */
export interface ChipSubCheck {
  name: ChipSubCheckName;
  passed: boolean | null;
  value: unknown;
  reason_code: string;
}

export interface ChipReport {
  /** passive authentication passed: read, every hash, the signature and the chain to a trusted CSCA */
  verified: boolean;
  sub_checks: ChipSubCheck[];
  sod: {
    lds_security_object_version: number;
    lds_version: string | null;
    hash_algorithm: string;
    data_group_hashes: { data_group: number; hash: string }[];
    signature_algorithm: string | null;
    signing_time: string | null;
  } | null;
  dg1: MrzFields | null;
  dg1_lines: string[];
  signer: (ReturnType<typeof certificateSummary> & { source: 'embedded' | 'submitted' }) | null;
  chain: ChainResult | null;
  trust_store_version: number | null;
  /** Chip Authentication (DG14) is reported, never performed: it needs the live chip */
  chip_authentication: 'present_not_verified' | 'not_offered' | 'unknown';
  active_authentication: ActiveAuthResult | null;
  portrait: Omit<Portrait, 'image'> | null;
  /** the data groups that were submitted */
  data_groups: number[];
}

const sub = (
  name: ChipSubCheckName,
  passed: boolean | null,
  value: unknown,
  reason = CHIP_REASON_CODES[name],
) => ({
  name,
  passed,
  value,
  reason_code: reason,
});

function attempt<T>(f: () => T): { value: T | null; error: string | null } {
  try {
    return { value: f(), error: null };
  } catch (err) {
    return { value: null, error: (err as Error).message };
  }
}

/** Runs passive authentication (and Active Authentication when answered) over `data` against `anchors`. Never
 * throws on bad chip bytes: what cannot be read makes its sub-check fail with the reason in `value`. */
export function verifyChip(data: ChipData, anchors: ParsedAnchors, now = new Date()): ChipReport {
  const dgs = data.data_groups;
  const submitted = Object.keys(dgs)
    .map(Number)
    .sort((a, b) => a - b);
  const sod = attempt(() => parseSod(data.sod));
  const dg1 = dgs[1]
    ? attempt(() => parseDg1(dgs[1] as Uint8Array))
    : { value: null, error: 'DG1 not submitted' };
  const portrait = dgs[2]
    ? attempt(() => parsePortrait(dgs[2] as Uint8Array))
    : { value: null, error: 'DG2 not submitted' };
  const security = dgs[14]
    ? attempt(() => parseSecurityInfos(dgs[14] as Uint8Array))
    : { value: null, error: null };
  const read = sub('chip_read', !!sod.value && !!dg1.value, {
    sod: sod.error ?? 'read',
    dg1: dg1.error ?? 'read',
    dg2: portrait.error ?? 'read',
    dg14: security.error ?? (dgs[14] ? 'read' : 'not submitted'),
    data_groups: submitted,
  });
  const integrity = sod.value ? dataIntegrity(sod.value, dgs) : sub('chip_data_integrity', null, null);
  const signer = sod.value
    ? documentSigner(sod.value, data.document_signer)
    : { cert: null, error: null, source: null };
  const signature = signatureCheck(sod.value, signer);
  const signedAt = signingTime(sod.value, dgs[12], now);
  const chain = signer.cert && sod.value ? chainToCsca(signer.cert, anchors, signedAt, now) : null;
  const chainCheck = chainSubCheck(chain, signer.cert, dg1.value);
  const aa = activeAuthentication(data, security.value);
  const checks = [read, integrity, signature, chainCheck, aa.check];
  const s = sod.value;
  return {
    verified: checks.slice(0, 4).every((c) => c.passed === true),
    sub_checks: checks,
    sod: s && {
      lds_security_object_version: s.version,
      lds_version: s.lds_version,
      hash_algorithm: s.hash_algorithm,
      data_group_hashes: [...s.hashes]
        .sort(([a], [b]) => a - b)
        .map(([n, h]) => ({ data_group: n, hash: toHex(h) })),
      signature_algorithm: signer.cert
        ? ((signature.value as { algorithm?: string })?.algorithm ?? null)
        : null,
      signing_time: s.cms.signing_time?.toISOString() ?? null,
    },
    dg1: dg1.value?.mrz ?? null,
    dg1_lines: dg1.value?.lines ?? [],
    signer:
      signer.cert && signer.source ? { ...certificateSummary(signer.cert), source: signer.source } : null,
    chain,
    trust_store_version: anchors.version,
    chip_authentication: !security.value
      ? 'unknown'
      : security.value.chip_authentication
        ? 'present_not_verified'
        : 'not_offered',
    active_authentication: aa.result,
    portrait: portrait.value && {
      format: portrait.value.format,
      width: portrait.value.width,
      height: portrait.value.height,
    },
    data_groups: submitted,
  };
}

/** Every submitted data group hashed with the SOD's algorithm against the SOD's value. A data group the SOD does
 * not list is a failure too: nothing vouches for it. */
function dataIntegrity(sod: Sod, dgs: ChipData['data_groups']): ChipSubCheck {
  const rows = Object.entries(dgs).map(([k, bytes]) => {
    const n = Number(k);
    const expected = sod.hashes.get(n);
    const actual = digest(sod.hash_algorithm, bytes as Uint8Array);
    return {
      data_group: n,
      expected: expected ? toHex(expected) : null,
      actual: toHex(actual),
      matches: !!expected && Buffer.compare(actual, expected) === 0,
    };
  });
  return sub('chip_data_integrity', rows.length > 0 && rows.every((r) => r.matches), rows);
}

interface Signer {
  cert: Certificate | null;
  source: 'embedded' | 'submitted' | null;
  error: string | null;
}

/** The Document Signer: the certificate the SOD embeds, else the one submitted (which must be the one the
 * SignerInfo names). */
function documentSigner(sod: Sod, submitted: Uint8Array | null | undefined): Signer {
  const embedded = embeddedSigner(sod.cms);
  if (embedded) return { cert: embedded, source: 'embedded', error: null };
  if (!submitted)
    return {
      cert: null,
      source: null,
      error: 'the SOD embeds no Document Signer certificate and none was submitted',
    };
  const parsed = attempt(() => parseCertificate(submitted));
  if (!parsed.value) return { cert: null, source: null, error: `document_signer: ${parsed.error}` };
  if (!isSigner(sod.cms, parsed.value)) {
    return {
      cert: null,
      source: null,
      error: 'the submitted certificate is not the one the SOD names as its signer',
    };
  }
  return { cert: parsed.value, source: 'submitted', error: null };
}

function signatureCheck(sod: Sod | null, signer: Signer): ChipSubCheck {
  if (!sod) return sub('chip_signature', null, null);
  // without a Document Signer the signature cannot be checked: nothing says who issued the data
  if (!signer.cert)
    return sub('chip_signature', false, { error: signer.error }, CHIP_REASON_CODES.chip_certificate_chain);
  const cert = signer.cert;
  const r = attempt(() => verifyCms(sod.cms, cert));
  if (!r.value) return sub('chip_signature', false, { error: r.error });
  const v = r.value;
  return sub('chip_signature', v.content_digest_matches && v.content_type_matches && v.signature_valid, {
    ...v,
    signer_source: signer.source,
  });
}

/** When the SOD was signed: its signing-time attribute, else DG12's date of issue, else now (the Document Signer
 * must then still be valid: conservative, it can only send a chip to review). */
function signingTime(
  sod: Sod | null,
  dg12: Uint8Array | undefined,
  now: Date,
): { time: Date; source: SigningTimeSource } {
  if (sod?.cms.signing_time) return { time: sod.cms.signing_time, source: 'signing_time_attribute' };
  const issued = dg12 ? attempt(() => dateOfIssue(dg12)).value : null;
  if (issued) return { time: new Date(`${issued}T12:00:00Z`), source: 'date_of_issue' };
  return { time: now, source: 'verification_time' };
}

function chainSubCheck(chain: ChainResult | null, ds: Certificate | null, dg1: Dg1 | null): ChipSubCheck {
  if (!chain || !ds) return sub('chip_certificate_chain', null, null);
  // the state in DG1 must be the state whose CSCA vouches for the Document Signer
  const state = dg1 ? alpha2Of(dg1.mrz.issuing_country) : null;
  const countryMatches = state === null || state === ds.country;
  const failure = chain.failure ?? (countryMatches ? null : 'country_mismatch');
  return sub('chip_certificate_chain', failure === null, {
    ...chain,
    failure,
    document_issuing_state: dg1?.mrz.issuing_country ?? null,
    document_signer_country: ds.country,
  });
}

function activeAuthentication(
  data: ChipData,
  security: SecurityInfos | null,
): { check: ChipSubCheck; result: ActiveAuthResult | null } {
  const dg15 = data.data_groups[15];
  const answer = data.active_authentication;
  if (!answer) {
    return {
      check: sub('chip_active_authentication', null, { challenged: false, dg15_present: !!dg15 }),
      result: null,
    };
  }
  if (!dg15) {
    const result = { passed: false, algorithm: 'none', reason: 'dg15_missing' };
    return { check: sub('chip_active_authentication', false, result), result };
  }
  const r = attempt(() =>
    verifyActiveAuthentication(
      dg15,
      answer.challenge,
      answer.signature,
      security?.active_authentication_hash ?? null,
    ),
  );
  const result = r.value ?? { passed: false, algorithm: 'unknown', reason: r.error ?? 'unreadable' };
  return { check: sub('chip_active_authentication', result.passed, { challenged: true, ...result }), result };
}

/** DG1 against the OCR reading of the same document's printed MRZ: the fields that identify the person and the
 * document must be equal. */
export function mrzMatchesVisual(
  chip: MrzFields | null,
  printed: MrzFields | null | undefined,
): ChipSubCheck {
  if (!chip || !printed) return sub('chip_mrz_matches_visual', null, { printed: !!printed });
  const fields = [
    'document_number',
    'issuing_country',
    'birth_date',
    'expiry_date',
    'surname',
    'given_names',
    'sex',
  ] as const;
  const differing = fields.filter((f) => norm(chip[f]) !== norm(printed[f]));
  return sub('chip_mrz_matches_visual', differing.length === 0, { differing });
}

const norm = (s: string | null) =>
  (s ?? '')
    .replace(/[\s<]+/g, ' ')
    .trim()
    .toUpperCase();
