import type { FlowDecision, FlowStatus } from '../../schemas/flows.js';
import type { StoredApplicantInputs } from '../applicants/applicant-intake.js';
import type { CheckRow } from '../checks/check-model.js';
import type { ApplicantData } from '../checks/check-type.js';
import {
  ALERT_COLUMNS,
  CHECK_COLUMNS,
  type CheckInsert,
  type CheckRecord,
  refreshAlertsOf,
  refreshValues,
} from '../checks/recorder.js';
import { insertRowsStatement } from '../db/bulk-insert.js';
import { json, type Sql, type Tx } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { flowTracing, traceFlow, traceNow, traceStatement } from '../flow-trace.js';
import {
  type FlowEventSet,
  type OutboxRow,
  type OutboxValues,
  outboxInsertsOf,
  outboxValues,
} from '../outbox/outbox.js';
import { applicantInputColumns } from './flow-inputs.js';
import type { FlowRow } from './flow-model.js';
import { isTerminal } from './flow-states.js';

/** The columns a new flow writes in each table (the others take their defaults). */
export const APPLICANT_COLUMNS = [
  'id',
  'tenant_id',
  'external_id',
  'entity_type',
  'legal_name_first',
  'legal_name_middle',
  'legal_name_last',
  'business_name',
  'dob',
  'nationality',
  'email_hash',
  'phone_hash',
  'phone_hint',
  'tax_id_hash',
  'tax_id_hint',
  'address',
  'consent',
  'custom_attributes',
] as const;
export const FLOW_COLUMNS = [
  'id',
  'tenant_id',
  'applicant_id',
  'flow_template_id',
  'template_slug',
  'type',
  'status',
  'decision',
  'decision_reason_codes',
  'execution_mode',
  'datasets',
  'client_metadata',
  'policy_version',
  'completed_at',
] as const;
export const AUDIT_COLUMNS = [
  'id',
  'tenant_id',
  'actor_type',
  'actor_id',
  'action',
  'resource_type',
  'resource_id',
  'request_id',
  'details',
] as const;

/** A row as written: every column of the list (jsonb columns as plain values). */
type RowOf<C extends readonly string[]> = { [K in C[number]]: unknown };
export type ApplicantInsert = RowOf<typeof APPLICANT_COLUMNS>;
export type FlowInsert = RowOf<typeof FLOW_COLUMNS>;
export type AuditInsert = RowOf<typeof AUDIT_COLUMNS>;

/**
 * Inserts a new flow with everything created with it in ONE statement (data-modifying CTEs): applicant, flow,
 * checks, alerts and outbox events become visible together or not at all, in one round trip.
 */
export interface FlowGraph {
  applicant: ApplicantInsert;
  flow: FlowInsert;
  /** the flow's checks, already through the false-positive memory (server/checks/recorder.ts) */
  checks: CheckRecord[];
  /** every outbox event of the new flow, in order */
  events: OutboxRow[];
  audit?: AuditInsert;
}

/** Flows waiting for their statement beyond this many are refused (FLOW_WRITE_MAX_QUEUE). */
export const DEFAULT_WRITE_MAX_QUEUE = 2048;

export function insertFlowGraph(
  sql: Sql,
  parts: FlowGraph,
  maxQueue = DEFAULT_WRITE_MAX_QUEUE,
): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
  return writerFor(sql, maxQueue).write(parts);
}

/** One graph in the caller's transaction, outside the group commit: a flow created under an Idempotency-Key commits
 * together with its key record (server/idempotency/idempotency.ts). */
export async function insertFlowGraphIn(
  tx: Tx,
  parts: FlowGraph,
): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
  const [out] = await writeGraphs(tx, [parts]);
  if (!out) throw new Error('the flow graph statement returned no flow');
  return out;
}

interface PendingGraph {
  parts: FlowGraph;
  resolve: (v: { flow: FlowRow; checks: CheckRow[] }) => void;
  reject: (e: unknown) => void;
}

