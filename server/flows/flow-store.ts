import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { decideAlerts } from '../alerts/alert-memory.js';
import { queueSlaAt } from '../alerts/alert-sla.js';
import type { CheckRow } from '../checks/check-model.js';
import type { AlertDraft, CheckOutcome } from '../checks/check-runners.js';
import { json, type Sql, type Tx, transaction } from '../db/sql.js';
import { type OutboxRow, outboxEvent } from '../outbox/outbox.js';
import type { CheckPolicy } from '../policy/check-policy.js';
import type { FlowRow } from './flow-model.js';
import { decideCheck } from './rules.js';

type Row = Record<string, unknown>;

export interface CheckContext {
  tenant_id: string;
  flow_id: string;
  applicant_id: string;
  applicant_name: string | null;
  reference: string | null;
  mode: 'sync' | 'async';
  policy: CheckPolicy;
  run_key: string | null;
}

export interface CheckRecord {
  row: Row & { id: string; decision: CheckRow['decision']; reason_codes: string[] };
  alerts: Row[];
  events: OutboxRow[];
}

/** A check row, its alerts (one per matched entity) and their outbox events, ready to insert together. */
export function buildCheckRecord(sql: Sql, o: CheckOutcome, ctx: CheckContext): CheckRecord {
  const id = randomUUID();
  const decided = decideCheck(o.signals, ctx.policy);
  const now = new Date();
  const alerts = o.alerts.map((a: AlertDraft) => ({
    id: randomUUID(),
    tenant_id: ctx.tenant_id,
    check_id: id,
    flow_id: ctx.flow_id,
    applicant_id: ctx.applicant_id,
    state: 'open',
    // the subject across flows: the tenant's own customer id when given, else the (per-flow) applicant
    subject_ref: ctx.reference ?? ctx.applicant_id,
    source_entity_id: a.source_entity_id,
    // plain until insert (alertRows): the false-positive memory adds the entity fingerprint first
    evidence: a.evidence,
    four_eyes_required: ctx.policy.four_eyes_required,
    queue_sla_at: queueSlaAt(now, a.evidence.datasets as string[] | undefined, ctx.policy),
  }));
  const row = {
    id,
    tenant_id: ctx.tenant_id,
    flow_id: ctx.flow_id,
    applicant_id: ctx.applicant_id,
    applicant_name: ctx.applicant_name,
    reference: ctx.reference,
    check_type: o.check_type,
    status: o.status,
    result: o.result,
    decision: o.status === 'completed' || decided.reason_codes.length ? decided.decision : null,
    reason_codes: decided.reason_codes,
    mode: ctx.mode,
    latency_ms: o.latency_ms,
    dataset_versions: o.dataset_versions,
    datasets: o.datasets,
    policy_version: ctx.policy.policy_version,
    error: o.error,
    evidence: json(sql, o.evidence),
    alert_count: alerts.length,
    run_key: ctx.run_key,
    completed_at: now,
  };
  const events = [
    outboxEvent(ctx.tenant_id, 'check.completed', id, {
      check_id: id,
      flow_id: ctx.flow_id,
      check_type: o.check_type,
      status: o.status,
      result: o.result,
      decision: row.decision,
      alert_count: alerts.length,
    }),
    ...alerts.map((a) =>
      outboxEvent(ctx.tenant_id, 'alert.created', a.id, {
        alert_id: a.id,
        check_id: id,
        flow_id: ctx.flow_id,
        source_entity_id: a.source_entity_id,
        four_eyes_required: a.four_eyes_required,
      }),
    ),
  ];
  return { row, alerts, events };
}

export const eventRows = (sql: Sql, events: OutboxRow[]) =>
  events.map((e) => ({ ...e, payload: json(sql, e.payload) }));

/**
 * Inserts a new flow with everything created with it in ONE statement (data-modifying CTEs): applicant, flow,
 * checks, alerts and outbox events become visible together or not at all, in one round trip.
 */
export interface FlowGraph {
  applicant: Row;
  flow: Row;
  checks: Row[];
  alerts: Row[];
  events: OutboxRow[];
  audit?: Row;
}

export async function insertFlowGraph(
  sql: Sql,
  parts: FlowGraph,
): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
  // the false-positive memory (reads only; its refreshes are CTEs of the same statement)
  const memory = await rememberAlerts(sql, parts.checks, parts.alerts, parts.events);
  return writerFor(sql).write({ ...parts, alerts: memory.alerts, events: memory.events }, memory.refreshes);
}

