// ePassport chip data built at test time: a CSCA, a Document Signer it issues, CRLs, an EF.SOD over generated data
// groups, a CSCA master list, and a chip's Active Authentication answers. Certificates and CMS structures are built
// with pkijs and signed with Node's crypto (RSA PKCS#1 v1.5, RSASSA-PSS, ECDSA on P-256 and brainpoolP256r1).
import {
  constants,
  createHash,
  generateKeyPairSync,
  type KeyObject,
  privateEncrypt,
  randomBytes,
  sign,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export type KeyKind = 'rsa' | 'rsa-pss' | 'p256' | 'brainpoolP256r1';

export interface Party {
  /** the certificate, DER */
  der: Uint8Array;
  cert: pkijs.Certificate;
  privateKey: KeyObject;
  publicKey: KeyObject;
  kind: KeyKind;
}

const HASH = { sha256: '2.16.840.1.101.3.4.2.1' } as const;
const NULL_PARAMS = () => new asn1js.Null();

const alg = (oid: string, params?: asn1js.AsnType) =>
  new pkijs.AlgorithmIdentifier({ algorithmId: oid, ...(params ? { algorithmParams: params } : {}) });

const sha256Alg = () => alg(HASH.sha256, NULL_PARAMS());

/** The signature AlgorithmIdentifier a key of `kind` signs with (sha256 throughout). */
function signatureAlg(kind: KeyKind): pkijs.AlgorithmIdentifier {
  if (kind === 'rsa') return alg('1.2.840.113549.1.1.11', NULL_PARAMS());
  if (kind === 'rsa-pss') {
    const params = new pkijs.RSASSAPSSParams({
      hashAlgorithm: sha256Alg(),
      maskGenAlgorithm: alg('1.2.840.113549.1.1.8', sha256Alg().toSchema()),
      saltLength: 32,
    });
    return alg('1.2.840.113549.1.1.10', params.toSchema());
  }
  return alg('1.2.840.10045.4.3.2');
}

/** Signs `data` as `kind` does (the signature value of a certificate, CRL or SignerInfo). */
export function signAs(kind: KeyKind, key: KeyObject, data: Uint8Array): Buffer {
  if (kind === 'rsa-pss') {
    return sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
  return sign('sha256', data, key);
}

const keyCache = new Map<string, { privateKey: KeyObject; publicKey: KeyObject }>();

/** A key pair of `kind`; `slot` names a reusable one (RSA key generation is slow). */
export function keyPair(kind: KeyKind, slot?: string) {
  const cached = slot && keyCache.get(`${kind}:${slot}`);
  if (cached) return cached;
  const pair =
    kind === 'rsa' || kind === 'rsa-pss'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: kind === 'p256' ? 'prime256v1' : 'brainpoolP256r1' });
  if (slot) keyCache.set(`${kind}:${slot}`, pair);
  return pair;
}

function name(country: string, cn: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({
        type: '2.5.4.6',
        value: new asn1js.PrintableString({ value: country }),
      }),
      new pkijs.AttributeTypeAndValue({
        type: '2.5.4.10',
        value: new asn1js.Utf8String({ value: 'Test State' }),
      }),
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: cn }) }),
    ],
  });
}

const spkiOf = (k: KeyObject) =>
  new pkijs.PublicKeyInfo({ schema: asn1js.fromBER(k.export({ type: 'spki', format: 'der' })).result });

const keyId = (k: KeyObject) =>
  new Uint8Array(
    createHash('sha1')
      .update(k.export({ type: 'spki', format: 'der' }))
      .digest(),
  );

/** keyUsage bits: digitalSignature = 0, keyCertSign = 5, cRLSign = 6. */
function keyUsage(bits: number[]): pkijs.Extension {
  let v = 0;
  for (const b of bits) v |= 0x80 >> b;
  const bs = new asn1js.BitString({ valueHex: new Uint8Array([v]).buffer, unusedBits: 0 });
  return new pkijs.Extension({ extnID: '2.5.29.15', critical: true, extnValue: bs.toBER() });
}

export interface CertOptions {
  country: string;
  cn: string;
  kind: KeyKind;
  serial?: number;
  notBefore?: Date;
  notAfter?: Date;
  /** key usage bits (default: CSCA keyCertSign + cRLSign, DS digitalSignature) */
  usage?: number[];
  /** a fixed key (slot name, see keyPair) */
  slot?: string;
}

