import type postgres from 'postgres';
import type { CheckRow } from '../checks/check-model.js';
import { alertRow, type CheckRecord, checkRow } from '../checks/recorder.js';
import { json, type Sql } from '../db/sql.js';
import { insertEvents, type OutboxRow } from '../outbox/outbox.js';
import type { FlowRow } from './flow-model.js';

type Row = Record<string, unknown>;

/**
 * Inserts a new flow with everything created with it in ONE statement (data-modifying CTEs): applicant, flow,
 * checks, alerts and outbox events become visible together or not at all, in one round trip.
 */
export interface FlowGraph {
  applicant: Row;
  flow: Row;
  /** the flow's checks, already through the false-positive memory (server/checks/recorder.ts) */
  checks: CheckRecord[];
  /** every outbox event of the new flow, in order */
  events: OutboxRow[];
  audit?: Row;
}

export function insertFlowGraph(sql: Sql, parts: FlowGraph): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
  return writerFor(sql).write(parts);
}

interface PendingGraph {
  parts: FlowGraph;
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

  write(parts: FlowGraph): Promise<{ flow: FlowRow; checks: CheckRow[] }> {
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
  const records = graphs.flatMap((g) => g.checks);
  const checks = records.map((r) => checkRow(sql, r.check));
  const alerts = records.flatMap((r) => r.alerts.map((a) => alertRow(sql, a)));
  const refreshes = records.flatMap((r) => r.refreshes);
  const events = graphs.flatMap((g) => g.events);
  const audits = graphs.flatMap((g) => (g.audit ? [g.audit] : []));
  // Each insert is its own fragment written as "( insert ": postgres.js picks the helper's form from the last
  // keyword before it.
  const ctes = [
    sql`a as ( insert into applicants ${insertRows(sql, applicants)} returning id )`,
    sql`f as ( insert into flows ${insertRows(sql, flows)} returning * )`,
  ];
  if (checks.length) ctes.push(sql`c as ( insert into checks ${insertRows(sql, checks)} returning * )`);
  if (alerts.length) ctes.push(sql`al as ( insert into alerts ${insertRows(sql, alerts)} returning id )`);
  refreshes.forEach((r, i) => {
    ctes.push(sql`${sql(`rf${i}`)} as (
      update alerts set evidence = ${json(sql, r.evidence)}, updated_at = now()
      where id = ${r.alert_id} returning id )`);
  });
  if (events.length) ctes.push(sql`o as ( ${insertEvents(sql, events)} returning id )`);
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