type Refresh = { alert_id: string; evidence: Record<string, unknown> };
interface PendingGraph {
  parts: FlowGraph;
  refreshes: Refresh[];
  resolve: (v: { flow: FlowRow; checks: CheckRow[] }) => void;
  reject: (e: unknown) => void;
}

/** Group commit for flow graphs. With nothing in flight a graph is written at once (no added latency); while
 * MAX_INFLIGHT statements run, graphs arriving meanwhile queue and go together in the next statement, so under load
 * many flows share one statement and one commit. A failed batch is retried graph by graph, so one bad graph fails
 * only its own request. */
class FlowGraphWriter {
  private static readonly MAX_BATCH = 64;
  private static readonly MAX_INFLIGHT = 2;
  private queue: PendingGraph[] = [];
  private inflight = 0;
  constructor(private readonly sql: Sql) {}

  write(parts: FlowGraph, refreshes: Refresh[]): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ parts, refreshes, resolve, reject });
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
      const out = await writeGraphs(this.sql, batch);
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
          b.resolve((await writeGraphs(this.sql, [b]))[0] as { flow: FlowRow; checks: CheckRow[] });
        } catch (e) {
          b.reject(e);
        }
      }
    }
  }
}

const writers = new WeakMap<Sql, FlowGraphWriter>();
function writerFor(sql: Sql): FlowGraphWriter {
  let w = writers.get(sql);
  if (!w) {
    w = new FlowGraphWriter(sql);
    writers.set(sql, w);
  }
  return w;
}

/** A multi-row insert helper over every key of every row: rows of one table may differ in optional keys (a key a
 * row lacks is written as null). */
function insertRows(sql: Sql, rows: Row[]) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return sql(rows as unknown as Record<string, postgres.ParameterOrJSON<never>>[], columns);
}

/** One statement for many graphs: applicants, flows, checks, alerts, alert refreshes, outbox events and audit rows
 * become visible together or not at all. */
async function writeGraphs(
  sql: Sql,
  batch: PendingGraph[],
): Promise<{ flow: FlowRow; checks: CheckRow[] }[]> {
  const graphs = batch.map((b) => b.parts);
  const applicants = graphs.map((g) => g.applicant);
  const flows = graphs.map((g) => g.flow);
  const checks = graphs.flatMap((g) => g.checks);
  const alerts = graphs.flatMap((g) => g.alerts);
  const events = graphs.flatMap((g) => g.events);
  const audits = graphs.flatMap((g) => (g.audit ? [g.audit] : []));
  const refreshes = batch.flatMap((b) => b.refreshes);
  // Each insert is its own fragment written as "( insert ": postgres.js picks the helper's form from the last
  // keyword before it.
  const ctes = [
    sql`a as ( insert into applicants ${insertRows(sql, applicants)} returning id )`,
    sql`f as ( insert into flows ${insertRows(sql, flows)} returning * )`,
  ];
  if (checks.length) ctes.push(sql`c as ( insert into checks ${insertRows(sql, checks)} returning * )`);
  if (alerts.length) {
    const rows = alertRows(sql, alerts);
    ctes.push(sql`al as ( insert into alerts ${insertRows(sql, rows)} returning id )`);
  }
  refreshes.forEach((r, i) => {
    ctes.push(sql`${sql(`rf${i}`)} as (
      update alerts set evidence = ${json(sql, r.evidence)}, updated_at = now()
      where id = ${r.alert_id} returning id )`);
  });
  if (events.length) {
    const rows = eventRows(sql, events);
    ctes.push(sql`o as ( insert into outbox_events ${insertRows(sql, rows)} returning id )`);
  }
  if (audits.length) ctes.push(sql`au as ( insert into audit_log ${insertRows(sql, audits)} returning id )`);
  const withClause = ctes
    .slice(1)
    .reduce((acc, c) => sql`${acc}, ${c}`, ctes[0] as postgres.PendingQuery<Row[]>);
  const checksSel = checks.length
    ? sql`(select coalesce(json_agg(c.* order by c.seq), '[]') from c where c.flow_id = f.id)`
    : sql`'[]'::json`;
  const rows = await sql<(FlowRow & { check_rows: CheckRow[] })[]>`
    with ${withClause}
    select f.*, ${checksSel} as check_rows from f`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return flows.map((f) => {
    const row = byId.get(f.id as string);
    if (!row) throw new Error('flow insert returned nothing');
    const { check_rows, ...flow } = row;
    return { flow, checks: check_rows.map(reviveCheck) };
  });
}

/** json_agg gives timestamps as strings; bring them back to Dates like a plain select. */
export function reviveCheck(c: CheckRow): CheckRow {
  return {
    ...c,
    seq: String(c.seq),
    created_at: new Date(c.created_at),
    completed_at: c.completed_at ? new Date(c.completed_at) : null,
  };
}