const YEAR = 365 * 86_400_000;

function issue(o: CertOptions, issuer: Party | null): Party {
  const { privateKey, publicKey } = keyPair(o.kind, o.slot);
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ value: o.serial ?? Math.floor(Math.random() * 1e9) + 1 });
  cert.subject = name(o.country, o.cn);
  cert.issuer = issuer ? issuer.cert.subject : cert.subject;
  cert.notBefore.value = o.notBefore ?? new Date(Date.now() - YEAR);
  cert.notAfter.value = o.notAfter ?? new Date(Date.now() + 10 * YEAR);
  cert.subjectPublicKeyInfo = spkiOf(publicKey);
  const ca = !issuer;
  cert.extensions = [
    keyUsage(o.usage ?? (ca ? [5, 6] : [0])),
    new pkijs.Extension({
      extnID: '2.5.29.14',
      extnValue: new asn1js.OctetString({ valueHex: keyId(publicKey) }).toBER(),
    }),
    new pkijs.Extension({
      extnID: '2.5.29.35',
      extnValue: new pkijs.AuthorityKeyIdentifier({
        keyIdentifier: new asn1js.OctetString({ valueHex: keyId(issuer?.publicKey ?? publicKey) }),
      })
        .toSchema()
        .toBER(),
    }),
    ...(ca
      ? [
          new pkijs.Extension({
            extnID: '2.5.29.19',
            critical: true,
            extnValue: new pkijs.BasicConstraints({ cA: true, pathLenConstraint: 0 }).toSchema().toBER(),
          }),
        ]
      : []),
  ];
  const signer = issuer ?? { kind: o.kind, privateKey };
  cert.signature = signatureAlg(signer.kind);
  cert.signatureAlgorithm = signatureAlg(signer.kind);
  const tbs = new Uint8Array(cert.encodeTBS().toBER());
  cert.tbsView = tbs;
  cert.signatureValue = new asn1js.BitString({ valueHex: signAs(signer.kind, signer.privateKey, tbs) });
  const der = new Uint8Array(cert.toSchema().toBER());
  return { der, cert: pkijs.Certificate.fromBER(der), privateKey, publicKey, kind: o.kind };
}

/** A self-signed Country Signing CA. */
export const makeCsca = (o: CertOptions): Party => issue(o, null);

/** A Document Signer (or a master-list signer) issued by `issuer`. */
export const makeSigner = (o: CertOptions, issuer: Party): Party => issue(o, issuer);

/** A CRL of `issuer` revoking `serials`. */
export function makeCrl(
  issuer: Party,
  serials: number[],
  thisUpdate = new Date(),
  nextUpdate?: Date,
): Uint8Array {
  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1;
  crl.issuer = issuer.cert.subject;
  crl.thisUpdate = new pkijs.Time({ type: 0, value: thisUpdate });
  crl.nextUpdate = new pkijs.Time({
    type: 0,
    value: nextUpdate ?? new Date(thisUpdate.getTime() + 90 * 86_400_000),
  });
  if (serials.length) {
    crl.revokedCertificates = serials.map(
      (s) =>
        new pkijs.RevokedCertificate({
          userCertificate: new asn1js.Integer({ value: s }),
          revocationDate: new pkijs.Time({ type: 0, value: thisUpdate }),
        }),
    );
  }
  crl.signature = signatureAlg(issuer.kind);
  crl.signatureAlgorithm = signatureAlg(issuer.kind);
  // the TBS as pkijs encodes it (encodeTBS is protected on CRLs): the first element of the whole
  const tbs = new Uint8Array((crl.toSchema(true).valueBlock.value[0] as asn1js.Sequence).toBER());
  crl.tbsView = tbs;
  crl.signatureValue = new asn1js.BitString({ valueHex: signAs(issuer.kind, issuer.privateKey, tbs) });
  return new Uint8Array(crl.toSchema().toBER());
}

// ---- LDS files ------------------------------------------------------------------------------------------

/** One BER-TLV with a definite length. */
export function tlv(tag: number, value: Uint8Array): Uint8Array {
  const t = tag > 0xff ? [tag >> 8, tag & 0xff] : [tag];
  const n = value.length;
  const l =
    n < 0x80
      ? [n]
      : n < 0x100
        ? [0x81, n]
        : n < 0x10000
          ? [0x82, n >> 8, n & 0xff]
          : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([...t, ...l]), value]);
}