/** Group commit for flow graphs. With nothing in flight a graph is written at once (no added latency); while a
 * statement runs, graphs arriving meanwhile queue and go together in the next one, sent when it returns, so under load
 * many flows share one statement and one commit. One in flight, not two: a second statement carried the few flows
 * that arrived during the first and paid a statement's fixed cost for them (bench/history/2026-11-23-flows.md, "the
 * flow's write path").
 * A failed batch is retried graph by graph, so one bad graph fails only its own request. The queue is bounded: while a
 * statement hangs (a frozen server, until the watchdog cuts it) a flow beyond maxQueue is refused at once with 503
 * overloaded instead of waiting with the others. */
class FlowGraphWriter {
  private static readonly MAX_BATCH = 64;
  private static readonly MAX_INFLIGHT = 1;
  private queue: PendingGraph[] = [];
  private inflight = 0;
  constructor(
    private readonly sql: Sql,
    private readonly maxQueue: number,
  ) {}

  write(parts: FlowGraph): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new ApiError('overloaded', {
          message: 'Too many flows are waiting to be stored; retry shortly',
          headers: { 'retry-after': '1' },
        }),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ parts, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inflight < FlowGraphWriter.MAX_INFLIGHT && this.queue.length) {
      const batch = this.queue.splice(0, FlowGraphWriter.MAX_BATCH);
      this.inflight++;
      void this.flush(batch).finally(() => {
        this.inflight--;
        this.pump();
      });
    }
  }

  private async flush(batch: PendingGraph[]): Promise<void> {
    try {
      const sent = traceNow();
      const out = await writeGraphs(
        this.sql,
        batch.map((b) => b.parts),
      );
      traceStatement(sent, batch.length);
      if (flowTracing)
        for (const b of batch) {
          traceFlow(b.parts.flow.id as string, 'sent', sent);
          traceFlow(b.parts.flow.id as string, 'committed');
        }
      batch.forEach((b, i) => {
        b.resolve(out[i] as { flow: FlowRow; checks: CheckRow[] });
      });
    } catch (err) {
      if (batch.length === 1) {
        batch[0]?.reject(err);
        return;
      }
      for (const b of batch) {
        try {
          b.resolve((await writeGraphs(this.sql, [b.parts]))[0] as { flow: FlowRow; checks: CheckRow[] });
        } catch (e) {
          b.reject(e);
        }
      }
    }
  }
}

const writers = new WeakMap<Sql, FlowGraphWriter>();
function writerFor(sql: Sql, maxQueue: number): FlowGraphWriter {
  let w = writers.get(sql);
  if (!w) {
    w = new FlowGraphWriter(sql, maxQueue);
    writers.set(sql, w);
  }
  return w;
}

/** The values of one graph statement, each table's rows one parameter. */
interface GraphValues {
  applicants: ApplicantInsert[];
  flows: FlowInsert[];
  checks: CheckInsert[];
  alerts: CheckRecord['alerts'];
  refreshes: ReturnType<typeof refreshValues>;
  outbox: OutboxValues;
  audits: AuditInsert[];
}

/** Which optional parts a statement carries: the alert insert when a graph has alerts, the alert refresh when the
 * false-positive memory refreshed one. Each is a data-modifying CTE on alerts that Postgres initialises (and runs) at
 * every execution even for zero rows: the two cost ~0.1 ms of Postgres CPU a statement of clear flows, and the refresh
 * is almost always empty, so a statement without rows for them leaves them out (bench/history/2026-11-23-flows.md, "a
 * flow-graph statement's fixed cost"). */
interface GraphShape {
  alerts: boolean;
  refreshes: boolean;
}
const shapeOf = (v: GraphValues): GraphShape => ({
  alerts: v.alerts.length > 0,
  refreshes: v.refreshes.length > 0,
});
const shapeKey = (s: GraphShape) => (s.alerts ? 1 : 0) + (s.refreshes ? 2 : 0);

