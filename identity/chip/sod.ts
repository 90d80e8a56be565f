// EF.SOD (ICAO 9303-10 §4.6.2, 9303-12): tag 0x77 around a CMS SignedData whose content is an LDS Security Object
// with the hash of every data group on the chip.
import type * as asn1js from 'asn1js';
import { type HashName, hashOf } from './algorithms.js';
import { fromBer } from './certificates.js';
import { OIDS, parseSignedCms, type SignedCms } from './cms.js';
import { ChipFormatError, readWhole } from './tlv.js';

export interface Sod {
  /** LDSSecurityObject version: 0 (LDS 1.7) or 1 (LDS 1.8, with ldsVersionInfo) */
  version: number;
  lds_version: string | null;
  unicode_version: string | null;
  hash_algorithm: HashName;
  /** data group number → its hash as the issuer signed it */
  hashes: Map<number, Uint8Array>;
  cms: SignedCms;
}

const fail = (why: string) => new ChipFormatError('sod_malformed', `EF.SOD: ${why}`);

/** Parses EF.SOD; a ChipFormatError (code sod_malformed, tlv_malformed …) says what is wrong with the bytes. */
export function parseSod(bytes: Uint8Array): Sod {
  const outer = readWhole(bytes, 0x77, 'EF.SOD');
  const cms = parseSignedCms(outer.value, 'sod');
  if (cms.content_type !== OIDS.ldsSecurityObject) {
    throw fail(
      `content type ${cms.content_type}, expected the LDS Security Object ${OIDS.ldsSecurityObject}`,
    );
  }
  const lds = fromBer(cms.content, 'sod') as asn1js.Sequence;
  const [version, alg, hashes, info] = (lds.valueBlock?.value ?? []) as asn1js.Constructed[];
  const v = (version as unknown as asn1js.Integer | undefined)?.valueBlock?.valueDec;
  if (typeof v !== 'number' || !alg?.valueBlock?.value || !hashes?.valueBlock?.value) {
    throw fail('the LDS Security Object is not {version, hashAlgorithm, dataGroupHashValues}');
  }
  const algOid = (alg.valueBlock.value[0] as asn1js.ObjectIdentifier | undefined)?.valueBlock?.toString();
  if (!algOid) throw fail('no hash algorithm');
  const map = new Map<number, Uint8Array>();
  for (const dg of hashes.valueBlock.value as asn1js.Constructed[]) {
    const [num, value] = (dg.valueBlock?.value ?? []) as [asn1js.Integer?, asn1js.OctetString?];
    const n = num?.valueBlock?.valueDec;
    if (typeof n !== 'number' || n < 1 || n > 16 || !value?.valueBlock?.valueHexView) {
      throw fail('a DataGroupHash is not {dataGroupNumber 1..16, dataGroupHashValue}');
    }
    map.set(n, new Uint8Array(value.valueBlock.valueHexView));
  }
  const infoParts = (info?.valueBlock?.value ?? []) as asn1js.PrintableString[];
  return {
    version: v,
    lds_version: infoParts[0]?.valueBlock?.value ?? null,
    unicode_version: infoParts[1]?.valueBlock?.value ?? null,
    hash_algorithm: hashOf(algOid),
    hashes: map,
    cms,
  };
}
