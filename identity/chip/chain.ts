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
  sha256Hex,
} from './certificates.js';

/** What the chain is checked against: CSCA certificates and CRLs (DER), and the store's version for evidence. */
export interface TrustAnchors {
  cscas: Uint8Array[];
  crls: Uint8Array[];
  version: number | null;
}

/** The same grouped by country (ISO alpha-2 of the certificate's subject / the CRL's issuer), as the service's
 * trust store holds them: only the Document Signer's country is ever parsed. */
export interface AnchorsByCountry {
  version: number | null;
  countries: Record<string, { cscas: Uint8Array[]; crls: Uint8Array[] }>;
}

/** Anchors as the chain reads them. */
export interface ParsedAnchors {
  version: number | null;
  cscasOf(country: string | null): Certificate[];
  crlsOf(country: string | null): Crl[];
  /** anchors that did not parse (they are skipped, and shown) */
  skipped: string[];
}

function keeper(skipped: string[]) {
  return <T>(f: () => T): T[] => {
    try {
      return [f()];
    } catch (err) {
      skipped.push((err as Error).message);
      return [];
    }
  };
}

/** Parses every anchor at once (the CLI, tests). */
export function parseAnchors(t: TrustAnchors): ParsedAnchors {
  const skipped: string[] = [];
  const keep = keeper(skipped);
  const cscas = t.cscas.flatMap((d) => keep(() => parseCertificate(d)));
  const crls = t.crls.flatMap((d) => keep(() => parseCrl(d)));
  return {
    version: t.version,
    cscasOf: (country) => cscas.filter((c) => c.country === country),
    crlsOf: (country) => crls.filter((c) => c.country === country),
    skipped,
  };
}

/** Parses a country's anchors when a chain first needs them; `cache` (by SHA-256 of the DER) keeps what a thread
 * has parsed across calls, so a trust store of every state costs only the countries actually seen. */
export function lazyAnchors(a: AnchorsByCountry, cache: Map<string, Certificate | Crl>): ParsedAnchors {
  const skipped: string[] = [];
  const keep = keeper(skipped);
  const memo = <T extends Certificate | Crl>(der: Uint8Array, parse: (d: Uint8Array) => T): T[] => {
    const key = sha256Hex(der);
    const hit = cache.get(key) as T | undefined;
    if (hit) return [hit];
    return keep(() => {
      const v = parse(der);
      cache.set(key, v);
      return v;
    });
  };
  const of = (country: string | null) => (country ? a.countries[country] : undefined);
  return {
    version: a.version,
    cscasOf: (country) => (of(country)?.cscas ?? []).flatMap((d) => memo(d, parseCertificate)),
    crlsOf: (country) => (of(country)?.crls ?? []).flatMap((d) => memo(d, parseCrl)),
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
  const ofCountry = anchors.cscasOf(country);
  if (!ofCountry.length) return { ...base, trusted: false, failure: 'no_csca_for_country' };
  // a state has several CSCAs over time (and link certificates): prefer one valid at signing time
  const issuers = ofCountry.filter((c) => issuedBy(ds, c));
  const csca = issuers.find((c) => within(c, signedAt.time)) ?? issuers[0];
  if (!csca) return { ...base, trusted: false, failure: 'not_issued_by_csca' };
  const withCsca = { ...base, csca: certificateSummary(csca) };
  const crl = newestCrl(anchors.crlsOf(csca.country), csca);
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