/**
 * Records one check idempotently: a check with the same (flow_id, run_key) already recorded (an earlier delivery
 * of the same job) is returned instead, and its alerts and events are not written again.
 */
export async function recordCheck(
  sql: Sql,
  rec: CheckRecord,
  jsonSql: Sql,
): Promise<{ row: CheckRow; inserted: boolean }> {
  const run = async (tx: Tx) => {
    const memory = await rememberAlerts(tx, [rec.row], rec.alerts, rec.events);
    const [inserted] = await tx<CheckRow[]>`
      insert into checks ${tx(rec.row)}
      on conflict (flow_id, run_key) where run_key is not null do nothing
      returning *`;
    if (!inserted) {
      const [existing] = await tx<CheckRow[]>`
        select * from checks where flow_id = ${rec.row.flow_id as string} and run_key = ${rec.row.run_key as string}`;
      if (!existing) throw new Error('check conflict without a row');
      return { row: existing, inserted: false };
    }
    if (memory.alerts.length)
      await tx`insert into alerts ${tx(alertRows(jsonSql, memory.alerts))} on conflict do nothing`;
    for (const r of memory.refreshes) {
      await tx`update alerts set evidence = ${json(jsonSql, r.evidence)}, updated_at = now()
        where id = ${r.alert_id}`;
    }
    if (memory.events.length) await tx`insert into outbox_events ${tx(eventRows(jsonSql, memory.events))}`;
    return { row: inserted, inserted: true };
  };
  return transaction(sql, run);
}

/** Alert rows as inserted: evidence as jsonb. */
export const alertRows = (sql: Sql, alerts: Row[]) =>
  alerts.map((a) => ({ ...a, evidence: json(sql, a.evidence) }));

/**
 * The false-positive memory for flow checks (server/alerts/alert-memory.ts): drops the drafted alerts that must not
 * be raised (and their alert.created events), adds the entity fingerprint to the evidence of those raised, sets
 * each check's alert_count (row and check.completed event) to what is raised, and returns the open alerts whose
 * evidence a changed entity refreshes (with their alert.updated events). Mutates the check rows and events given.
 */
export async function rememberAlerts(
  db: Sql | Tx,
  checks: Row[],
  alerts: Row[],
  events: OutboxRow[],
): Promise<{
  alerts: Row[];
  events: OutboxRow[];
  refreshes: { alert_id: string; evidence: Record<string, unknown> }[];
}> {
  if (!alerts.length) return { alerts, events, refreshes: [] };
  const tenantId = alerts[0]?.tenant_id as string;
  const evidenceOf = (a: Row) => a.evidence as Record<string, unknown>;
  const verdicts = await decideAlerts(
    db,
    tenantId,
    alerts.map((a) => ({
      subject_ref: a.subject_ref as string,
      source_entity_id: a.source_entity_id as string,
      dataset_version: (evidenceOf(a).dataset_version as string | undefined) ?? null,
    })),
  );
  const kept: Row[] = [];
  const dropped = new Set<string>();
  const refreshes: { alert_id: string; evidence: Record<string, unknown> }[] = [];
  const updated: OutboxRow[] = [];
  alerts.forEach((a, i) => {
    const v = verdicts[i];
    const evidence = { ...evidenceOf(a), entity_fingerprint: v?.fingerprint ?? null };
    if (v?.kind === 'raise') {
      kept.push({ ...a, evidence });
      return;
    }
    dropped.add(a.id as string);
    if (v?.kind === 'refresh') {
      refreshes.push({ alert_id: v.alert_id, evidence: { ...evidence, refreshed_by_check_id: a.check_id } });
      updated.push(
        outboxEvent(tenantId, 'alert.updated', v.alert_id, {
          alert_id: v.alert_id,
          action: 'evidence_refreshed',
          refreshed_by_check_id: a.check_id,
        }),
      );
    }
  });
  const counts = new Map<string, number>();
  for (const a of kept) counts.set(a.check_id as string, (counts.get(a.check_id as string) ?? 0) + 1);
  for (const c of checks) c.alert_count = counts.get(c.id as string) ?? 0;
  const out = events
    .filter((e) => !(e.type === 'alert.created' && dropped.has(e.resource_id)))
    .map((e) =>
      e.type === 'check.completed'
        ? { ...e, payload: { ...e.payload, alert_count: counts.get(e.resource_id) ?? 0 } }
        : e,
    );
  return { alerts: kept, events: [...out, ...updated], refreshes };
}
