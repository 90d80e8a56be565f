import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/** `Veriscreen-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]` where each v1 is
 * HMAC-SHA256(secret, `${t}.${raw body}`) — one per valid secret (two during a rotation). */
export function signatureHeader(
  secrets: string[],
  body: string,
  now_s = Math.floor(Date.now() / 1000),
): string {
  const parts = [`t=${now_s}`];
  for (const s of secrets)
    parts.push(`v1=${createHmac('sha256', s).update(`${now_s}.${body}`).digest('hex')}`);
  return parts.join(',');
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Seals a secret with AES-256-GCM under a key derived from the service's key material. */
export function seal(secret: string, keyMaterial: string): string {
  const key = createHash('sha256').update(`webhook-secrets:${keyMaterial}`).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
}

export function unseal(sealed: string, keyMaterial: string): string {
  const [iv, tag, ct] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !ct) throw new Error('malformed sealed secret');
  const key = createHash('sha256').update(`webhook-secrets:${keyMaterial}`).digest();
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
}
