// Hashes and signatures of the eMRTD PKI, verified with Node's crypto (OpenSSL): RSA PKCS#1 v1.5, RSASSA-PSS and
// ECDSA on any curve OpenSSL knows — NIST and Brainpool alike (WebCrypto has no Brainpool curves, so nothing here
// goes through a WebCrypto engine).
import { constants, createHash, type KeyObject, verify } from 'node:crypto';
import * as pkijs from 'pkijs';
import { ChipFormatError } from './tlv.js';

export type HashName = 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

const HASH_OIDS: Record<string, HashName> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Signature algorithms: the hash they name (null = the SignerInfo's digest algorithm) and their family. */
const SIGNATURE_OIDS: Record<
  string,
  { family: 'rsa' | 'pss' | 'ecdsa' | 'ecdsa-plain'; hash: HashName | null }
> = {
  '1.2.840.113549.1.1.1': { family: 'rsa', hash: null },
  '1.2.840.113549.1.1.5': { family: 'rsa', hash: 'sha1' },
  '1.2.840.113549.1.1.14': { family: 'rsa', hash: 'sha224' },
  '1.2.840.113549.1.1.11': { family: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { family: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { family: 'rsa', hash: 'sha512' },
  '1.2.840.113549.1.1.10': { family: 'pss', hash: null },
  '1.2.840.10045.2.1': { family: 'ecdsa', hash: null },
  '1.2.840.10045.4.1': { family: 'ecdsa', hash: 'sha1' },
  '1.2.840.10045.4.3.1': { family: 'ecdsa', hash: 'sha224' },
  '1.2.840.10045.4.3.2': { family: 'ecdsa', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { family: 'ecdsa', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { family: 'ecdsa', hash: 'sha512' },
  // BSI TR-03111 ecdsa-plain-signatures: r ‖ s instead of a DER SEQUENCE
  '0.4.0.127.0.7.1.1.4.1.1': { family: 'ecdsa-plain', hash: 'sha1' },
  '0.4.0.127.0.7.1.1.4.1.2': { family: 'ecdsa-plain', hash: 'sha224' },
  '0.4.0.127.0.7.1.1.4.1.3': { family: 'ecdsa-plain', hash: 'sha256' },
  '0.4.0.127.0.7.1.1.4.1.4': { family: 'ecdsa-plain', hash: 'sha384' },
  '0.4.0.127.0.7.1.1.4.1.5': { family: 'ecdsa-plain', hash: 'sha512' },
};

/** The hash an AlgorithmIdentifier names; a ChipFormatError for one this service does not support. */
export function hashOf(oid: string): HashName {
  const h = HASH_OIDS[oid];
  if (!h) throw new ChipFormatError('algorithm_unsupported', `unsupported digest algorithm ${oid}`);
  return h;
}

export const digest = (hash: HashName, data: Uint8Array): Buffer => createHash(hash).update(data).digest();

/** A readable name of a signature algorithm for evidence ("RSASSA-PSS sha256 salt 32", "ECDSA sha256"). */
export function signatureName(alg: pkijs.AlgorithmIdentifier, digestHint?: HashName): string {
  const s = SIGNATURE_OIDS[alg.algorithmId];
  if (!s) return alg.algorithmId;
  if (s.family === 'pss') {
    const p = pssParams(alg);
    return `RSASSA-PSS ${p.hash} salt ${p.saltLength}`;
  }
  const hash = s.hash ?? digestHint ?? '?';
  return `${s.family === 'rsa' ? 'RSA PKCS#1 v1.5' : s.family === 'ecdsa' ? 'ECDSA' : 'ECDSA plain'} ${hash}`;
}

function pssParams(alg: pkijs.AlgorithmIdentifier): { hash: HashName; saltLength: number } {
  const p = alg.algorithmParams
    ? new pkijs.RSASSAPSSParams({ schema: alg.algorithmParams })
    : new pkijs.RSASSAPSSParams();
  const hash = hashOf(p.hashAlgorithm.algorithmId);
  const mgf = p.maskGenAlgorithm;
  if (mgf.algorithmId !== '1.2.840.113549.1.1.8') {
    throw new ChipFormatError('algorithm_unsupported', `unsupported PSS mask generation ${mgf.algorithmId}`);
  }
  const mgfHash = mgf.algorithmParams
    ? hashOf(new pkijs.AlgorithmIdentifier({ schema: mgf.algorithmParams }).algorithmId)
    : 'sha1';
  // Node's verify uses the message hash for MGF1 as well
  if (mgfHash !== hash) {
    throw new ChipFormatError(
      'algorithm_unsupported',
      `PSS with MGF1-${mgfHash} over ${hash} is not supported`,
    );
  }
  if (p.trailerField !== 1)
    throw new ChipFormatError('algorithm_unsupported', 'PSS trailer field other than 1');
  return { hash, saltLength: p.saltLength };
}

/**
 * Verifies `signature` over `data` with `key` under the signature AlgorithmIdentifier `alg`. `digestHint` is the
 * SignerInfo's digest algorithm, used when the signature algorithm names none (rsaEncryption, ecPublicKey).
 * Throws a ChipFormatError for an algorithm this service does not support; a wrong signature is `false`.
 */
export function verifySignature(
  key: KeyObject,
  alg: pkijs.AlgorithmIdentifier,
  data: Uint8Array,
  signature: Uint8Array,
  digestHint?: HashName,
): boolean {
  const s = SIGNATURE_OIDS[alg.algorithmId];
  if (!s)
    throw new ChipFormatError('algorithm_unsupported', `unsupported signature algorithm ${alg.algorithmId}`);
  const pss = s.family === 'pss' ? pssParams(alg) : undefined;
  const hash = pss?.hash ?? s.hash ?? digestHint;
  if (!hash)
    throw new ChipFormatError('algorithm_unsupported', `${alg.algorithmId} without a digest algorithm`);
  try {
    if (pss) {
      return verify(
        hash,
        data,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pss.saltLength },
        signature,
      );
    }
    if (s.family === 'rsa') return verify(hash, data, key, signature);
    return verify(hash, data, { key, dsaEncoding: s.family === 'ecdsa' ? 'der' : 'ieee-p1363' }, signature);
  } catch {
    // a key of another type than the algorithm's, or a signature that is not even well-formed: it does not verify
    return false;
  }
}
