// X.509 certificates and CRLs of the eMRTD PKI (ICAO 9303-12): parsed with pkijs (fields, extensions) and Node's
// X509Certificate (signatures through OpenSSL, fingerprints). Nothing here reaches the network: no AIA, no CRL
// distribution point, no OCSP is ever followed — the trust store holds everything a chain is checked against.
import { createHash, type KeyObject, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { verifySignature } from './algorithms.js';
import { ChipFormatError, toHex } from './tlv.js';

const OID = {
  country: '2.5.4.6',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
} as const;

const NAME_KEYS: Record<string, string> = {
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
};

const KEY_USAGES = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
] as const;

export interface Certificate {
  der: Uint8Array;
  subject: string;
  issuer: string;
  /** the subject's C attribute (ISO 3166 alpha-2, upper case), null when it has none */
  country: string | null;
  /** the issuer's C attribute */
  issuer_country: string | null;
  serial_number: string;
  not_before: Date;
  not_after: Date;
  /** null: no keyUsage extension */
  key_usage: string[] | null;
  /** basicConstraints cA; null: no such extension */
  ca: boolean | null;
  subject_key_id: string | null;
  authority_key_id: string | null;
  fingerprint_sha256: string;
  public_key: KeyObject;
  /** the issuer and subject Names as DER (compared byte for byte first, then as text) */
  issuer_der: Uint8Array;
  subject_der: Uint8Array;
  x509: X509Certificate;
}

/** How a certificate is shown in evidence, listings and the CLI. */
export function certificateSummary(c: Certificate) {
  return {
    subject: c.subject,
    issuer: c.issuer,
    country: c.country,
    serial_number: c.serial_number,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    key_usage: c.key_usage,
    fingerprint_sha256: c.fingerprint_sha256,
  };
}

export const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** DER, or PEM ("-----BEGIN CERTIFICATE-----" / "X509 CRL") → DER. */
export function pemToDer(bytes: Uint8Array, label: 'CERTIFICATE' | 'X509 CRL'): Uint8Array {
  const head = Buffer.from(bytes.subarray(0, 64)).toString('latin1');
  if (!head.includes('-----BEGIN')) return bytes;
  const text = Buffer.from(bytes).toString('latin1');
  const m = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text);
  if (!m?.[1]) throw new ChipFormatError('pem_malformed', `no ${label} block in the PEM text`);
  return Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
}

export function fromBer(bytes: Uint8Array, what: string): asn1js.AsnType {
  const asn = asn1js.fromBER(bytes);
  if (asn.offset === -1)
    throw new ChipFormatError(`${what}_malformed`, `${what}: not DER (${asn.result.error})`);
  if (asn.offset !== bytes.byteLength) {
    throw new ChipFormatError(
      `${what}_malformed`,
      `${what}: ${bytes.byteLength - asn.offset} bytes after its end`,
    );
  }
  return asn.result;
}

/** Builds a pkijs object, turning its schema errors into a ChipFormatError. */
export function pki<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ChipFormatError) throw err;
    throw new ChipFormatError(`${what}_malformed`, `${what}: ${(err as Error).message}`);
  }
}

export function nameText(n: pkijs.RelativeDistinguishedNames): string {
  return n.typesAndValues
    .map((tv) => `${NAME_KEYS[tv.type] ?? tv.type}=${String(tv.value.valueBlock.value)}`)
    .join(', ');
}

function countryOf(n: pkijs.RelativeDistinguishedNames): string | null {
  const c = n.typesAndValues.find((tv) => tv.type === OID.country);
  return c ? String(c.value.valueBlock.value).trim().toUpperCase() : null;
}

function extension(cert: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return cert.extensions?.find((e) => e.extnID === oid);
}

function keyUsage(cert: pkijs.Certificate): string[] | null {
  const ext = extension(cert, OID.keyUsage);
  if (!ext) return null;
  const bits = new Uint8Array((ext.parsedValue as asn1js.BitString).valueBlock.valueHexView);
  return KEY_USAGES.filter((_, i) => ((bits[i >> 3] ?? 0) >> (7 - (i & 7))) & 1);
}