/** DG1 of an MRZ given as its lines. */
export const makeDg1 = (lines: string[]) => tlv(0x61, tlv(0x5f1f, Buffer.from(lines.join(''), 'latin1')));

/** DG2 with one ISO/IEC 19794-5 facial record around `image` (JPEG, or JPEG 2000 with `type` 1). */
export function makeDg2(image: Uint8Array, type: 0 | 1, width = 300, height = 400): Uint8Array {
  const facial = Buffer.alloc(20); // no feature points
  const info = Buffer.alloc(12);
  info[0] = 1; // full frontal
  info[1] = type;
  info.writeUInt16BE(width, 2);
  info.writeUInt16BE(height, 4);
  const record = Buffer.concat([facial, info, image]);
  const header = Buffer.alloc(14);
  Buffer.from('FAC\u0000010\u0000', 'latin1').copy(header);
  header.writeUInt32BE(14 + record.length, 8);
  header.writeUInt16BE(1, 12);
  const bdb = Buffer.concat([header, record]);
  const bht = tlv(0xa1, Buffer.concat([tlv(0x80, Buffer.from([1, 1])), tlv(0x87, Buffer.from([1, 1]))]));
  const bit = tlv(0x7f60, Buffer.concat([bht, tlv(0x5f2e, bdb)]));
  return tlv(0x75, tlv(0x7f61, Buffer.concat([tlv(0x02, Buffer.from([1])), bit])));
}

/** DG15: the chip's Active Authentication public key. */
export const makeDg15 = (publicKey: KeyObject) =>
  tlv(0x6f, publicKey.export({ type: 'spki', format: 'der' }));

/** DG14 announcing Chip Authentication (and ECDSA Active Authentication with sha256 when `ecdsaAa`). */
export function makeDg14(ecdsaAa: boolean): Uint8Array {
  const info = (oid: string, ...rest: asn1js.AsnType[]) =>
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oid }), ...rest] });
  const infos = [info('0.4.0.127.0.7.2.2.3.2.2', new asn1js.Integer({ value: 1 }))];
  if (ecdsaAa) {
    infos.push(
      info(
        '2.23.136.1.1.5',
        new asn1js.Integer({ value: 1 }),
        new asn1js.ObjectIdentifier({ value: '0.4.0.127.0.7.1.1.4.1.3' }),
      ),
    );
  }
  return tlv(0x6e, new Uint8Array(new asn1js.Set({ value: infos }).toBER()));
}

function signedCms(opts: {
  signer: Party;
  contentType: string;
  content: Uint8Array;
  embed: boolean;
  signingTime?: Date;
  /** bytes cut off the end of the signature */
  cutSignature?: number;
}): Uint8Array {
  const { signer } = opts;
  const attrs = [
    new pkijs.Attribute({
      type: '1.2.840.113549.1.9.3',
      values: [new asn1js.ObjectIdentifier({ value: opts.contentType })],
    }),
    ...(opts.signingTime
      ? [
          new pkijs.Attribute({
            type: '1.2.840.113549.1.9.5',
            values: [new asn1js.UTCTime({ valueDate: opts.signingTime })],
          }),
        ]
      : []),
    new pkijs.Attribute({
      type: '1.2.840.113549.1.9.4',
      values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(opts.content).digest() })],
    }),
  ];
  const toSign = new Uint8Array(new asn1js.Set({ value: attrs.map((a) => a.toSchema()) }).toBER());
  const sid = new pkijs.IssuerAndSerialNumber({
    issuer: signer.cert.issuer,
    serialNumber: signer.cert.serialNumber,
  });
  const si = new pkijs.SignerInfo({
    version: 1,
    sid,
    digestAlgorithm: sha256Alg(),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: attrs }),
    signatureAlgorithm: signatureAlg(signer.kind),
    signature: new asn1js.OctetString({
      valueHex: signAs(signer.kind, signer.privateKey, toSign).subarray(
        0,
        opts.cutSignature ? -opts.cutSignature : undefined,
      ),
    }),
  });
  const sd = new pkijs.SignedData({
    version: 3,
    digestAlgorithms: [sha256Alg()],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: opts.contentType,
      eContent: new asn1js.OctetString({ valueHex: opts.content }),
    }),
    ...(opts.embed ? { certificates: [signer.cert] } : {}),
    signerInfos: [si],
  });
  const ci = new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: sd.toSchema(true) });
  return new Uint8Array(ci.toSchema().toBER());
}

