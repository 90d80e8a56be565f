import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyKind = 'secret' | 'publishable';
const PREFIX: Record<KeyKind, string> = { secret: 'tnk_', publishable: 'pk_' };
const KEY_RE = /^(tnk|pk)_[A-Za-z0-9_-]{32,64}$/;

export function generateKey(kind: KeyKind): { key: string; hash: Buffer; prefix: string } {
  const key = PREFIX[kind] + randomBytes(24).toString('base64url');
  return { key, hash: hashKey(key), prefix: key.slice(0, PREFIX[kind].length + 6) };
}

/** Keys carry 192 random bits, so one SHA-256 is enough (no slow KDF needed, unlike passwords). One-shot
 * `crypto.hash` (Node ≥ 20.12): no Hash object a request, about half createHash's cost. */
export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export function keyKind(key: string): KeyKind | undefined {
  const m = KEY_RE.exec(key);
  if (!m) return undefined;
  return m[1] === 'tnk' ? 'secret' : 'publishable';
}

/** Constant-time string comparison for secrets of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
