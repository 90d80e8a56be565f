import { createHash } from 'node:crypto';
import { json, type Sql, type Tx, transaction } from '../db/sql.js';
import { ApiError, invalid } from '../errors.js';
import { clientErrorReply } from '../http/error-reply.js';
import type { Reply } from '../http/request.js';

/** Idempotency keys as Stripe and the IETF draft (draft-ietf-httpapi-idempotency-key-header) describe them:
 * remembered 24 h per tenant; the same key with the same body replays the first response; with another body → 422;
 * while the first request is still running → 409.
 *
 * The record lives in Postgres and is written in the transaction that stores the request's effects, so the two
 * are one decision: either both commit (a retry replays the answer) or neither does (a retry runs afresh). "In
 * flight" is a transaction-scoped advisory lock, released by the commit, the rollback or the death of the process,
 * never left behind by a crash. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted at every level: the body's hash does not depend on key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function bodyHash(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}

export interface IdempotentResult {
  reply: Reply;
  /** true when the reply is the remembered answer of an earlier request (nothing ran now) */
  replayed: boolean;
}

/** Runs `work` in a transaction once per (tenant, scope, key, body) and stores its answer in the same
 * transaction. Without a key it just runs `work` in a transaction. A 5xx or an unexpected error rolls everything
 * back, the key included, so the client's retry runs afresh; a 4xx is remembered like a success. */
export async function withIdempotency(
  sql: Sql,
  req: { tenant_id: string; scope: string; key: string | undefined; body: unknown },
  work: (tx: Tx) => Promise<Reply>,
): Promise<IdempotentResult> {
  const { key } = req;
  if (key === undefined) return { reply: await transaction(sql, work), replayed: false };
  if (!KEY_RE.test(key))
    throw invalid(['header', 'idempotency-key'], 'must be 1–255 visible ASCII characters');
  const hash = bodyHash(req.body);
  const id = `${req.tenant_id}/${req.scope}/${key}`;
  return transaction(sql, async (tx) => {
    const [lock] = await tx<{ locked: boolean }[]>`
      select pg_try_advisory_xact_lock(hashtextextended(${id}, 7351002)) as locked`;
    if (!lock?.locked) throw new ApiError('idempotency_in_flight', { headers: { 'retry-after': '1' } });
    const [prev] = await tx<{ body_sha256: string; status: number; response: unknown }[]>`
      select body_sha256, status, response from idempotency_keys
      where tenant_id = ${req.tenant_id} and scope = ${req.scope} and key = ${key}
        and created_at > now() - make_interval(secs => ${IDEMPOTENCY_TTL_SECONDS})`;
    if (prev) {
      if (prev.body_sha256 !== hash) {
        throw new ApiError('idempotency_key_reused', {
          message: 'This Idempotency-Key was used with a different request body',
        });
      }
      return {
        reply: { status: prev.status, body: prev.response, headers: { 'idempotent-replayed': 'true' } },
        replayed: true,
      };
    }
    let reply: Reply;
    try {
      reply = await tx.savepoint((sp) => work(sp));
    } catch (err) {
      const remembered = clientErrorReply(err);
      if (!remembered) throw err;
      reply = remembered;
    }
    if (reply.status >= 500) throw new Error(`idempotent work answered ${reply.status}`);
    await tx`
      insert into idempotency_keys (tenant_id, scope, key, body_sha256, status, response)
      values (${req.tenant_id}, ${req.scope}, ${key}, ${hash}, ${reply.status}, ${json(tx, reply.body ?? null)})
      on conflict (tenant_id, scope, key) do update
        set body_sha256 = excluded.body_sha256, status = excluded.status, response = excluded.response,
            created_at = now()`;
    return { reply, replayed: false };
  });
}

/** Forgets keys older than the TTL (called by a background sweep). */
export async function purgeExpiredKeys(sql: Sql): Promise<number> {
  const rows = await sql`
    delete from idempotency_keys where created_at < now() - make_interval(secs => ${IDEMPOTENCY_TTL_SECONDS})
    returning 1`;
  return rows.length;
}