/** EF.SOD over `dgs` (sha256), signed by `ds`; `embed` puts the Document Signer certificate in it. */
export function makeSod(
  ds: Party,
  dgs: Record<number, Uint8Array>,
  o: { embed?: boolean; signingTime?: Date; cutSignature?: number } = {},
): Uint8Array {
  const hashes = Object.entries(dgs).map(
    ([n, bytes]) =>
      new asn1js.Sequence({
        value: [
          new asn1js.Integer({ value: Number(n) }),
          new asn1js.OctetString({ valueHex: createHash('sha256').update(bytes).digest() }),
        ],
      }),
  );
  const lds = new asn1js.Sequence({
    value: [new asn1js.Integer({ value: 0 }), sha256Alg().toSchema(), new asn1js.Sequence({ value: hashes })],
  });
  const cms = signedCms({
    signer: ds,
    contentType: '2.23.136.1.1.1',
    content: new Uint8Array(lds.toBER()),
    embed: o.embed ?? true,
    ...(o.signingTime ? { signingTime: o.signingTime } : {}),
    ...(o.cutSignature ? { cutSignature: o.cutSignature } : {}),
  });
  return tlv(0x77, cms);
}

/** A CSCA master list carrying `cscas`, signed by `signer`. */
export function makeMasterList(signer: Party, cscas: Uint8Array[]): Uint8Array {
  const list = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 0 }),
      new asn1js.Set({ value: cscas.map((c) => asn1js.fromBER(c).result) }),
    ],
  });
  return signedCms({
    signer,
    contentType: '2.23.136.1.1.2',
    content: new Uint8Array(list.toBER()),
    embed: true,
  });
}

// ---- Active Authentication ------------------------------------------------------------------------------

/** The chip's answer to `challenge`: RSA ISO/IEC 9796-2 scheme 1 with SHA-1 and partial recovery, or ECDSA over
 * sha256 as r ‖ s. */
export function aaSign(key: KeyObject, challenge: Uint8Array): Buffer {
  if (key.asymmetricKeyType === 'ec') return sign('sha256', challenge, { key, dsaEncoding: 'ieee-p1363' });
  const k = (key.asymmetricKeyDetails?.modulusLength ?? 2048) / 8;
  const m1 = randomBytes(k - 2 - 20);
  const h = createHash('sha1').update(m1).update(challenge).digest();
  const block = Buffer.concat([Buffer.from([0x6a]), m1, h, Buffer.from([0xbc])]);
  return privateEncrypt({ key, padding: constants.RSA_NO_PADDING }, block);
}

// ---- JPEG 2000 ----------------------------------------------------------------------------------------------

interface J2KEncoder {
  getDecodedBuffer(f: object): Uint8Array;
  encode(): void;
  getEncodedBuffer(): Uint8Array;
}

/** A JPEG 2000 codestream of 8-bit RGB pixels, encoded with OpenJPEG's wasm build (its encoder, from disk). */
export async function encodeJ2k(rgb: Uint8Array, width: number, height: number): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const factory = require(require.resolve('@cornerstonejs/codec-openjpeg/wasmjs')) as (
    m: object,
  ) => Promise<{ J2KEncoder: new () => J2KEncoder }>;
  const m = await factory({
    wasmBinary: readFileSync(require.resolve('@cornerstonejs/codec-openjpeg/wasm')),
    print() {},
    printErr() {},
  });
  const enc = new m.J2KEncoder();
  const frame = {
    width,
    height,
    bitsPerSample: 8,
    componentCount: 3,
    isSigned: false,
    isUsingColorSpace: false,
  };
  enc.getDecodedBuffer(frame).set(rgb);
  enc.encode();
  return Buffer.from(enc.getEncodedBuffer());
}

/** A JP2 file (signature, file type and codestream boxes) around a JPEG 2000 codestream, as chips store them. */
export function jp2File(codestream: Uint8Array): Buffer {
  const box = (type: string, payload: Uint8Array) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + payload.length);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, payload]);
  };
  return Buffer.concat([
    Buffer.from('0000000c6a5020200d0a870a', 'hex'),
    box('ftyp', Buffer.from('jp2 \0\0\0\0jp2 ', 'latin1')),
    box('jp2c', codestream),
  ]);
}