/** The statement's parameters in the order their placeholders appear in graphStatement's text ($1, $2, …). */
const paramsOf = (sql: Sql, v: GraphValues, shape: GraphShape) =>
  [
    v.applicants,
    v.flows,
    v.checks,
    ...(shape.alerts ? [v.alerts] : []),
    ...(shape.refreshes ? [v.refreshes] : []),
    v.outbox.sets,
    v.outbox.rows,
    v.audits,
  ].map((x) => json(sql, x));

// the checks come back as what the database adds to them (seq, created_at, completed_at: the trigger keeps it not
// before created_at), not as whole rows: the rest is what was just sent
type GraphRow = FlowRow & { check_rows: [string, string, string, string | null][] };

function graphStatement(sql: Sql, v: GraphValues, shape: GraphShape) {
  const alerts = shape.alerts
    ? sql`al as ( ${insertRowsStatement(sql, 'alerts', ALERT_COLUMNS, v.alerts)} ),`
    : sql``;
  const refreshes = shape.refreshes ? sql`rf as ( ${refreshAlertsOf(sql, v.refreshes)} ),` : sql``;
  return sql<GraphRow[]>`
    with a as ( ${insertRowsStatement(sql, 'applicants', APPLICANT_COLUMNS, v.applicants)} ),
    f as ( ${insertRowsStatement(sql, 'flows', FLOW_COLUMNS, v.flows)} returning * ),
    c as ( ${insertRowsStatement(sql, 'checks', CHECK_COLUMNS, v.checks)}
      returning id, flow_id, seq, created_at, completed_at ),
    ${alerts}
    ${refreshes}
    ${outboxInsertsOf(sql, v.outbox)},
    au as ( ${insertRowsStatement(sql, 'audit_log', AUDIT_COLUMNS, v.audits)} )
    select f.*, coalesce(cc.check_rows, '[]') as check_rows
    from f left join (
      select c.flow_id,
        json_agg(json_build_array(c.id, c.seq::text, c.created_at, c.completed_at) order by c.seq) as check_rows
      from c group by c.flow_id
    ) cc on cc.flow_id = f.id`;
}

/** graphStatement's text of each shape, the same whatever the values: postgres.js builds it from its fragments once
 * (a describe), not at each execution. */
const graphTexts = new Map<number, Promise<string>>();

/** One statement for many graphs: applicants, flows, checks, alerts, alert refreshes, outbox events and audit rows
 * become visible together or not at all. Its text is the same whatever the number of graphs and rows (each table's
 * rows travel as one JSON parameter; a table without rows inserts nothing), so each connection prepares it once and
 * Postgres plans it once — one text per shape (with or without alerts, with or without refreshes), at most four. */
