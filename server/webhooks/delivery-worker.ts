import type { Bus, RunningWorker } from '../bus/jetstream.js';
import { JobDeferred, runWorker } from '../bus/jetstream.js';
import { type Sql, transaction } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { signatureHeader, unseal } from './signature.js';
import { refuseTarget } from './url-policy.js';

export interface DeliveryDeps {
  sql: Sql;
  bus: Bus;
  log: Logger;
  keyMaterial: string;
  allowPrivateTargets: boolean;
  /** seconds before each retry; the delivery fails (and the endpoint is disabled) after the last one */
  schedule_s: number[];
  timeout_ms: number;
  metrics?: Pick<Metrics, 'webhookDeliveries'>;
}

interface Job {
  delivery_id: string;
  /** for the job's log lines (older jobs may lack it) */
  tenant_id?: string;
  manual?: boolean;
}

interface DeliveryContext {
  id: string;
  status: string;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  payload: Record<string, unknown>;
}

class DeliveryFailed extends Error {}

/** Thin event body: ids and statuses only (the outbox payload), no personal data. `id` is the event id, the same
 * on every retry, so receivers can deduplicate. */
export function eventBody(
  ctx: Pick<DeliveryContext, 'event_id' | 'event_type' | 'event_created_at' | 'payload'>,
): string {
  return JSON.stringify({
    id: ctx.event_id,
    type: ctx.event_type,
    created_at: ctx.event_created_at.toISOString(),
    data: ctx.payload,
  });
}

/** Deliveries one endpoint may have in flight in one process: a slow or dead receiver holds at most this many of the
 * worker's slots, so its backlog never delays other endpoints (its other deliveries wait in the retry lane). */
export const PER_ENDPOINT_CONCURRENCY = 2;
/** How long a delivered event's success is retried against an unavailable Postgres before the event is sent again. */
const SUCCESS_RECORD_PATIENCE_MS = 10 * 60_000;

/** The receiver has the event: record that, retrying while Postgres is unavailable instead of failing the
 * attempt — a failed attempt would be sent again, and the receiver would get the event twice. The job keeps its
 * lease meanwhile (runWorker's heartbeat). Only if this process dies first, or Postgres stays away for
 * SUCCESS_RECORD_PATIENCE_MS, is the event sent again: delivery is at least once, and receivers deduplicate on the
 * event id (docs/webhooks.md). */
async function recordSuccess(
  sql: Sql,
  log: Logger,
  ctx: DeliveryContext,
  attempt: number,
  status_code: number | null,
  duration_ms: number,
): Promise<void> {
  const until = Date.now() + SUCCESS_RECORD_PATIENCE_MS;
  for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      await transaction(sql, async (tx) => {
        await tx`
          insert into webhook_attempts (delivery_id, attempt, status_code, error, duration_ms)
          values (${ctx.id}, ${attempt}, ${status_code}, null, ${duration_ms})`;
        await tx`
          update webhook_deliveries set status = 'succeeded', attempts = attempts + 1, last_status_code = ${status_code},
            last_error = null, next_attempt_at = null, delivered_at = now(), updated_at = now()
          where id = ${ctx.id}`;
        await tx`update webhook_endpoints set consecutive_failures = 0 where id = ${ctx.endpoint_id}`;
      });
      return;
    } catch (err) {
      if (Date.now() + wait > until) throw err;
      log.warn({ err, retry_in_ms: wait }, 'delivered, but recording it failed; retrying');
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** The POST of one attempt, signed with every current secret: the receiver's status code, and what went wrong (null
 * for a 2xx). The target is checked again at send time: DNS may have changed since the endpoint was registered. */
