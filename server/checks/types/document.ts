import { CHIP_REASON_CODES, type ChipSubCheckName, mrzMatchesVisual } from '../../../identity/chip/index.js';
import {
  type DocumentData,
  type DocumentReading,
  type MrzFields,
  mrzData,
  readingData,
} from '../../../identity/document/index.js';
import { reportedReading } from '../../../identity/document/report.js';
import { compare } from '../../../matcher/index.js';
import { CHIP_DOC_TYPES } from '../../../schemas/chips.js';
import {
  type ChipUpload,
  type IdentityInputs,
  type ReadUpload,
  verifiedChipMrz,
} from '../../identity/identity-inputs.js';
import type { ApplicantData, CheckOutcome, CheckTypeDef } from '../check-type.js';
import { runSubChecks, type SubCheck, type SubCheckDef, type SubCheckResult } from '../sub-checks.js';
import { subjectName } from './aml-screen.js';
import { frontMatches } from './front-text.js';

/** Name consistency between the applicant and the MRZ: the matcher's compare (what `bin/veriscreen compare` runs:
 * transliteration, token order, diacritics) at the matcher's default review threshold. */
export const NAME_MATCH_THRESHOLD = 0.85;

export type { SubCheck } from '../sub-checks.js';

/** The document check (docs/decisions.md, "Identity verification"): over the flow's read identity document. */
export const documentType: CheckTypeDef = {
  type: 'document',
  needs_upload: true,
  reason_codes: {
    document_unreadable: {
      description:
        'No machine-readable zone or barcode could be read, the barcode is no complete AAMVA payload, or the file could not be decoded',
      decide: () => 'MANUAL_REVIEW',
    },
    document_check_digits_invalid: {
      description: 'An MRZ check digit (composite included) does not match: a misreading or a forgery',
      decide: () => 'MANUAL_REVIEW',
    },
    document_reading_unconfirmed: {
      description:
        'The MRZ reading failed the strict check or a second reading disagreed: a human confirms it',
      decide: () => 'MANUAL_REVIEW',
    },
    document_expired: {
      description: 'The document expired before today (raised from an accepted reading only)',
      decide: () => 'REJECTED',
    },
    document_type_not_allowed: {
      description: "The document's type (from the MRZ) is not in the template's allowed_document_types",
      decide: () => 'REJECTED',
    },
    document_country_not_allowed: {
      description: "The issuing state is not in the template's allowed_issuing_countries",
      decide: () => 'REJECTED',
    },
    document_quality_low: {
      description: 'The image is too small, blurred or has glare',
      decide: () => 'MANUAL_REVIEW',
    },
    document_data_mismatch: {
      description:
        "The name or date of birth on the document differs from the applicant's, or a card's printed front from its barcode",
      decide: () => 'MANUAL_REVIEW',
    },
    document_no_face: {
      description: 'No face (portrait) was found on the document',
      decide: () => 'MANUAL_REVIEW',
    },
    document_chip_missing: {
      description:
        'passport_nfc_behavior is required and no chip data was submitted for the passport or ID card (the flow waits in AWAITING_INPUT with missing input document_chip)',
      decide: () => 'MANUAL_REVIEW',
    },
    document_chip_unreadable: {
      description: 'The chip data could not be read (EF.SOD or DG1 malformed), or its verification failed',
      decide: () => 'MANUAL_REVIEW',
    },
    document_chip_invalid: {
      description: 'A data-group hash or the EF.SOD signature does not verify: the chip data was altered',
      decide: () => 'REJECTED',
    },
    document_chip_untrusted: {
      description:
        "The Document Signer does not chain to a trusted CSCA of the document's state (none in the trust store, another CSCA, not valid at signing time, key usage, revoked, another state), or no Document Signer certificate was given",
      decide: () => 'MANUAL_REVIEW',
    },
    document_chip_not_genuine: {
      description:
        "Active Authentication failed: the chip did not sign the server's challenge with DG15's key (a cloned chip, or an answer to another challenge)",
      decide: () => 'REJECTED',
    },
    document_chip_mismatch: {
      description: "The chip's MRZ (DG1) and the printed MRZ of the same document disagree",
      decide: () => 'MANUAL_REVIEW',
    },
  },
  async run(_deps, input) {
    if (!input.uploads) return inputsMissing('document');
    return documentCheck(input.uploads.identity, input.applicant, input.uploads.template);
  },
};

/** Run without the flow's uploads (cannot happen through a flow job): a failed check that goes to review. */
export function inputsMissing(type: 'document' | 'selfie'): CheckOutcome {
  return {
    check_type: type,
    status: 'failed',
    result: 'error',
    signals: ['check_error'],
    latency_ms: 0,
    dataset_versions: [],
    datasets: [],
    evidence: {},
    error: `the ${type} check needs the flow's read uploads`,
    alerts: [],
  };
}

