// The data groups this service reads (ICAO 9303-10 §4.7): DG1 (the MRZ), DG2 (the portrait), DG12 (the date of
// issue), DG14 (security infos: Chip Authentication, the Active Authentication algorithm), DG15 (the Active
// Authentication public key). Every other submitted data group is only hashed.
import type * as asn1js from 'asn1js';
import type { MrzFields, MrzFormat } from '../document/index.js';
import { parseLines } from '../document/mrz/index.js';
import type { HashName } from './algorithms.js';
import { fromBer } from './certificates.js';
import { ChipFormatError, findTlv, readTlv, readWhole } from './tlv.js';

/** The tag of each data group's file (DG1 0x61 … DG16 0x70). */
export const DG_TAGS: Readonly<Record<number, number>> = {
  1: 0x61,
  2: 0x75,
  3: 0x63,
  4: 0x76,
  5: 0x65,
  6: 0x66,
  7: 0x67,
  8: 0x68,
  9: 0x69,
  10: 0x6a,
  11: 0x6b,
  12: 0x6c,
  13: 0x6d,
  14: 0x6e,
  15: 0x6f,
  16: 0x70,
};

/** Checks that a data group's bytes are one TLV with its file's tag (what the API checks before queueing). */
export function checkDataGroupEnvelope(dg: number, bytes: Uint8Array): void {
  const tag = DG_TAGS[dg];
  if (tag === undefined) throw new ChipFormatError('data_group_unknown', `there is no data group ${dg}`);
  readWhole(bytes, tag, `DG${dg}`);
}

const FORMAT_BY_LENGTH: Record<number, { format: MrzFormat; lines: number }> = {
  90: { format: 'TD1', lines: 3 },
  72: { format: 'TD2', lines: 2 },
  88: { format: 'TD3', lines: 2 },
};

export interface Dg1 {
  mrz: MrzFields;
  lines: string[];
  check_digits_valid: boolean;
}

/** DG1: tag 0x61 around 0x5F1F, the MRZ as one string (90, 72 or 88 characters: TD1, TD2, TD3). */
export function parseDg1(bytes: Uint8Array): Dg1 {
  const dg = readWhole(bytes, DG_TAGS[1] as number, 'DG1');
  const data = findTlv(dg.value, 0x5f1f, 'DG1');
  if (!data) throw new ChipFormatError('dg1_malformed', 'DG1: no MRZ data element (5F1F)');
  const text = Buffer.from(data.value).toString('latin1');
  const f = FORMAT_BY_LENGTH[text.length];
  if (!f || !/^[A-Z0-9<]+$/.test(text)) {
    throw new ChipFormatError(
      'dg1_malformed',
      `DG1: ${text.length} MRZ characters is not a TD1, TD2 or TD3 MRZ`,
    );
  }
  const width = text.length / f.lines;
  const lines = Array.from({ length: f.lines }, (_, i) => text.slice(i * width, (i + 1) * width));
  const parsed = parseLines(f.format, lines);
  if (!parsed) throw new ChipFormatError('dg1_malformed', 'DG1: the MRZ does not parse');
  return { mrz: parsed.fields, lines, check_digits_valid: parsed.check_digits_valid };
}

export interface Portrait {
  format: 'jpeg' | 'jpeg2000';
  /** the image bytes as stored (JPEG, a JP2 file or a raw JPEG 2000 codestream) */
  image: Uint8Array;
  width: number | null;
  height: number | null;
}

const JPEG = [0xff, 0xd8, 0xff];
const JP2 = [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a];
const J2K = [0xff, 0x4f, 0xff, 0x51];

const startsWith = (b: Uint8Array, at: number, sig: number[]) => sig.every((x, i) => b[at + i] === x);

/**
 * DG2: 0x75 → 0x7F61 biometric information group → 0x7F60 template → 0x5F2E (or 0x7F2E) biometric data block, an
 * ISO/IEC 19794-5 facial record ('FAC\0', version, lengths, facial information, feature points, image information,
 * then the image). The first image is returned.
 */
