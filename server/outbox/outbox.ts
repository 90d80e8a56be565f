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

/** The events of one flow graph about the rows it creates (the flow, its checks, its alerts): written as one
 * outbox_sets row unless an endpoint subscribes to one of them; the erasure deletes the set with the flow. */
export interface FlowEventSet {
  flow_id: string;
  events: readonly OutboxRow[];
}

/** A set as written: its events' common values once (the tenant; the request id when they share one; a resource id
 * only where it is not the flow), in the order given. */
export interface SetRow {
  tenant_id: string;
  flow_id: string;
  request_id: string | null;
  types: string[];
  /** an event whose payload equals an earlier one's in the set stores `p`, that event's index, instead of it */
  events: {
    id: string;
    type: string;
    resource_id?: string;
    payload?: unknown;
    p?: number;
    request_id?: string | null;
  }[];
}

/** Whether two JSON values serialise to equal jsonb (object keys in any order; a key whose value is undefined is
 * absent, as JSON.stringify drops it). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameJson(v, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  if (kx.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return kx.every((k) => k in y && sameJson(x[k], y[k]));
}

/** A set's events as stored: a payload equal to an earlier event's is stored once (a flow's flow.created,
 * flow.completed and flow.decided carry the same one), the later event naming the earlier's index. */
function setEvents(flowId: string, events: readonly OutboxRow[], sharedRequest: boolean): SetRow['events'] {
  return events.map((e, i) => {
    const p = events.findIndex((o, j) => j < i && sameJson(o.payload, e.payload));
    return {
      id: e.id,
      type: e.type,
      ...(e.resource_id === flowId ? {} : { resource_id: e.resource_id }),
      ...(p < 0 ? { payload: e.payload } : { p }),
      ...(sharedRequest ? {} : { request_id: e.request_id }),
    };
  });
}

/** The insert of outbox events as two common table expressions (`outbox_set`, then `outbox_one`), for a caller
 * composing one statement (`with ${outboxInserts(…)}, … select …`). The one place that writes outbox_rows and
 * outbox_sets (what the view outbox_events shows, one row an event: migration 021).
 *
 * Every event is written (it is the audit trail of what happened: tests, erasure and operators read it). An event
 * that no enabled endpoint subscribes to at the time of the change — tenant events: an endpoint of that tenant;
 * global events: any endpoint — is written already relayed (`delivered_at` set): the relay would have found no
 * endpoint for it, so it skips the relay's claim and update (a second tuple version, new index entries, WAL). A flow
 * graph's events (`sets`) that no endpoint of the tenant subscribes to, none of them, are one outbox_sets row, each
 * event keeping its id and taking its seq inside it, a payload equal to an earlier event's stored once (migration
 * 022); otherwise, and for `rows`, each event is an outbox_rows row,
 * the relay's unit. The subscriptions are read in the same statement, so an endpoint committed before the change
 * hears it. Events take their seqs in the order given, rows after sets. Rows and sets travel as one JSON parameter
 * each (jsonb_to_recordset) whatever their number: one statement text. Each event keeps the id of the request (or
 * job) that caused it (taken when the event was built, else the current one), so the log lines of its webhook
 * deliveries carry that id. */
export function outboxInserts(sql: Sql, rows: readonly OutboxRow[], sets: readonly FlowEventSet[] = []) {
  return outboxInsertsOf(sql, outboxValues(rows, sets));
}

/** What outboxInserts sends, in the order of its two parameters: the sets as written, then the events written as
 * rows of their own. */
export interface OutboxValues {
  sets: SetRow[];
  rows: OutboxRow[];
}

/** The values of outboxInserts, for a caller that executes its statement text with them (server/flows/flow-store.ts). */
export function outboxValues(rows: readonly OutboxRow[], sets: readonly FlowEventSet[] = []): OutboxValues {
  const requestId = currentRequestId() ?? null;
  const withRequest = (e: OutboxRow) => (e.request_id === undefined ? { ...e, request_id: requestId } : e);
  const one = rows.map(withRequest);
  const setRows: SetRow[] = [];
  for (const s of sets) {
    const events = s.events.map(withRequest);
    const tenant = events[0]?.tenant_id;
    // a set is one tenant's (a flow's events always are)
    if (!tenant || events.some((e) => e.tenant_id !== tenant)) {
      one.push(...events);
      continue;
    }
    const request = events[0]?.request_id ?? null;
    const shared = events.every((e) => e.request_id === request);
    setRows.push({
      tenant_id: tenant,
      flow_id: s.flow_id,
      request_id: shared ? request : null,
      types: [...new Set(events.map((e) => e.type))],
      events: setEvents(s.flow_id, events, shared),
    });
  }
  return { sets: setRows, rows: one };
}

/** outboxInserts of given values. */
export function outboxInsertsOf(sql: Sql, values: OutboxValues) {
  const subscribed = (tenantId: ReturnType<Sql>, types: ReturnType<Sql>) => sql`
    exists (
      select 1 from webhook_endpoints w
      where w.enabled and w.deleted_at is null and w.events && ${types}
        and (${tenantId} is null or w.tenant_id = ${tenantId})
    )`;
  return sql`
    outbox_set_in as (
      select s.*, ${subscribed(sql`s.tenant_id`, sql`s.types`)} as subscribed
      from jsonb_to_recordset(${json(sql, values.sets)})
        as s (tenant_id uuid, flow_id uuid, request_id text, types text[], events jsonb)
    ),
    outbox_set as (
      insert into outbox_sets (tenant_id, flow_id, request_id, seqs, events)
      select tenant_id, flow_id, request_id,
        array(select nextval('outbox_seq') from generate_series(1, jsonb_array_length(events))), events
      from outbox_set_in where not subscribed
    ),
    outbox_one as (
      insert into outbox_rows (id, tenant_id, type, resource_id, payload, request_id, delivered_at)
      select e.id, e.tenant_id, e.type, e.resource_id, e.payload, e.request_id,
        case when ${subscribed(sql`e.tenant_id`, sql`array[e.type]`)} then null else now() end
      from (
        select * from jsonb_to_recordset(${json(sql, values.rows)})
          as e (id uuid, tenant_id uuid, type text, resource_id uuid, payload jsonb, request_id text)
        union all
        select e.id, s.tenant_id, e.type, coalesce(e.resource_id, s.flow_id),
          case when e.p is null then e.payload else s.events -> e.p -> 'payload' end,
          coalesce(s.request_id, e.request_id)
        from outbox_set_in s
          cross join lateral jsonb_to_recordset(s.events)
            as e (id uuid, type text, resource_id uuid, payload jsonb, request_id text, p int)
        where s.subscribed
      ) e
    )`;
}

/** Writes outbox rows in the caller's transaction. */
export async function writeEvents(sql: Sql, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length) await sql`with ${outboxInserts(sql, rows)} select`;
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
