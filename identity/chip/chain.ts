// The Document Signer's chain to its state's CSCA (ICAO 9303-11 §5.1, 9303-12): issued by a CSCA of the trust store
// (names and signature), both certificates valid at signing time, the key usages ICAO requires, and not revoked by
// the CSCA's CRL when the store holds one.
import {
  type Certificate,
  type Crl,
  certificateSummary,
  crlSignedBy,
  issuedBy,
  parseCertificate,
  parseCrl,
} from './certificates.js';

/** What the chain is checked against: CSCA certificates and CRLs (DER), and the store's version for evidence. */
export interface TrustAnchors {
  cscas: Uint8Array[];
  crls: Uint8Array[];
  version: number | null;
}

/** Parsed anchors (a worker parses a store version once and reuses it). */
export interface ParsedAnchors {
  cscas: Certificate[];
  crls: Crl[];
  version: number | null;
  /** anchors that did not parse (they are skipped, and shown) */
  skipped: string[];
}

export function parseAnchors(t: TrustAnchors): ParsedAnchors {
  const skipped: string[] = [];
  const keep = <T>(f: () => T): T[] => {
    try {
      return [f()];
    } catch (err) {
      skipped.push((err as Error).message);
      return [];
    }
  };
  return {
    cscas: t.cscas.flatMap((d) => keep(() => parseCertificate(d))),
    crls: t.crls.flatMap((d) => keep(() => parseCrl(d))),
    version: t.version,
    skipped,
  };
}

/** Why a chain is not trusted (each one → document_chip_untrusted). */
export type ChainFailure =
  | 'no_csca_for_country'
  | 'not_issued_by_csca'
  | 'csca_not_valid_at_signing_time'
  | 'ds_not_valid_at_signing_time'
  | 'csca_key_usage'
  | 'ds_key_usage'
  | 'revoked';

export interface ChainResult {
  trusted: boolean;
  failure: ChainFailure | null;
  /** the country whose CSCAs were searched (the Document Signer's issuer C) */
  country: string | null;
  csca: ReturnType<typeof certificateSummary> | null;
  signing_time: string;
  signing_time_source: SigningTimeSource;
  /** the CRL consulted: null when the store has none from this CSCA */
  crl: { issuer: string; this_update: string; next_update: string | null; stale: boolean } | null;
  revoked: boolean;
}

export type SigningTimeSource = 'signing_time_attribute' | 'date_of_issue' | 'verification_time';

const within = (c: Certificate, t: Date) => c.not_before <= t && t <= c.not_after;
const has = (c: Certificate, usage: string) => !!c.key_usage?.includes(usage);

/**
 * Chains `ds` to a CSCA of `anchors`. The Document Signer and the CSCA must both have been valid at `signedAt`
 * (ICAO lets a document outlive its Document Signer certificate, so the DS is not checked at `now`).
 */
export function chainToCsca(
  ds: Certificate,
  anchors: ParsedAnchors,
  signedAt: { time: Date; source: SigningTimeSource },
  now: Date,
): ChainResult {
  const country = ds.issuer_country;
  const base = {
    country,
    csca: null,
    signing_time: signedAt.time.toISOString(),
    signing_time_source: signedAt.source,
    crl: null,
    revoked: false,
  };
  const ofCountry = anchors.cscas.filter((c) => c.country === country);
  if (!ofCountry.length) return { ...base, trusted: false, failure: 'no_csca_for_country' };
  // a state has several CSCAs over time (and link certificates): prefer one valid at signing time
  const issuers = ofCountry.filter((c) => issuedBy(ds, c));
  const csca = issuers.find((c) => within(c, signedAt.time)) ?? issuers[0];
  if (!csca) return { ...base, trusted: false, failure: 'not_issued_by_csca' };
  const withCsca = { ...base, csca: certificateSummary(csca) };
  const crl = newestCrl(anchors.crls, csca);
  const crlView = crl
    ? {
        issuer: crl.issuer,
        this_update: crl.this_update.toISOString(),
        next_update: crl.next_update?.toISOString() ?? null,
        stale: !!crl.next_update && crl.next_update < now,
      }
    : null;
  const revoked = !!crl?.revoked.has(ds.serial_number);
  const out = { ...withCsca, crl: crlView, revoked };
  const failure: ChainFailure | null = !within(csca, signedAt.time)
    ? 'csca_not_valid_at_signing_time'
    : !within(ds, signedAt.time)
      ? 'ds_not_valid_at_signing_time'
      : !has(csca, 'keyCertSign') || csca.ca === false
        ? 'csca_key_usage'
        : !has(ds, 'digitalSignature')
          ? 'ds_key_usage'
          : revoked
            ? 'revoked'
            : null;
  return { ...out, trusted: failure === null, failure };
}

/** The newest CRL that `csca` signed (issuer name and signature verified). */
function newestCrl(crls: Crl[], csca: Certificate): Crl | undefined {
  return crls
    .filter((c) => crlSignedBy(c, csca))
    .sort((a, b) => b.this_update.getTime() - a.this_update.getTime())[0];
}