export function parsePortrait(bytes: Uint8Array): Portrait {
  const dg = readWhole(bytes, DG_TAGS[2] as number, 'DG2');
  const bdb = findTlv(dg.value, 0x5f2e, 'DG2') ?? findTlv(dg.value, 0x7f2e, 'DG2');
  if (!bdb) throw new ChipFormatError('dg2_malformed', 'DG2: no biometric data block (5F2E / 7F2E)');
  const b = bdb.value;
  if (Buffer.from(b.subarray(0, 4)).toString('latin1') !== 'FAC\0') {
    throw new ChipFormatError(
      'dg2_malformed',
      'DG2: the biometric data block is not an ISO 19794-5 facial record',
    );
  }
  const u16 = (at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
  // general header 14 bytes; facial information 20 bytes, of which bytes 4–5 are the feature point count
  const featurePoints = u16(14 + 4);
  const info = 14 + 20 + 8 * featurePoints;
  const imageType = b[info + 1];
  const width = u16(info + 2);
  const height = u16(info + 4);
  const start = info + 12;
  if (start >= b.length) throw new ChipFormatError('dg2_malformed', 'DG2: the facial record has no image');
  const image = b.subarray(start);
  const format = startsWith(image, 0, JPEG)
    ? 'jpeg'
    : startsWith(image, 0, JP2) || startsWith(image, 0, J2K)
      ? 'jpeg2000'
      : null;
  if (!format) {
    throw new ChipFormatError(
      'dg2_malformed',
      `DG2: the image is neither JPEG nor JPEG 2000 (declared type ${imageType ?? '?'})`,
    );
  }
  return { format, image, width: width || null, height: height || null };
}

/** DG12: the date of issue (5F26, YYYYMMDD) as YYYY-MM-DD, null when absent or not a date. */
export function dateOfIssue(bytes: Uint8Array): string | null {
  const dg = readWhole(bytes, DG_TAGS[12] as number, 'DG12');
  const t = findTlv(dg.value, 0x5f26, 'DG12');
  if (!t) return null;
  const s = Buffer.from(t.value).toString('latin1');
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

export interface SecurityInfos {
  /** every protocol OID the chip announces */
  protocols: string[];
  /** Chip Authentication (EAC, BSI TR-03110) is offered */
  chip_authentication: boolean;
  /** the hash of ECDSA Active Authentication, from ActiveAuthenticationInfo */
  active_authentication_hash: HashName | null;
}

const CA_PREFIXES = ['0.4.0.127.0.7.2.2.3.', '0.4.0.127.0.7.2.2.1.'];
const AA_INFO = '2.23.136.1.1.5';
const AA_HASHES: Record<string, HashName> = {
  '0.4.0.127.0.7.1.1.4.1.1': 'sha1',
  '0.4.0.127.0.7.1.1.4.1.2': 'sha224',
  '0.4.0.127.0.7.1.1.4.1.3': 'sha256',
  '0.4.0.127.0.7.1.1.4.1.4': 'sha384',
  '0.4.0.127.0.7.1.1.4.1.5': 'sha512',
};

/** DG14: tag 0x6E around SecurityInfos, a SET OF SEQUENCE {protocol OBJECT IDENTIFIER, …}. */
export function parseSecurityInfos(bytes: Uint8Array): SecurityInfos {
  const dg = readWhole(bytes, DG_TAGS[14] as number, 'DG14');
  const set = fromBer(dg.value, 'dg14') as asn1js.Set;
  const protocols: string[] = [];
  let aaHash: HashName | null = null;
  for (const info of (set.valueBlock?.value ?? []) as asn1js.Sequence[]) {
    const parts = (info.valueBlock?.value ?? []) as asn1js.ObjectIdentifier[];
    const oid = parts[0]?.valueBlock?.toString?.();
    if (!oid) throw new ChipFormatError('dg14_malformed', 'DG14: a SecurityInfo without a protocol');
    protocols.push(oid);
    if (oid === AA_INFO) aaHash = AA_HASHES[parts[2]?.valueBlock?.toString?.() ?? ''] ?? null;
  }
  return {
    protocols,
    chip_authentication: protocols.some((p) => CA_PREFIXES.some((c) => p.startsWith(c))),
    active_authentication_hash: aaHash,
  };
}

/** DG15: tag 0x6F around the Active Authentication SubjectPublicKeyInfo (DER). */
export function activeAuthenticationKey(bytes: Uint8Array): Uint8Array {
  const dg = readWhole(bytes, DG_TAGS[15] as number, 'DG15');
  readTlv(dg.value, 0, 'DG15 public key');
  return dg.value;
}