export interface DocumentCheckTemplate {
  allowed_document_types: string[];
  allowed_issuing_countries: string[];
  /** the template's passport_nfc_behavior (absent: optional) */
  passport_nfc_behavior?: string;
}

/** The DocumentType an MRZ document code (ICAO 9303: P…, I…, A…, C…, V…) stands for. */
export function mrzDocumentType(code: string): string {
  const c = code.replace(/</g, '').toUpperCase();
  if (c.startsWith('P')) return 'passport';
  if (c.startsWith('V')) return 'visa';
  if (c === 'IR' || c === 'AR' || c.startsWith('R')) return 'residence_permit';
  if (c.startsWith('I') || c.startsWith('A') || c.startsWith('C')) return 'id_card';
  return 'unknown';
}

const IDENTITY_TYPES = new Set(['passport', 'id_card', 'residence_permit']);

function typeAllowed(type: string, allowed: string[]): boolean {
  if (!allowed.length) return type !== 'visa' && type !== 'unknown';
  return allowed.includes(type) || (allowed.includes('id_document') && IDENTITY_TYPES.has(type));
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/** The MRZ name as one string: given names then surname. */
export const mrzName = (m: { given_names: string; surname: string }) =>
  [m.given_names, m.surname]
    .map((p) => p.trim())
    .filter(Boolean)
    .join(' ');

/** What the document check's sub-checks look at. */
export interface DocumentContext {
  doc: ReadUpload;
  reading: DocumentReading | null;
  /** the MRZ the checks rest on: a verified chip's DG1, else the OCR reading's */
  mrz: MrzFields | null;
  /** the identity data the document states (the chip's or printed MRZ, else its barcode), null when none */
  data: DocumentData | null;
  /** a verified chip's DG1, or data read and the reading accepted: only then may a sub-check reject */
  accepted: boolean;
  /** the upload holding the portrait (a two-sided document's front), else `doc` */
  portrait?: ReadUpload | undefined;
  /** the front of a two-sided document read from its back */
  front?: ReadUpload | undefined;
  /** the document's checked chip (issue 28) */
  chip?: ChipUpload | undefined;
  applicant: ApplicantData;
  template: DocumentCheckTemplate;
  now: Date;
}

/** A sub-check over the OCR reading of the printed MRZ, skipped when there is no reading with an MRZ. */
const onReading =
  (run: (c: DocumentContext, r: DocumentReading) => SubCheckResult) =>
  (c: DocumentContext): SubCheckResult | null =>
    c.reading?.mrz ? run(c, c.reading) : null;

/** A sub-check over the document's data (the verified chip's MRZ, else the printed MRZ, else the barcode),
 * skipped without any. */
const onData =
  (run: (c: DocumentContext, d: DocumentData) => SubCheckResult | null) =>
  (c: DocumentContext): SubCheckResult | null =>
    c.data ? run(c, c.data) : null;

/** Whether the document's data is expected from a barcode: one was found, or the document is a driving licence
 * (North American licences carry a PDF417 and no MRZ). */
const barcodeDocument = (c: DocumentContext) =>
  !c.mrz && (!!c.reading?.barcode || c.doc.doc_type === 'driving_license');

/** The DocumentType the data's code stands for: an MRZ document code, or an AAMVA subfile. */
function dataDocumentType(d: DocumentData): string {
  if (d.source === 'mrz') return mrzDocumentType(d.code);
  return d.code === 'DL' ? 'driving_license' : 'id_card';
}

/** A chip sub-check as the identity worker's report has it; not recorded without a checked chip. */
const fromChip =
  (name: ChipSubCheckName) =>
  ({ chip }: DocumentContext): SubCheckResult | null => {
    const s = chip?.report?.sub_checks.find((x) => x.name === name);
    return s ? { passed: s.passed, value: s.value, reason_code: s.reason_code } : null;
  };

/** Whether the template requires a chip for this document: passports and ID cards. */
const chipRequired = (c: DocumentContext) =>
  c.template.passport_nfc_behavior === 'required' && CHIP_DOC_TYPES.has(c.doc.doc_type);

/**
 * The document check's sub-checks, in the order they are recorded. Reason codes (declared above;
 * server/checks/rules.ts): no MRZ / undecodable file → document_unreadable; a check digit wrong →
 * document_check_digits_invalid; digits right but the reading not accepted (strict check, second signal) →
 * document_reading_unconfirmed. The codes that reject (expired, type or issuing state not allowed) are raised only
 * from an accepted reading; an unaccepted reading always goes to review and never to an automatic approval.
 */
export const DOCUMENT_SUB_CHECKS: SubCheckDef<DocumentContext>[] = [
  {
    name: 'mrz_found',
    reason_code: 'document_unreadable',
    run: (c) =>
      barcodeDocument(c)
        ? null
        : {
            passed: !!c.mrz,
            value: c.mrz?.format ?? null,
            ...(c.doc.error || c.reading?.error
              ? { error: (c.doc.error ?? c.reading?.error) as string }
              : {}),
          },
  },
  {
    name: 'barcode_found',
    reason_code: 'document_unreadable',
    run: (c) =>
      barcodeDocument(c)
        ? {
            passed: !!c.reading?.barcode,
            value: c.reading?.barcode?.format ?? null,
            ...(c.doc.error || c.reading?.error
              ? { error: (c.doc.error ?? c.reading?.error) as string }
              : {}),
          }
        : null,
  },
  {
    name: 'barcode_parsed',
    reason_code: 'document_unreadable',
    run: ({ reading, mrz }) => {
      const b = reading?.barcode;
      if (!b || mrz) return null;
      return {
        passed: !!b.aamva && b.missing.length === 0,
        value: b.aamva
          ? { aamva_version: b.aamva.aamva_version, jurisdiction: b.aamva.jurisdiction, missing: b.missing }
          : null,
        ...(b.error ? { error: b.error } : {}),
      };
    },
  },
  {
    name: 'check_digits_valid',
    reason_code: 'document_check_digits_invalid',
    run: onReading((_c, r) => ({ passed: r.check_digits_valid, value: r.check_digits_valid })),
  },
  {
    name: 'reading_accepted',
    reason_code: 'document_reading_unconfirmed',
    run: onReading((_c, r) => ({ passed: r.accepted, value: r.reasons, raise: r.check_digits_valid })),
  },
  {
    name: 'not_expired',
    reason_code: 'document_expired',
    run: onData((c, d) => ({
      passed: d.expiry_date === null ? null : d.expiry_date >= today(c.now),
      value: d.expiry_date,
      expected: `>= ${today(c.now)}`,
      raise: c.accepted,
    })),
  },
  {
    name: 'document_type_allowed',
    reason_code: 'document_type_not_allowed',
    run: onData((c, d) => {
      const type = dataDocumentType(d);
      const code = d.source === 'mrz' ? { mrz_code: d.code } : { barcode_subfile: d.code };
      return {
        passed: typeAllowed(type, c.template.allowed_document_types),
        value: { ...code, type, declared: c.doc.doc_type },
        expected: c.template.allowed_document_types,
        raise: c.accepted,
      };
    }),
  },
  {
    name: 'issuing_country_allowed',
    reason_code: 'document_country_not_allowed',
    run: onData((c, d) => {
      const allowed = c.template.allowed_issuing_countries;
      const country = d.issuing_country ?? '';
      return {
        passed: !allowed.length || allowed.includes(country),
        // a licence's issuer is a state or province of the country: recorded beside it
        value: d.source === 'mrz' ? country : { country: d.issuing_country, jurisdiction: d.jurisdiction },
        expected: allowed,
        raise: c.accepted,
      };
    }),
  },
  {
    name: 'name_matches_applicant',
    reason_code: 'document_data_mismatch',
    run: onData((c, d) => {
      const name = subjectName(c.applicant);
      const docName = mrzName(d);
      const score = name && docName ? compare('Person', name, docName).score : null;
      return {
        passed: score === null ? null : score >= NAME_MATCH_THRESHOLD,
        value: { document: docName, applicant: name ?? null, score, threshold: NAME_MATCH_THRESHOLD },
      };
    }),
  },
  {
    name: 'dob_matches_applicant',
    reason_code: 'document_data_mismatch',
    run: onData((c, d) => ({
      passed: !c.applicant.dob || !d.birth_date ? null : c.applicant.dob === d.birth_date,
      value: { document: d.birth_date, applicant: c.applicant.dob ?? null },
    })),
  },
  {
    name: 'front_matches_data',
    reason_code: 'document_data_mismatch',
    run: onData((c, d) => (c.front ? frontMatches(c.front.reading?.front_text ?? null, d) : null)),
  },
  {
    name: 'image_quality',
    reason_code: 'document_quality_low',
    run: ({ reading }) => (reading ? { passed: reading.quality.ok, value: reading.quality } : null),
  },
  {
    name: 'face_present',
    reason_code: 'document_no_face',
    run: ({ doc, reading, portrait }) => {
      const p = portrait ?? doc;
      return { passed: p.face_count > 0, value: p.face_count, raise: !!reading || !doc.error };
    },
  },
  // the chip (issue 28): recorded when one was checked; chip_read also when the template requires one
  {
    name: 'chip_read',
    reason_code: CHIP_REASON_CODES.chip_read,
    run: (c) => {
      if (!c.chip) {
        return chipRequired(c) ? { passed: false, value: null, reason_code: 'document_chip_missing' } : null;
      }
      if (!c.chip.report)
        return { passed: false, value: null, error: c.chip.error ?? 'the chip was not verified' };
      return fromChip('chip_read')(c);
    },
  },
  {
    name: 'chip_data_integrity',
    reason_code: CHIP_REASON_CODES.chip_data_integrity,
    run: fromChip('chip_data_integrity'),
  },
  { name: 'chip_signature', reason_code: CHIP_REASON_CODES.chip_signature, run: fromChip('chip_signature') },
  {
    name: 'chip_certificate_chain',
    reason_code: CHIP_REASON_CODES.chip_certificate_chain,
    run: fromChip('chip_certificate_chain'),
  },
  {
    name: 'chip_active_authentication',
    reason_code: CHIP_REASON_CODES.chip_active_authentication,
    run: fromChip('chip_active_authentication'),
  },
  {
    name: 'chip_mrz_matches_visual',
    reason_code: CHIP_REASON_CODES.chip_mrz_matches_visual,
    run: ({ chip }) => (chip?.report ? mrzMatchesVisual(chip.report.dg1, chip.printed) : null),
  },
];

/** The document check over the flow's read identity document: every sub-check of DOCUMENT_SUB_CHECKS recorded with
 * its value, the reason codes of the failures raised. */
export function documentCheck(
  inputs: IdentityInputs,
  applicant: ApplicantData,
  template: DocumentCheckTemplate,
  now = new Date(),
): CheckOutcome {
  const started = performance.now();
  const doc = inputs.document;
  if (!doc) {
    return outcome(['document_unreadable'], [], undefined, started, 'no read identity document');
  }
  const reading = doc.reading;
  const chipMrz = verifiedChipMrz(inputs);
  const mrz = chipMrz ?? reading?.mrz ?? null;
  const data = chipMrz ? mrzData(chipMrz) : readingData(reading);
  const accepted = !!chipMrz || !!(data && reading?.accepted);
  const { subs, signals } = runSubChecks(DOCUMENT_SUB_CHECKS, {
    doc,
    reading,
    mrz,
    data,
    accepted,
    chip: inputs.chip,
    portrait: inputs.portrait,
    front: inputs.front,
    applicant,
    template,
    now,
  });
  const o = outcome(signals, subs, doc, started, null, inputs.chip, chipMrz ? 'chip' : 'mrz');
  const portrait = inputs.portrait ?? doc;
  if (portrait === doc) return o;
  // two sides: the portrait's faces, and which uploads the data and the portrait came from
  return {
    ...o,
    evidence: {
      ...o.evidence,
      faces: portrait.faces,
      portrait_document_id: portrait.document_id,
      front_document_id: inputs.front?.document_id ?? null,
    },
  };
}

function outcome(
  signals: string[],
  subs: SubCheck[],
  doc: ReadUpload | undefined,
  started: number,
  error: string | null,
  chip?: ChipUpload,
  mrzSource: 'chip' | 'mrz' = 'mrz',
): CheckOutcome {
  const r = doc?.reading ?? null;
  return {
    check_type: 'document',
    status: 'completed',
    result: signals.length ? 'hit' : 'clear',
    signals,
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    dataset_versions: [],
    datasets: [],
    evidence: {
      document_id: doc?.document_id ?? null,
      doc_type: doc?.doc_type ?? null,
      sub_checks: subs,
      reading: r ? { ...reportedReading(r), error: r.error ?? null } : null,
      read_error: doc?.error ?? null,
      faces: doc?.faces ?? [],
      image: doc ? { width: doc.image_width, height: doc.image_height } : null,
      mrz_source: mrzSource,
      chip: chip ? chipEvidence(chip) : null,
    },
    error,
    alerts: [],
  };
}

/** The chip as the check's evidence: the report (DG1, signer, chain, hashes) and the trust-store version that
 * verified it, never the raw data groups nor the portrait's embedding. */
function chipEvidence(c: ChipUpload) {
  return {
    document_id: c.document_id,
    verified: c.verified,
    trust_store_version: c.trust_store_version,
    error: c.error,
    portrait: c.portrait_key ? { face_count: c.face_count } : null,
    ...(c.report
      ? {
          dg1: c.report.dg1,
          signer: c.report.signer,
          chain: c.report.chain,
          sod: c.report.sod,
          data_groups: c.report.data_groups,
          chip_authentication: c.report.chip_authentication,
          active_authentication: c.report.active_authentication,
        }
      : {}),
  };
}