/** Parses one certificate (DER or PEM). */
export function parseCertificate(bytes: Uint8Array): Certificate {
  const der = pemToDer(bytes, 'CERTIFICATE');
  const asn = fromBer(der, 'certificate');
  const cert = pki('certificate', () => new pkijs.Certificate({ schema: asn }));
  const x509 = pki('certificate', () => new X509Certificate(der));
  const ski = extension(cert, OID.subjectKeyId)?.parsedValue as asn1js.OctetString | undefined;
  const aki = extension(cert, OID.authorityKeyId)?.parsedValue as pkijs.AuthorityKeyIdentifier | undefined;
  const bc = extension(cert, OID.basicConstraints)?.parsedValue as pkijs.BasicConstraints | undefined;
  return {
    der,
    subject: nameText(cert.subject),
    issuer: nameText(cert.issuer),
    country: countryOf(cert.subject),
    issuer_country: countryOf(cert.issuer),
    serial_number: toHex(cert.serialNumber.valueBlock.valueHexView),
    not_before: cert.notBefore.value,
    not_after: cert.notAfter.value,
    key_usage: keyUsage(cert),
    ca: bc ? bc.cA === true : null,
    subject_key_id: ski ? toHex(ski.valueBlock.valueHexView) : null,
    authority_key_id: aki?.keyIdentifier ? toHex(aki.keyIdentifier.valueBlock.valueHexView) : null,
    fingerprint_sha256: sha256Hex(der),
    public_key: x509.publicKey,
    issuer_der: new Uint8Array(cert.issuer.toSchema().toBER()),
    subject_der: new Uint8Array(cert.subject.toSchema().toBER()),
    x509,
  };
}

export interface Crl {
  der: Uint8Array;
  issuer: string;
  issuer_der: Uint8Array;
  country: string | null;
  this_update: Date;
  next_update: Date | null;
  /** serial numbers (hex) of the revoked certificates */
  revoked: Set<string>;
  fingerprint_sha256: string;
  crl: pkijs.CertificateRevocationList;
}

/** Parses one CRL (DER or PEM). Its signature is checked against a CSCA when it is used (crlSignedBy). */
export function parseCrl(bytes: Uint8Array): Crl {
  const der = pemToDer(bytes, 'X509 CRL');
  const asn = fromBer(der, 'crl');
  const crl = pki('crl', () => new pkijs.CertificateRevocationList({ schema: asn }));
  return {
    der,
    issuer: nameText(crl.issuer),
    issuer_der: new Uint8Array(crl.issuer.toSchema().toBER()),
    country: countryOf(crl.issuer),
    this_update: crl.thisUpdate.value,
    next_update: crl.nextUpdate?.value ?? null,
    revoked: new Set(
      (crl.revokedCertificates ?? []).map((r) => toHex(r.userCertificate.valueBlock.valueHexView)),
    ),
    fingerprint_sha256: sha256Hex(der),
    crl,
  };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/** Whether `name` (issuer of one object) names `subject` (of a CA): the same DER, or the same text (states encode
 * the same Name as PrintableString in one certificate and UTF8String in another). */
export function namesMatch(
  nameDer: Uint8Array,
  name: string,
  subjectDer: Uint8Array,
  subject: string,
): boolean {
  return sameBytes(nameDer, subjectDer) || name.toUpperCase() === subject.toUpperCase();
}

/** Whether `ca` issued `cert`: names (or key identifiers) agree and the signature verifies with the CA's key. */
export function issuedBy(cert: Certificate, ca: Certificate): boolean {
  const byName = namesMatch(cert.issuer_der, cert.issuer, ca.subject_der, ca.subject);
  const byKeyId = !!cert.authority_key_id && cert.authority_key_id === ca.subject_key_id;
  if (!byName && !byKeyId) return false;
  try {
    return cert.x509.verify(ca.public_key);
  } catch {
    return false;
  }
}

/** Whether `ca` signed `crl` (issuer name and signature). */
export function crlSignedBy(crl: Crl, ca: Certificate): boolean {
  if (!namesMatch(crl.issuer_der, crl.issuer, ca.subject_der, ca.subject)) return false;
  try {
    return verifySignature(
      ca.public_key,
      crl.crl.signatureAlgorithm,
      crl.crl.tbsView,
      crl.crl.signatureValue.valueBlock.valueHexView,
    );
  } catch {
    // an algorithm this service does not support: the CRL cannot be used
    return false;
  }
}
