import type { Bus } from '../bus/jetstream.js';
import { type Sql, transaction } from '../db/sql.js';
import { type Logger, withRequestId } from '../log.js';

interface OutboxRow {
  id: string;
  tenant_id: string | null;
  type: string;
  request_id: string | null;
}

const BATCH = 200;

interface DeliveryRef {
  id: string;
  tenant_id: string;
  /** the request that caused the event: the delivery job carries it to its log lines */
  request_id: string | null;
}

/** Moves outbox events to webhook deliveries: one delivery row per subscribed endpoint, created in the transaction
 * that marks the events relayed (outbox_rows.delivered_at; events written relayed are never claimed). Rows are claimed with SKIP LOCKED, so any number of
 * processes can relay at once without creating a delivery twice. Jobs are published after the commit (a worker must
 * find the row); deliveries whose job was never published — a crash between commit and publish, or NATS down — are
 * published by a later pass. Returns the number of events relayed. */
export async function relayOnce(sql: Sql, bus: Bus): Promise<number> {
  const { relayed, created } = await transaction(sql, async (tx) => {
    const events = await tx<OutboxRow[]>`
      select id, tenant_id, type, request_id from outbox_rows
      where delivered_at is null order by seq limit ${BATCH} for update skip locked`;
    if (!events.length) return { relayed: 0, created: [] as DeliveryRef[] };
    const types = [...new Set(events.map((e) => e.type))];
    const endpoints = await tx<{ id: string; tenant_id: string; events: string[] }[]>`
      select id, tenant_id, events from webhook_endpoints
      where enabled and deleted_at is null and events && ${types}::text[]`;
    const rows: {
      tenant_id: string;
      endpoint_id: string;
      event_id: string;
      event_type: string;
      request_id: string | null;
    }[] = [];
    for (const ev of events) {
      for (const ep of endpoints) {
        // tenant events go to that tenant's endpoints; global events (no tenant) to every subscriber
        if ((ev.tenant_id === null || ep.tenant_id === ev.tenant_id) && ep.events.includes(ev.type)) {
          rows.push({
            tenant_id: ep.tenant_id,
            endpoint_id: ep.id,
            event_id: ev.id,
            event_type: ev.type,
            request_id: ev.request_id,
          });
        }
      }
    }
    const created = rows.length
      ? await tx<DeliveryRef[]>`
          insert into webhook_deliveries ${tx(rows)} on conflict (endpoint_id, event_id) do nothing
          returning id, tenant_id, request_id`
      : [];
    await tx`update outbox_rows set delivered_at = now() where id in ${tx(events.map((e) => e.id))}`;
    return { relayed: events.length, created };
  });
  await publish(sql, bus, created);
  return relayed;
}

async function publish(sql: Sql, bus: Bus, deliveries: DeliveryRef[]): Promise<void> {
  for (const { id, tenant_id, request_id } of deliveries) {
    // msgID dedup makes a second publish of the same delivery (within the stream's window) a no-op
    await withRequestId(request_id ?? undefined, () =>
      bus.publishJob('webhook_delivery', { delivery_id: id, tenant_id }, `webhook_delivery:${id}`),
    );
    await sql`update webhook_deliveries set published_at = now() where id = ${id}`;
  }
}

/** Deliveries committed but never published (older than a few seconds, so not racing the pass that made them). */
export async function republishStranded(sql: Sql, bus: Bus): Promise<number> {
  const rows = await sql<DeliveryRef[]>`
    select id, tenant_id, request_id from webhook_deliveries
    where published_at is null and created_at < now() - interval '5 seconds'
    order by created_at limit ${BATCH}`;
  await publish(sql, bus, rows);
  return rows.length;
}

export function startOutboxRelay(
  deps: { sql: Sql; bus: Bus; log: Logger },
  interval_ms = 200,
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let passes = 0;
  const tick = () => {
    running = (async () => {
      try {
        // drain while there is a backlog, then wait for the next tick
        while (!stopped && (await relayOnce(deps.sql, deps.bus)) === BATCH) {}
        if (!stopped && ++passes % 25 === 0) await republishStranded(deps.sql, deps.bus);
      } catch (err) {
        deps.log.warn({ err }, 'outbox relay pass failed; will retry');
      }
      if (!stopped) timer = setTimeout(tick, interval_ms);
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
