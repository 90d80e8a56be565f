// Active Authentication (ICAO 9303-11 §6.1): the chip signs the server's 8-byte challenge with the private key
// whose public half is in DG15. RSA chips sign with ISO/IEC 9796-2 digital signature scheme 1 (message recovery);
// ECDSA chips with a plain r ‖ s signature over the hash named in DG14's ActiveAuthenticationInfo.
import { constants, createPublicKey, type KeyObject, publicDecrypt, verify } from 'node:crypto';
import { digest, type HashName } from './algorithms.js';
import { activeAuthenticationKey } from './data-groups.js';
import { ChipFormatError } from './tlv.js';

export interface ActiveAuthResult {
  passed: boolean;
  algorithm: string;
  /** why it failed, when it did */
  reason?: string;
}

/** ISO/IEC 9796-2 trailers: 0xBC (SHA-1, implicit) or a hash identifier followed by 0xCC. */
const TRAILER_HASHES: Record<number, HashName> = {
  51: 'sha1',
  52: 'sha256',
  53: 'sha512',
  54: 'sha384',
  56: 'sha224',
};
const HASH_LENGTH: Record<HashName, number> = { sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 };

/**
 * ISO/IEC 9796-2 scheme 1 verification: the recovered block is 01xx header bits, padding, the recoverable part M1,
 * H(M1 ‖ M2) and the trailer; with partial recovery (header bit 0x20) the challenge is the non-recoverable M2.
 */
export function verifyIso9796(
  key: KeyObject,
  challenge: Uint8Array,
  signature: Uint8Array,
): ActiveAuthResult {
  let block: Buffer;
  try {
    block = publicDecrypt({ key, padding: constants.RSA_NO_PADDING }, signature);
  } catch {
    return { passed: false, algorithm: 'RSA ISO 9796-2', reason: 'signature_not_rsa_block' };
  }
  const last = block[block.length - 1] ?? 0;
  const first = block[0] ?? 0;
  let hash: HashName | undefined;
  let trailer = 1;
  if (last === 0xbc) hash = 'sha1';
  else if (last === 0xcc) {
    hash = TRAILER_HASHES[block[block.length - 2] ?? -1];
    trailer = 2;
  }
  const algorithm = `RSA ISO 9796-2 ${hash ?? '?'}`;
  if ((first & 0xc0) !== 0x40 || !hash) return { passed: false, algorithm, reason: 'block_format' };
  // the message starts after the padding nibbles, at the first byte whose low nibble is 0xA
  let start = 0;
  while (start < block.length && ((block[start] ?? 0) & 0x0f) !== 0x0a) start++;
  start++;
  const hashAt = block.length - trailer - HASH_LENGTH[hash];
  if (hashAt <= start) return { passed: false, algorithm, reason: 'block_format' };
  const m1 = block.subarray(start, hashAt);
  const partial = (first & 0x20) !== 0;
  const expected = digest(hash, partial ? Buffer.concat([m1, challenge]) : m1);
  const ok = Buffer.compare(expected, block.subarray(hashAt, hashAt + HASH_LENGTH[hash])) === 0;
  // with full recovery the recovered message must be the challenge itself
  const full = partial || Buffer.compare(m1, challenge) === 0;
  return ok && full ? { passed: true, algorithm } : { passed: false, algorithm, reason: 'signature_invalid' };
}

const EC_HASH_BY_BITS: Record<number, HashName> = {
  160: 'sha1',
  192: 'sha1',
  224: 'sha224',
  256: 'sha256',
  320: 'sha256',
  384: 'sha384',
  512: 'sha512',
  521: 'sha512',
};

function ecBits(key: KeyObject): number {
  const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
  const m = /(\d{3})/.exec(curve);
  return m ? Number(m[1]) : 256;
}

/** Verifies the chip's answer to `challenge` with DG15's key; `ecdsaHash` from DG14 (else by the curve's size). */
export function verifyActiveAuthentication(
  dg15: Uint8Array,
  challenge: Uint8Array,
  signature: Uint8Array,
  ecdsaHash: HashName | null,
): ActiveAuthResult {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(activeAuthenticationKey(dg15)), format: 'der', type: 'spki' });
  } catch (err) {
    if (err instanceof ChipFormatError) throw err;
    throw new ChipFormatError('dg15_malformed', `DG15: not a public key (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType === 'rsa') return verifyIso9796(key, challenge, signature);
  if (key.asymmetricKeyType !== 'ec') {
    return { passed: false, algorithm: key.asymmetricKeyType ?? '?', reason: 'key_type_unsupported' };
  }
  const bits = ecBits(key);
  const hash = ecdsaHash ?? EC_HASH_BY_BITS[bits] ?? 'sha256';
  const algorithm = `ECDSA ${hash}`;
  const plain = signature.length === 2 * Math.ceil(bits / 8);
  try {
    const ok = verify(hash, challenge, { key, dsaEncoding: plain ? 'ieee-p1363' : 'der' }, signature);
    return ok ? { passed: true, algorithm } : { passed: false, algorithm, reason: 'signature_invalid' };
  } catch {
    return { passed: false, algorithm, reason: 'signature_invalid' };
  }
}
