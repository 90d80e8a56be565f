import type { FlowDecision } from '../../schemas/flows.js';
import { decideAlerts, type LastAlert } from '../alerts/alert-memory.js';
import { queueSlaAt } from '../alerts/alert-sla.js';
import { insertRows } from '../db/bulk-insert.js';
import { newId } from '../db/ids.js';
import { json, type Sql, type Tx, transaction } from '../db/sql.js';
import { type OutboxRow, outboxEvent, writeEvents } from '../outbox/outbox.js';
import type { CheckPolicy } from '../policy/check-policy.js';
import type { CheckRow } from './check-model.js';
import type { AlertEvidence, CheckInput, CheckOutcome, CheckRunDeps } from './check-type.js';
import { checkType } from './registry.js';
import { decideCheck } from './rules.js';

/**
 * The screening recorder: the one way a check is recorded, whoever runs it (sync flows, flow jobs, AML reruns,
 * batches, monitors). In phases, so that each caller keeps its own transaction and write path:
 *
 *   run      the check types on the subject (registry.ts) → outcomes
 *   build    decide each outcome by the tenant's policy (rules.ts) → check row + drafted alerts
 *   remember the false-positive memory (alerts/alert-memory.ts): drop alerts that must not be raised, refresh the
 *            evidence of open alerts whose entity changed
 *   write    check rows, alerts, refreshes and their outbox events, in the caller's transaction
 *
 * `recordChecks` does remember + write in one transaction; `recordChecksBulk` the same for many records at once
 * in one statement (batches); the sync flow path writes the same rows in its single flow-graph statement
 * (flows/flow-store.ts).
 */

/** Where a check comes from and what it is about. */
export interface RecordContext {
  tenant_id: string;
  policy: CheckPolicy;
  mode: 'sync' | 'async';
  flow_id?: string | null;
  batch_id?: string | null;
  monitor_id?: string | null;
  applicant_id: string | null;
  applicant_name: string | null;
  /** the tenant's own id of the customer */
  reference: string | null;
  /** the subject across screenings: alerts and their false-positive memory are per (subject_ref, entity) */
  subject_ref: string;
  input_ref?: string | null;
  use_case?: string | null;
  /** a flow job's checks are recorded once per (flow_id, run_key), whatever the redeliveries */
  run_key?: string | null;
}

export interface CheckInsert {
  id: string;
  tenant_id: string;
  flow_id: string | null;
  batch_id: string | null;
  applicant_id: string | null;
  applicant_name: string | null;
  reference: string | null;
  check_type: CheckOutcome['check_type'];
  status: CheckOutcome['status'];
  result: CheckOutcome['result'];
  decision: FlowDecision | null;
  reason_codes: string[];
  mode: 'sync' | 'async';
  use_case: string | null;
  input_ref: string | null;
  latency_ms: number;
  dataset_versions: string[];
  datasets: CheckOutcome['datasets'];
  policy_version: string;
  error: string | null;
  evidence: Record<string, unknown>;
  alert_count: number;
  run_key: string | null;
  completed_at: Date;
}

export interface AlertInsert {
  id: string;
  tenant_id: string;
  check_id: string;
  flow_id: string | null;
  batch_id: string | null;
  applicant_id: string | null;
  state: 'open';
  subject_ref: string;
  source_entity_id: string;
  evidence: AlertEvidence;
  four_eyes_required: boolean;
  queue_sla_at: Date;
}

export interface AlertRefresh {
  alert_id: string;
  evidence: AlertEvidence;
  /** the alert as it was (for its alert.updated event) */
  alert: LastAlert;
}

export interface CheckRecord {
  check: CheckInsert;
  alerts: AlertInsert[];
  /** open alerts of the same subject and entity whose evidence this check refreshes (set by rememberAlerts) */
  refreshes: AlertRefresh[];
  monitor_id: string | null;
}

/** Runs the named check types on one subject (in parallel). */
export async function runChecks(
  deps: CheckRunDeps,
  types: readonly string[],
  input: CheckInput,
): Promise<CheckOutcome[]> {
  return Promise.all(
    types.map((t) => {
      const def = checkType(t);
      if (!def || def.needs_upload) throw new Error(`${t} cannot run on the subject alone`);
      return def.run(deps, input);
    }),
  );
}

/** The recorder's decision for one outcome: the rules over its signals; a failed check without a signal the
 * policy keeps has no decision. */
export function decideOutcome(
  o: Pick<CheckOutcome, 'status' | 'signals'>,
  policy: CheckPolicy,
): { decision: FlowDecision | null; reason_codes: string[] } {
  const decided = decideCheck(o.signals, policy);
  return {
    decision: o.status === 'completed' || decided.reason_codes.length ? decided.decision : null,
    reason_codes: decided.reason_codes,
  };
}

