import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError, invalid } from '../errors.js';
import type { Reply } from '../http/router.js';

/** Idempotency keys as Stripe and the IETF draft (draft-ietf-httpapi-idempotency-key-header) describe them:
 * remembered 24 h per tenant; the same key with the same body replays the first response; with another body → 422;
 * while the first request is still running → 409. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

interface Stored {
  state: 'in_flight' | 'done';
  body_sha256: string;
  status?: number;
  body?: unknown;
}

export function bodyHash(raw: unknown): string {
  return createHash('sha256').update(JSON.stringify(raw)).digest('hex');
}

/** Runs `fn` once per (tenant, key, body). Without a key it just runs `fn`. */
export async function withIdempotency(
  redis: Redis,
  scope: string,
  key: string | undefined,
  body: unknown,
  fn: () => Promise<Reply>,
): Promise<Reply> {
  if (key === undefined) return fn();
  if (!KEY_RE.test(key))
    throw invalid(['header', 'idempotency-key'], 'must be 1–255 visible ASCII characters');
  const hash = bodyHash(body);
  const rkey = `idem:${scope}:${key}`;
  const claimed = await redis.set(
    rkey,
    JSON.stringify({ state: 'in_flight', body_sha256: hash } satisfies Stored),
    'EX',
    IDEMPOTENCY_TTL_SECONDS,
    'NX',
  );
  if (claimed !== 'OK') {
    const prev = JSON.parse((await redis.get(rkey)) ?? '{}') as Partial<Stored>;
    if (prev.body_sha256 !== hash) {
      throw new ApiError('idempotency_key_reused', {
        message: 'This Idempotency-Key was used with a different request body',
      });
    }
    if (prev.state !== 'done') {
      throw new ApiError('idempotency_in_flight', { headers: { 'retry-after': '1' } });
    }
    return { status: prev.status ?? 200, body: prev.body, headers: { 'idempotent-replayed': 'true' } };
  }
  try {
    const reply = await fn();
    if (reply.status < 500) {
      await redis.set(
        rkey,
        JSON.stringify({
          state: 'done',
          body_sha256: hash,
          status: reply.status,
          body: reply.body,
        } satisfies Stored),
        'EX',
        IDEMPOTENCY_TTL_SECONDS,
      );
    } else {
      await redis.del(rkey);
    }
    return reply;
  } catch (err) {
    // a 4xx is the answer to this body and is remembered like a success; anything else may be retried
    if (err instanceof ApiError && err.status < 500) {
      await redis.set(
        rkey,
        JSON.stringify({
          state: 'done',
          body_sha256: hash,
          status: err.status,
          body: {
            error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
          },
        } satisfies Stored),
        'EX',
        IDEMPOTENCY_TTL_SECONDS,
      );
    } else {
      await redis.del(rkey);
    }
    throw err;
  }
}
