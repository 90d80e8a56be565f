import { EVENT_CATALOGUE, EVENT_TYPES, type EventPayload, type EventType } from '../../schemas/events.js';
import { newId } from '../db/ids.js';
import { json, type Sql } from '../db/sql.js';
import { currentRequestId } from '../log.js';

/** One event of the transactional outbox (the catalogue and its payload schemas: schemas/events.ts). */
export interface OutboxRow<T extends EventType = EventType> {
  id: string;
  /** null for a global event (dataset_version.promoted): every subscribed endpoint hears it */
  tenant_id: string | null;
  type: T;
  resource_id: string;
  payload: EventPayload<T>;
  /** the request (or job) that caused it (log.ts), taken when the event is built: a group commit writes the events
   * of many requests in one statement */
  request_id?: string | null;
}

/** An outbox row, typed by its event; write it with writeEvents in the same transaction (or statement) as the
 * change it reports. */
export function outboxEvent<T extends EventType>(
  tenantId: string | null,
  type: T,
  resourceId: string,
  payload: EventPayload<T>,
): OutboxRow<T> {
  return {
    id: newId(),
    tenant_id: tenantId,
    type,
    resource_id: resourceId,
    payload,
    request_id: currentRequestId() ?? null,
  };
}

/** The insert of outbox rows as a statement fragment, for a caller composing one statement (the flow graph). The
 * one place that writes outbox_events.
 *
 * Every event is written (it is the audit trail of what happened: tests, erasure and operators read it). An event
 * that no enabled endpoint subscribes to at the time of the change — tenant events: an endpoint of that tenant;
 * global events: any endpoint — is written already relayed (`delivered_at` set): the relay would have found no
 * endpoint for it, so it skips the relay's claim and update (a second tuple version, new index entries, WAL) and
 * stays out of the `outbox_undelivered` index. The subscriptions are read in the same statement, so an endpoint
 * committed before the change hears it. The rows travel as one JSON parameter (jsonb_to_recordset) whatever their
 * number: one JSON.stringify, no array-literal escaping of each payload, one statement text. Each row keeps the id
 * of the request (or job) that caused it (taken when the event was built, else the current one), so the log lines
 * of its webhook deliveries carry that id. */
export function insertEvents(sql: Sql, rows: readonly OutboxRow[]) {
  const requestId = currentRequestId() ?? null;
  const events = rows.map((e) => (e.request_id === undefined ? { ...e, request_id: requestId } : e));
  return sql`
    insert into outbox_events (id, tenant_id, type, resource_id, payload, request_id, delivered_at)
    select e.id, e.tenant_id, e.type, e.resource_id, e.payload, e.request_id,
      case when exists (
        select 1 from webhook_endpoints w
        where w.enabled and w.deleted_at is null and e.type = any (w.events)
          and (e.tenant_id is null or w.tenant_id = e.tenant_id)
      ) then null else now() end
    from jsonb_to_recordset(${json(sql, events)})
      as e (id uuid, tenant_id uuid, type text, resource_id uuid, payload jsonb, request_id text)`;
}

/** Writes outbox rows in the caller's transaction. */
export async function writeEvents(sql: Sql, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length) await insertEvents(sql, rows);
}

/** Builds and writes one event. */
export function writeEvent<T extends EventType>(
  sql: Sql,
  tenantId: string | null,
  type: T,
  resourceId: string,
  payload: EventPayload<T>,
): Promise<void> {
  return writeEvents(sql, [outboxEvent(tenantId, type, resourceId, payload)]);
}

/** The event list of docs/webhooks.md, rendered from the catalogue (test/outbox/event-catalogue.test.ts keeps the
 * document equal to it). */
export function eventListMarkdown(): string {
  const rows = EVENT_TYPES.map((type) => {
    const { description, payload } = EVENT_CATALOGUE[type];
    const required = new Set((payload as { required?: string[] }).required ?? []);
    const fields = Object.keys((payload as { properties: Record<string, unknown> }).properties)
      .map((f) => (required.has(f) ? `\`${f}\`` : `\`${f}\`?`))
      .join(', ');
    return `| \`${type}\` | ${description} | ${fields} |`;
  });
  return ['| event | when | `data` fields (`?` = optional) |', '|---|---|---|', ...rows].join('\n');
}
