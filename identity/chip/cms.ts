// CMS SignedData (RFC 5652) as ICAO uses it: EF.SOD (an LDS Security Object) and CSCA master lists (a
// CscaMasterList). Parsed with pkijs; signatures are verified here with Node's crypto (algorithms.ts), never with
// pkijs's WebCrypto engine.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { digest, type HashName, hashOf, signatureName, verifySignature } from './algorithms.js';
import { type Certificate, fromBer, nameText, parseCertificate, pki } from './certificates.js';
import { ChipFormatError, toHex } from './tlv.js';

export const OIDS = {
  signedData: '1.2.840.113549.1.7.2',
  ldsSecurityObject: '2.23.136.1.1.1',
  cscaMasterList: '2.23.136.1.1.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
} as const;

export interface SignedCms {
  /** eContentType */
  content_type: string;
  /** eContent: the signed payload */
  content: Uint8Array;
  digest_algorithm: HashName;
  /** DER of the signed attributes as a SET (what the signature covers); null when there are none */
  signed_attributes: Uint8Array | null;
  message_digest: Uint8Array | null;
  /** the content-type signed attribute */
  signed_content_type: string | null;
  signing_time: Date | null;
  signature_algorithm: pkijs.AlgorithmIdentifier;
  signature: Uint8Array;
  /** the certificates the SignedData carries */
  certificates: Certificate[];
  sid: { issuer_der: Uint8Array; issuer: string; serial_number: string } | { subject_key_id: string };
}

function attribute(attrs: pkijs.Attribute[], oid: string): unknown {
  return attrs.find((a) => a.type === oid)?.values[0];
}

/** Parses a DER ContentInfo holding a SignedData with exactly one SignerInfo (ICAO's profile). */
export function parseSignedCms(der: Uint8Array, what: string): SignedCms {
  const asn = fromBer(der, what);
  return pki(what, () => {
    const ci = new pkijs.ContentInfo({ schema: asn });
    if (ci.contentType !== OIDS.signedData) {
      throw new ChipFormatError(
        `${what}_malformed`,
        `${what}: content type ${ci.contentType}, not SignedData`,
      );
    }
    const sd = new pkijs.SignedData({ schema: ci.content });
    const si = sd.signerInfos[0];
    if (!si || sd.signerInfos.length !== 1) {
      throw new ChipFormatError(
        `${what}_malformed`,
        `${what}: ${sd.signerInfos.length} signer infos, expected 1`,
      );
    }
    const eContent = sd.encapContentInfo.eContent;
    if (!eContent) throw new ChipFormatError(`${what}_malformed`, `${what}: no encapsulated content`);
    const attrs = si.signedAttrs?.attributes ?? [];
    const md = attribute(attrs, OIDS.messageDigest) as asn1js.OctetString | undefined;
    const ct = attribute(attrs, OIDS.contentType) as asn1js.ObjectIdentifier | undefined;
    const st = attribute(attrs, OIDS.signingTime) as asn1js.UTCTime | asn1js.GeneralizedTime | undefined;
    const certificates = (sd.certificates ?? [])
      .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
      .map((c) => parseCertificate(new Uint8Array(c.toSchema().toBER())));
    return {
      content_type: sd.encapContentInfo.eContentType,
      content: new Uint8Array(eContent.getValue()),
      digest_algorithm: hashOf(si.digestAlgorithm.algorithmId),
      signed_attributes: si.signedAttrs ? new Uint8Array(si.signedAttrs.encodedValue) : null,
      message_digest: md ? new Uint8Array(md.getValue()) : null,
      signed_content_type: ct ? ct.valueBlock.toString() : null,
      signing_time: st ? st.toDate() : null,
      signature_algorithm: si.signatureAlgorithm,
      signature: new Uint8Array(si.signature.valueBlock.valueHexView),
      certificates,
      sid: signerId(si.sid),
    };
  });
}

function signerId(sid: unknown): SignedCms['sid'] {
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return {
      issuer_der: new Uint8Array(sid.issuer.toSchema().toBER()),
      issuer: nameText(sid.issuer),
      serial_number: toHex(sid.serialNumber.valueBlock.valueHexView),
    };
  }
  const ski = sid as asn1js.Constructed | asn1js.OctetString;
  const hex =
    ski instanceof asn1js.OctetString
      ? toHex(ski.valueBlock.valueHexView)
      : toHex(new Uint8Array((ski.valueBlock.value[0] as asn1js.OctetString).valueBlock.valueHexView));
  return { subject_key_id: hex };
}

/** Whether `cert` is the one the SignerInfo names. */
export function isSigner(cms: SignedCms, cert: Certificate): boolean {
  const sid = cms.sid;
  if ('subject_key_id' in sid) return cert.subject_key_id === sid.subject_key_id;
  return sid.serial_number === cert.serial_number && Buffer.compare(sid.issuer_der, cert.issuer_der) === 0;
}

/** The embedded certificate the SignerInfo names, if any. */
export const embeddedSigner = (cms: SignedCms): Certificate | undefined =>
  cms.certificates.find((c) => isSigner(cms, c));

export interface CmsSignatureResult {
  /** the signed attributes' message digest equals the content's hash */
  content_digest_matches: boolean;
  /** the signed attributes' content type equals the eContentType */
  content_type_matches: boolean;
  /** the signature over the signed attributes verifies with the signer's key */
  signature_valid: boolean;
  algorithm: string;
}

/** Verifies the SignerInfo with `signer`'s key: the message digest over the content, then the signature over the
 * signed attributes (or over the content when there are none). */
export function verifyCms(cms: SignedCms, signer: Certificate): CmsSignatureResult {
  const algorithm = signatureName(cms.signature_algorithm, cms.digest_algorithm);
  if (!cms.signed_attributes) {
    const ok = verifySignature(
      signer.public_key,
      cms.signature_algorithm,
      cms.content,
      cms.signature,
      cms.digest_algorithm,
    );
    return { content_digest_matches: ok, content_type_matches: true, signature_valid: ok, algorithm };
  }
  const contentDigest = digest(cms.digest_algorithm, cms.content);
  return {
    content_digest_matches: !!cms.message_digest && Buffer.compare(contentDigest, cms.message_digest) === 0,
    content_type_matches: cms.signed_content_type === cms.content_type,
    signature_valid: verifySignature(
      signer.public_key,
      cms.signature_algorithm,
      cms.signed_attributes,
      cms.signature,
      cms.digest_algorithm,
    ),
    algorithm,
  };
}