/** The check row and its drafted alerts (one per matched entity), before the false-positive memory. */
export function buildCheck(o: CheckOutcome, ctx: RecordContext): CheckRecord {
  const id = newId();
  const now = new Date();
  const { decision, reason_codes } = decideOutcome(o, ctx.policy);
  const alerts = o.alerts.map(
    (a): AlertInsert => ({
      id: newId(),
      tenant_id: ctx.tenant_id,
      check_id: id,
      flow_id: ctx.flow_id ?? null,
      batch_id: ctx.batch_id ?? null,
      applicant_id: ctx.applicant_id,
      state: 'open',
      subject_ref: ctx.subject_ref,
      source_entity_id: a.source_entity_id,
      evidence: a.evidence,
      four_eyes_required: ctx.policy.four_eyes_required,
      queue_sla_at: queueSlaAt(now, a.evidence.datasets, ctx.policy),
    }),
  );
  return {
    check: {
      id,
      tenant_id: ctx.tenant_id,
      flow_id: ctx.flow_id ?? null,
      batch_id: ctx.batch_id ?? null,
      applicant_id: ctx.applicant_id,
      applicant_name: ctx.applicant_name,
      reference: ctx.reference,
      check_type: o.check_type,
      status: o.status,
      result: o.result,
      decision,
      reason_codes,
      mode: ctx.mode,
      use_case: ctx.use_case ?? null,
      input_ref: ctx.input_ref ?? null,
      latency_ms: o.latency_ms,
      dataset_versions: o.dataset_versions,
      datasets: o.datasets,
      policy_version: ctx.policy.policy_version,
      error: o.error,
      evidence: o.evidence,
      alert_count: alerts.length,
      run_key: ctx.run_key ?? null,
      completed_at: now,
    },
    alerts,
    refreshes: [],
    monitor_id: ctx.monitor_id ?? null,
  };
}

/**
 * The false-positive memory over drafted records (server/alerts/alert-memory.ts), reads only: drops the alerts
 * that must not be raised, stamps the entity fingerprint into the evidence of those raised, turns the hits on an
 * open alert whose entity changed into refreshes, and sets each check's alert_count. Mutates the records.
 * `newSubjects`: subject_refs the caller has just created (decideAlerts).
 */
export async function rememberAlerts(
  db: Sql,
  records: CheckRecord[],
  newSubjects?: ReadonlySet<string>,
): Promise<void> {
  const drafted = records.flatMap((r) => r.alerts.map((a) => ({ r, a })));
  if (!drafted.length) return;
  const verdicts = await decideAlerts(
    db,
    drafted[0]?.a.tenant_id as string,
    drafted.map(({ a }) => ({
      subject_ref: a.subject_ref,
      source_entity_id: a.source_entity_id,
      entity_ids: a.evidence.sources?.map((x) => x.entity_id),
      dataset_version: a.evidence.dataset_version,
    })),
    newSubjects,
  );
  for (const r of records) r.alerts = [];
  drafted.forEach(({ r, a }, i) => {
    const v = verdicts[i];
    const evidence = { ...a.evidence, entity_fingerprint: v?.fingerprint ?? null };
    if (v?.kind === 'raise') r.alerts.push({ ...a, evidence });
    else if (v?.kind === 'refresh')
      r.refreshes.push({
        alert_id: v.alert_id,
        evidence: { ...evidence, refreshed_by_check_id: r.check.id },
        alert: v.alert,
      });
  });
  for (const r of records) r.check.alert_count = r.alerts.length;
}

/** The outbox events of recorded checks: check.completed for a flow's check (batches report batch.completed,
 * monitors monitor.match), alert.created per alert raised, alert.updated per refreshed alert. */
export function checkEvents(records: readonly CheckRecord[]): OutboxRow[] {
  return records.flatMap((r) => {
    const c = r.check;
    return [
      ...(c.flow_id
        ? [
            outboxEvent(c.tenant_id, 'check.completed', c.id, {
              check_id: c.id,
              flow_id: c.flow_id,
              check_type: c.check_type,
              status: c.status,
              result: c.result,
              decision: c.decision,
              alert_count: c.alert_count,
            }),
          ]
        : []),
      ...r.alerts.map((a) =>
        outboxEvent(c.tenant_id, 'alert.created', a.id, {
          alert_id: a.id,
          check_id: c.id,
          flow_id: a.flow_id,
          batch_id: a.batch_id,
          monitor_id: r.monitor_id,
          source_entity_id: a.source_entity_id,
          state: a.state,
          four_eyes_required: a.four_eyes_required,
        }),
      ),
      ...r.refreshes.map((f) =>
        outboxEvent(c.tenant_id, 'alert.updated', f.alert_id, {
          alert_id: f.alert_id,
          check_id: f.alert.check_id,
          action: 'evidence_refreshed',
          previous_state: f.alert.state,
          state: f.alert.state,
          actor_id: null,
          assigned_to: f.alert.assigned_to,
          disposition: f.alert.disposition,
          refreshed_by_check_id: c.id,
        }),
      ),
    ];
  });
}

/** A check row as written: evidence as jsonb. */
export const checkRow = (sql: Sql, c: CheckInsert) => ({ ...c, evidence: json(sql, c.evidence) });