async function writeGraphs(sql: Sql, graphs: FlowGraph[]): Promise<{ flow: FlowRow; checks: CheckRow[] }[]> {
  const records = graphs.flatMap((g) => g.checks);
  const events = eventsOf(graphs);
  const v: GraphValues = {
    applicants: graphs.map((g) => g.applicant),
    flows: graphs.map((g) => g.flow),
    checks: records.map((r) => r.check),
    alerts: records.flatMap((r) => r.alerts),
    refreshes: refreshValues(records.flatMap((r) => r.refreshes)),
    outbox: outboxValues(events.rows, events.sets),
    audits: graphs.flatMap((g) => (g.audit ? [g.audit] : [])),
  };
  const shape = shapeOf(v);
  const key = shapeKey(shape);
  const params = paramsOf(sql, v, shape);
  let text = graphTexts.get(key);
  if (!text) {
    const described = graphStatement(sql, v, shape)
      .describe()
      .then((d) => {
        if (d.types.length !== params.length)
          throw new Error(`flow graph statement has ${d.types.length} parameters, not ${params.length}`);
        return d.string;
      });
    text = described;
    graphTexts.set(key, described);
    described.catch(() => {
      if (graphTexts.get(key) === described) graphTexts.delete(key);
    });
  }
  const rows = await sql.unsafe<GraphRow[]>(await text, params, { prepare: true });
  const sent = new Map(v.checks.map((c) => [c.id, c]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return v.flows.map((f) => {
    const row = byId.get(f.id as string);
    if (!row) throw new Error('flow insert returned nothing');
    const { check_rows, ...flow } = row;
    return {
      flow,
      checks: check_rows.map(([id, seq, createdAt, completedAt]): CheckRow => {
        const { tenant_id: _, ...check } = sent.get(id) as CheckInsert;
        return {
          ...check,
          seq,
          created_at: new Date(createdAt),
          completed_at: completedAt ? new Date(completedAt) : null,
        };
      }),
    };
  });
}

/** A graph's events about the rows it creates (its flow, checks and alerts) form its flow's event set; the others
 * (alert.updated of an older alert the false-positive memory refreshed) are rows of their own, as outside a graph:
 * the erasure deletes a set with its flow, so a set holds nothing about rows that are not the flow's. */
function eventsOf(graphs: readonly FlowGraph[]): { rows: OutboxRow[]; sets: FlowEventSet[] } {
  const rows: OutboxRow[] = [];
  const sets = graphs.map((g) => {
    const own = new Set<string>([
      g.flow.id as string,
      ...g.checks.flatMap((r) => [r.check.id, ...r.alerts.map((a) => a.id)]),
    ]);
    const events: OutboxRow[] = [];
    for (const e of g.events) (own.has(e.resource_id) ? events : rows).push(e);
    return { flow_id: g.flow.id as string, events };
  });
  return { rows, sets };
}

// Reads and moves of an existing flow. Each move is guarded by the status (and run) it expects, so a concurrent move
// makes it a no-op; the caller decides what a no-op means.

/** A flow of the tenant, locked for the caller's transaction when `lock`; undefined when there is none. */
export async function findFlow(
  sql: Sql,
  tenantId: string,
  flowId: string,
  lock = false,
): Promise<FlowRow | undefined> {
  const [flow] = lock
    ? await sql<FlowRow[]>`select * from flows where id = ${flowId} and tenant_id = ${tenantId} for update`
    : await sql<FlowRow[]>`select * from flows where id = ${flowId} and tenant_id = ${tenantId}`;
  return flow;
}

/** A flow's checks in the order they were recorded. */
export function flowChecks(sql: Sql, tenantId: string, flowId: string): Promise<CheckRow[]> {
  return sql<
    CheckRow[]
  >`select * from checks where flow_id = ${flowId} and tenant_id = ${tenantId} order by seq`;
}

/** The checks recorded by the flow's processing runs (run_key `p<run>:<slot>`), in order. */
export function processingChecks(sql: Sql, flowId: string): Promise<CheckRow[]> {
  return sql<CheckRow[]>`
    select * from checks where flow_id = ${flowId} and run_key like 'p%' order by seq`;
}

/** The tenant's plan (whether its flows take allowance units); undefined for an unknown tenant. */
export async function tenantPlan(sql: Sql, tenantId: string): Promise<'self_serve' | 'contract' | undefined> {
  const [t] = await sql<
    { plan: 'self_serve' | 'contract' }[]
  >`select plan from tenants where id = ${tenantId}`;
  return t?.plan;
}

/** The stored applicant of a flow as its checks read it: the address country out of the address document. */
export async function flowApplicant(
  sql: Sql,
  tenantId: string,
  applicantId: string,
): Promise<(ApplicantData & StoredApplicantInputs) | undefined> {
  const [a] = await sql<(ApplicantData & StoredApplicantInputs & { address: Record<string, string> })[]>`
    select external_id, entity_type, ${applicantInputColumns(sql)}
    from applicants where id = ${applicantId} and tenant_id = ${tenantId}`;
  return a && { ...a, address_country: a.address?.address_country ?? null };
}

/** `from` → PROCESSING as run `run`. */
export async function moveToProcessing(
  tx: Tx,
  tenantId: string,
  flowId: string,
  from: FlowStatus,
  run: number,
): Promise<void> {
  await tx`
    update flows set status = 'PROCESSING', process_run = ${run}, updated_at = now()
    where id = ${flowId} and tenant_id = ${tenantId} and status = ${from}`;
}

/** PROCESSING → AWAITING_INPUT for run `run`. */
export async function moveToAwaitingInput(
  sql: Sql,
  flowId: string,
  run: number,
  policyVersion: string,
): Promise<void> {
  await sql`
    update flows set status = 'AWAITING_INPUT', policy_version = ${policyVersion}, updated_at = now()
    where id = ${flowId} and status = 'PROCESSING' and process_run = ${run}`;
}

/** What a run or a rerun decided. */
export interface FlowDecided {
  status: FlowStatus;
  decision: FlowDecision;
  reason_codes: string[];
  policy_version: string;
}

/** PROCESSING → the decided status for run `run`, with the fields the document stated when there are any. Whether
 * it moved (false: another delivery or run got there first). */
export async function completeRun(
  tx: Tx,
  flowId: string,
  run: number,
  d: FlowDecided,
  extracted?: { fields: Record<string, unknown>; sources: Record<string, string> },
): Promise<boolean> {
  const updated = await tx`
    update flows set status = ${d.status}, decision = ${d.decision},
      decision_reason_codes = ${d.reason_codes}, policy_version = ${d.policy_version},
      ${
        extracted
          ? tx`extracted_fields = ${json(tx, extracted.fields)},
               extracted_field_sources = ${json(tx, extracted.sources)},`
          : tx``
      }
      completed_at = now(), updated_at = now()
    where id = ${flowId} and status = 'PROCESSING' and process_run = ${run}
    returning id`;
  return updated.length > 0;
}

/** PROCESSING → FAILED for run `run`; the failed flow, or undefined when it was not in that run. */
export async function failRun(
  tx: Tx,
  tenantId: string,
  flowId: string,
  run: number,
  reason: string,
): Promise<FlowRow | undefined> {
  const [flow] = await tx<FlowRow[]>`
    update flows set status = 'FAILED', failure_reason = ${reason},
      completed_at = now(), updated_at = now()
    where id = ${flowId} and tenant_id = ${tenantId} and status = 'PROCESSING'
      and process_run = ${run}
    returning *`;
  return flow;
}

/** A reviewer's decision on a flow in status `from`; the updated flow, or undefined when it moved meanwhile. */
export async function recordReview(
  tx: Tx,
  tenantId: string,
  flowId: string,
  from: FlowStatus,
  d: Omit<FlowDecided, 'policy_version'>,
  actor: string,
): Promise<FlowRow | undefined> {
  const [row] = await tx<FlowRow[]>`
    update flows set status = ${d.status}, decision = ${d.decision}, decision_reason_codes = ${d.reason_codes},
      reviewed_by = ${actor}, reviewed_at = now(), updated_at = now(),
      completed_at = ${isTerminal(d.status) ? new Date() : null}
    where id = ${flowId} and tenant_id = ${tenantId} and status = ${from}
    returning *`;
  return row;
}

/** NEEDS_REVIEW → what the rules decide again after a rerun; the updated flow, or undefined when it moved. */
export async function redecide(tx: Tx, flowId: string, d: FlowDecided): Promise<FlowRow | undefined> {
  const [row] = await tx<FlowRow[]>`
    update flows set status = ${d.status}, decision = ${d.decision},
      decision_reason_codes = ${d.reason_codes}, policy_version = ${d.policy_version},
      completed_at = ${isTerminal(d.status) ? new Date() : null}, updated_at = now()
    where id = ${flowId} and status = 'NEEDS_REVIEW'
    returning *`;
  return row;
}