async function post(
  deps: Pick<DeliveryDeps, 'allowPrivateTargets' | 'timeout_ms'>,
  ctx: DeliveryContext,
  attempt: number,
  secrets: string[],
  body: string,
): Promise<{ status_code: number | null; error: string | null }> {
  const refused = await refuseTarget(ctx.url, deps.allowPrivateTargets);
  if (refused) return { status_code: null, error: `target refused: ${refused}` };
  try {
    const res = await fetch(ctx.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Veriscreen-Webhooks/1',
        'veriscreen-signature': signatureHeader(secrets, body),
        'veriscreen-event-id': ctx.event_id,
        'veriscreen-delivery-attempt': String(attempt),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeout_ms),
    });
    await res.arrayBuffer().catch(() => undefined); // always consume the body
    return {
      status_code: res.status,
      error: res.status < 200 || res.status > 299 ? `HTTP ${res.status}` : null,
    };
  } catch (err) {
    const error =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${deps.timeout_ms} ms`
        : (err as Error).message;
    return { status_code: null, error };
  }
}

export function startWebhookDeliveryWorker(deps: DeliveryDeps): Promise<RunningWorker> {
  const { sql } = deps;
  const backoff_ms = deps.schedule_s.map((s) => s * 1000);
  const inflight = new Map<string, number>();
  /** One attempt: sign, send, record. A 2xx is recorded until that succeeds (see recordSuccess); anything else is
   * recorded and thrown, so runWorker schedules the next attempt. */
  async function send(log: Logger, ctx: DeliveryContext, attempt: number): Promise<void> {
    const body = eventBody(ctx);
    const secrets = [unseal(ctx.secret_sealed, deps.keyMaterial)];
    if (
      ctx.previous_secret_sealed &&
      ctx.previous_secret_expires_at &&
      ctx.previous_secret_expires_at > new Date()
    ) {
      secrets.push(unseal(ctx.previous_secret_sealed, deps.keyMaterial));
    }
    const started = performance.now();
    const { status_code, error } = await post(deps, ctx, attempt, secrets, body);
    const duration_ms = Math.round(performance.now() - started);
    if (!error) {
      await recordSuccess(sql, log, ctx, attempt, status_code, duration_ms);
      deps.metrics?.webhookDeliveries.inc({ outcome: 'succeeded' });
      return;
    }
    await sql`
      insert into webhook_attempts (delivery_id, attempt, status_code, error, duration_ms)
      values (${ctx.id}, ${attempt}, ${status_code}, ${error}, ${duration_ms})`;
    const next_s = deps.schedule_s[attempt - 1];
    await transaction(sql, async (tx) => {
      await tx`
        update webhook_deliveries set status = 'retrying', attempts = attempts + 1, last_status_code = ${status_code},
          last_error = ${error}, updated_at = now(),
          next_attempt_at = ${next_s === undefined ? null : new Date(Date.now() + next_s * 1000)}
        where id = ${ctx.id}`;
      await tx`update webhook_endpoints set consecutive_failures = consecutive_failures + 1 where id = ${ctx.endpoint_id}`;
    });
    deps.metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    throw new DeliveryFailed(error);
  }

  return runWorker<Job>(deps.bus, deps.log, {
    kind: 'webhook_delivery',
    max_deliver: backoff_ms.length + 1,
    backoff_ms,
    jitter: 0.1,
    ack_wait_ms: deps.timeout_ms + 20_000,
    concurrency: 8,
    async handle(job, info) {
      const [ctx] = await sql<DeliveryContext[]>`
        select d.id, d.status, d.endpoint_id, e.url, e.enabled, e.deleted_at, e.secret_sealed,
               e.previous_secret_sealed, e.previous_secret_expires_at,
               o.id as event_id, o.type as event_type, o.created_at as event_created_at, o.payload
        from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id
        join outbox_rows o on o.id = d.event_id
        where d.id = ${job.delivery_id}`;
      if (!ctx) return; // deleted meanwhile (erasure): nothing to send
      if ((ctx.status === 'succeeded' || ctx.status === 'failed') && !job.manual) return;
      if (!ctx.enabled || ctx.deleted_at) {
        await sql`
          update webhook_deliveries set status = 'failed', last_error = 'endpoint disabled or deleted', updated_at = now()
          where id = ${ctx.id}`;
        return;
      }
      const busy = inflight.get(ctx.endpoint_id) ?? 0;
      if (busy >= PER_ENDPOINT_CONCURRENCY) {
        // the endpoint has its share of slots: try again once one of those may have finished (not an attempt)
        deps.metrics?.webhookDeliveries.inc({ outcome: 'deferred' });
        throw new JobDeferred(Math.min(deps.timeout_ms, 5_000), 'endpoint busy');
      }
      inflight.set(ctx.endpoint_id, busy + 1);
      try {
        await send(info.log, ctx, info.attempt);
      } finally {
        const n = (inflight.get(ctx.endpoint_id) ?? 1) - 1;
        if (n > 0) inflight.set(ctx.endpoint_id, n);
        else inflight.delete(ctx.endpoint_id);
      }
    },
    async onGiveUp(job) {
      // the receiver failed for the whole retry schedule: stop sending until the tenant re-enables the endpoint
      deps.metrics?.webhookDeliveries.inc({ outcome: 'gave_up' });
      await transaction(sql, async (tx) => {
        const [d] = await tx<{ endpoint_id: string }[]>`
          update webhook_deliveries set status = 'failed', next_attempt_at = null, updated_at = now()
          where id = ${job.delivery_id} returning endpoint_id`;
        if (d) {
          await tx`
            update webhook_endpoints set enabled = false, updated_at = now(),
              disabled_reason = 'disabled automatically: a delivery failed for its whole retry schedule'
            where id = ${d.endpoint_id}`;
        }
      });
    },
  });
}