/**
 * Writes remembered records in the caller's transaction. A check whose (flow_id, run_key) is already recorded (an
 * earlier delivery of the same job) is returned instead, and its alerts and events are not written again.
 * Returns the check rows in the order of `records`.
 */
export async function writeChecks(
  tx: Tx,
  records: CheckRecord[],
): Promise<{ rows: CheckRow[]; written: CheckRecord[] }> {
  if (!records.length) return { rows: [], written: [] };
  const inserted = await tx<CheckRow[]>`
    insert into checks ${tx(records.map((r) => checkRow(tx, r.check)))}
    on conflict (flow_id, run_key) where run_key is not null do nothing
    returning *`;
  const byId = new Map(inserted.map((c) => [c.id, c]));
  const written = records.filter((r) => byId.has(r.check.id));
  const rows: CheckRow[] = [];
  for (const r of records) {
    let row = byId.get(r.check.id);
    if (!row) {
      [row] = await tx<CheckRow[]>`
        select * from checks where flow_id = ${r.check.flow_id} and run_key = ${r.check.run_key}`;
      if (!row) throw new Error('check conflict without a row');
    }
    rows.push(row);
  }
  await writeAlertsAndEvents(tx, written);
  return { rows, written };
}

/** What follows the check rows of written records: their alerts, evidence refreshes and outbox events, each in
 * one statement whatever their number. */
async function writeAlertsAndEvents(tx: Tx, written: readonly CheckRecord[]): Promise<void> {
  await insertRows(
    tx,
    'alerts',
    ALERT_COLUMNS,
    written.flatMap((r) => r.alerts),
  );
  const refreshes = written.flatMap((r) => r.refreshes);
  if (refreshes.length) await refreshAlertsStatement(tx, refreshes);
  await writeEvents(tx, checkEvents(written));
}

/** The evidence refreshes of open alerts as one statement with one JSON parameter (none updates nothing), awaited
 * alone or as a data-modifying CTE of a larger statement (the flow graph). The memory refreshes an alert at most
 * once per call (decideAlerts), so no alert appears twice. */
export function refreshAlertsStatement(sql: Sql, refreshes: readonly AlertRefresh[]) {
  return refreshAlertsOf(sql, refreshValues(refreshes));
}

/** The one parameter of refreshAlertsStatement. */
export function refreshValues(refreshes: readonly AlertRefresh[]): { alert_id: string; evidence: unknown }[] {
  return refreshes.map((f) => ({ alert_id: f.alert_id, evidence: f.evidence }));
}

/** refreshAlertsStatement of given values. */
export function refreshAlertsOf(sql: Sql, rows: ReturnType<typeof refreshValues>) {
  return sql`
    update alerts set evidence = r.evidence, updated_at = now()
    from jsonb_to_recordset(${json(sql, rows)}) as r (alert_id uuid, evidence jsonb)
    where alerts.id = r.alert_id`;
}

/** The check columns as written (CheckInsert's fields). */
export const CHECK_COLUMNS: readonly (keyof CheckInsert)[] = [
  'id',
  'tenant_id',
  'flow_id',
  'batch_id',
  'applicant_id',
  'applicant_name',
  'reference',
  'check_type',
  'status',
  'result',
  'decision',
  'reason_codes',
  'mode',
  'use_case',
  'input_ref',
  'latency_ms',
  'dataset_versions',
  'datasets',
  'policy_version',
  'error',
  'evidence',
  'alert_count',
  'run_key',
  'completed_at',
];

/** The alert columns as written (AlertInsert's fields). */
export const ALERT_COLUMNS: readonly (keyof AlertInsert)[] = [
  'id',
  'tenant_id',
  'check_id',
  'flow_id',
  'batch_id',
  'applicant_id',
  'state',
  'subject_ref',
  'source_entity_id',
  'evidence',
  'four_eyes_required',
  'queue_sla_at',
];

/**
 * The bulk path (batches): remember + write many records in the caller's transaction, the check rows in one
 * statement with one parameter (server/db/bulk-insert.ts) and nothing read back. For records without a run_key only: the caller's lock is what makes
 * the write happen once (a batch chunk's row), so there is no conflict to resolve here.
 */
export async function recordChecksBulk(tx: Tx, records: CheckRecord[]): Promise<void> {
  if (records.some((r) => r.check.run_key !== null))
    throw new Error('the bulk path records checks without run_key');
  await rememberAlerts(tx, records);
  await insertRows(
    tx,
    'checks',
    CHECK_COLUMNS,
    records.map((r) => r.check),
  );
  await writeAlertsAndEvents(tx, records);
}

/** remember + write, atomically (in the caller's transaction when given one). */
export function recordChecks(
  sql: Sql,
  records: CheckRecord[],
): Promise<{ rows: CheckRow[]; written: CheckRecord[] }> {
  return transaction(sql, async (tx) => {
    await rememberAlerts(tx, records);
    return writeChecks(tx, records);
  });
}
