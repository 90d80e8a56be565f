// CSCA master lists (ICAO 9303-12 §9, as published by ICAO's PKD and by states such as Germany's BSI): a CMS
// SignedData whose content is a CscaMasterList ::= SEQUENCE { version INTEGER, certList SET OF Certificate }.
import { type Certificate, certificateSummary, issuedBy, parseCertificate } from './certificates.js';
import type { ParsedAnchors } from './chain.js';
import { embeddedSigner, OIDS, parseSignedCms, verifyCms } from './cms.js';
import { ChipFormatError, readTlv, readWhole } from './tlv.js';

export interface MasterList {
  /** the CSCA certificates it carries (link certificates included) */
  cscas: Certificate[];
  /** entries that are not certificates this service can read (shown, not loaded) */
  skipped: string[];
  signer: ReturnType<typeof certificateSummary>;
  signing_time: string | null;
  /** where the signer's issuing CSCA was found: the trust store (trust carried over) or only the list itself
   * (the list is intact and was signed by the holder of one of its own CSCAs: the operator's choice of source is
   * the trust decision) */
  signer_issuer: 'trust_store' | 'master_list';
}

const invalid = (why: string) => new ChipFormatError('master_list_invalid', `master list: ${why}`);

/**
 * Reads and verifies a master list: the SignerInfo's signature with the embedded signer certificate, the signer
 * valid at signing time and issued by a CSCA of its own country, found in `store` or in the list itself.
 * Throws a ChipFormatError: master_list_malformed (not a master list) or master_list_invalid (it does not verify).
 */
export function readMasterList(
  bytes: Uint8Array,
  store: Pick<ParsedAnchors, 'cscasOf'>,
  now = new Date(),
): MasterList {
  const cms = parseSignedCms(bytes, 'master_list');
  if (cms.content_type !== OIDS.cscaMasterList) {
    throw new ChipFormatError('master_list_malformed', `master list: content type ${cms.content_type}`);
  }
  const { cscas, skipped } = certList(cms.content);
  const signer = embeddedSigner(cms);
  if (!signer) throw invalid('the signer certificate is not in the SignedData');
  const sig = verifyCms(cms, signer);
  if (!sig.content_digest_matches || !sig.content_type_matches || !sig.signature_valid) {
    throw invalid('its signature does not verify with its signer certificate');
  }
  const at = cms.signing_time ?? now;
  if (at < signer.not_before || at > signer.not_after) {
    throw invalid(`its signer certificate was not valid at ${at.toISOString()}`);
  }
  const sameCountry = (c: Certificate) => c.country === signer.issuer_country && issuedBy(signer, c);
  const issuer = store.cscasOf(signer.issuer_country).some(sameCountry)
    ? 'trust_store'
    : cscas.some(sameCountry)
      ? 'master_list'
      : null;
  if (!issuer) throw invalid(`its signer (${signer.subject}) was not issued by a CSCA of its country`);
  return {
    cscas,
    skipped,
    signer: certificateSummary(signer),
    signing_time: cms.signing_time?.toISOString() ?? null,
    signer_issuer: issuer,
  };
}

/** The certificates of certList, read TLV by TLV (a list of every state holds hundreds of certificates: more ASN.1
 * nodes than a whole-tree parse allows). */
function certList(content: Uint8Array): { cscas: Certificate[]; skipped: string[] } {
  const list = readWhole(content, 0x30, 'CscaMasterList');
  const version = readTlv(list.value, 0, 'CscaMasterList');
  const set = readTlv(list.value, version.end, 'CscaMasterList');
  if (version.tag !== 0x02 || set.tag !== 0x31) {
    throw new ChipFormatError(
      'master_list_malformed',
      'master list: not {version, certList SET OF Certificate}',
    );
  }
  const cscas: Certificate[] = [];
  const skipped: string[] = [];
  for (let at = 0; at < set.value.length; ) {
    const cert = readTlv(set.value, at, 'certList');
    try {
      cscas.push(parseCertificate(set.value.subarray(at, cert.end)));
    } catch (err) {
      skipped.push((err as Error).message);
    }
    at = cert.end;
  }
  return { cscas, skipped };
}
