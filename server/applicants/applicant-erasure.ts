import { writeAudit } from '../audit/audit.js';
import { eraseApplicantBatchRecords } from '../batches/batch-worker.js';
import { type Bus, type RunningWorker, runWorker } from '../bus/jetstream.js';
import { isUuid } from '../db/ids.js';
import { type Sql, type Tx, transaction } from '../db/sql.js';
import { applicantPrefix } from '../documents/document-keys.js';
import type { Logger } from '../log.js';
import { writeEvent } from '../outbox/outbox.js';
import type { ObjectStore } from '../storage/s3.js';
import { erasureJobId } from './applicant-service.js';

export interface ErasureDeps {
  sql: Sql;
  store: ObjectStore;
  bus: Bus;
  log: Logger;
}

/** Test seam: lets an integration test crash the purge between its two phases (S3, then database). */
export const erasureHooks: { afterObjectsDeleted?: (erasureId: string) => void | Promise<void> } = {};

interface ErasureRow {
  id: string;
  tenant_id: string;
  applicant_id: string;
  external_id_hash: string | null;
  status: 'scheduled' | 'completed';
  stats: { objects?: number };
}

/** Tables the purge never deletes from: the audit trail and erasure records (identifiers and hashes only). */
const KEEP = new Set(['audit_log', 'applicant_erasures', 'schema_migrations']);
const MAX_DEPTH = 8;

interface ForeignKey {
  child: string;
  child_col: string;
  parent_col: string;
}

class Purger {
  readonly counts: Record<string, number> = {};
  /** ids (as text) of every row deleted: outbox events about them are removed too */
  readonly deletedIds = new Set<string>();
  /** column name → data type, by table */
  private readonly columnsCache = new Map<string, Map<string, string>>();

  constructor(
    private readonly tx: Tx,
    private readonly tenantId: string,
  ) {}

  private async columns(table: string): Promise<Map<string, string>> {
    let cols = this.columnsCache.get(table);
    if (!cols) {
      const rows = await this.tx<{ column_name: string; data_type: string }[]>`
        select column_name, data_type from information_schema.columns
        where table_schema = current_schema() and table_name = ${table}`;
      cols = new Map(rows.map((r) => [r.column_name, r.data_type]));
      this.columnsCache.set(table, cols);
    }
    return cols;
  }

  private foreignKeys(table: string): Promise<ForeignKey[]> {
    return this.tx<ForeignKey[]>`
      select c.conrelid::regclass::text as child, ca.attname as child_col, pa.attname as parent_col
      from pg_constraint c
      join pg_attribute ca on ca.attrelid = c.conrelid and ca.attnum = c.conkey[1]
      join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
      where c.contype = 'f' and c.confrelid = ${table}::regclass and cardinality(c.conkey) = 1`;
  }

  /** Tables (other than those kept) that have a column of this name. */
  async tablesWith(column: string): Promise<string[]> {
    const rows = await this.tx<{ table_name: string }[]>`
      select c.table_name from information_schema.columns c
      join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name
      where c.table_schema = current_schema() and c.column_name = ${column} and tb.table_type = 'BASE TABLE'
      order by c.table_name`;
    return rows.map((r) => r.table_name).filter((t) => !KEEP.has(t));
  }

  /** Deletes the rows of `table` whose `column` is one of `values`, after (recursively) the rows of every table that
   * references them by a foreign key, so that no constraint blocks the purge whatever later features add. */
  async delete(table: string, column: string, values: string[], depth = 0): Promise<void> {
    if (!values.length || KEEP.has(table)) return;
    if (depth > MAX_DEPTH) throw new Error(`erasure: foreign keys nest deeper than ${MAX_DEPTH} at ${table}`);
    const { tx } = this;
    const cols = await this.columns(table);
    const scoped = cols.has('tenant_id') ? tx`and tenant_id = ${this.tenantId}` : tx``;
    // a uuid column is compared as uuid, so that its indexes serve the lookup; a value that is not a uuid's text
    // equals no uuid's text, so leaving it out deletes the same rows (the values are ids Postgres wrote as text: lower
    // case, so the cast finds exactly the uuids whose text they are)
    const matches =
      cols.get(column) === 'uuid'
        ? tx`${tx(column)} = any(${values.filter(isUuid)}::uuid[])`
        : tx`${tx(column)}::text = any(${values}::text[])`;
    for (const fk of await this.foreignKeys(table)) {
      const parentValues = (
        await tx<{ v: string }[]>`
          select distinct ${tx(fk.parent_col)}::text as v from ${tx(table)}
          where ${matches} ${scoped}`
      ).map((r) => r.v);
      await this.delete(fk.child, fk.child_col, parentValues, depth + 1);
    }
    const deleted = await tx<{ id: string | null }[]>`
      delete from ${tx(table)} where ${matches} ${scoped}
      returning ${cols.has('id') ? tx`id::text` : tx`null::text`} as id`;
    if (deleted.length) this.counts[table] = (this.counts[table] ?? 0) + deleted.length;
    for (const r of deleted) if (r.id) this.deletedIds.add(r.id);
  }
}

/**
 * The purge. Idempotent and resumable: phase 1 deletes the applicant's S3 prefix (re-listing finds nothing the
 * second time); phase 2, in one transaction, deletes the applicant row and, first, every row that refers to it —
 * followed through foreign keys (flows → checks → alerts …) and through applicant_id / flow_id / check_id columns
 * without one, so that tables of later features are covered (a flow's outbox_sets row goes with its flow) — plus
 * outbox rows about any deleted row; then writes the applicant.erased tombstone and the applicant.erased outbox
 * event and marks the erasure completed.
 * A crash before that commit leaves the erasure scheduled and the redelivered job starts again; a crash after it
 * finds the erasure completed and does nothing.
 */
export async function purgeApplicant(deps: ErasureDeps, erasureId: string): Promise<'completed' | 'noop'> {
  const { sql, store } = deps;
  const [e] = await sql<ErasureRow[]>`select * from applicant_erasures where id = ${erasureId}`;
  if (!e || e.status === 'completed') return 'noop';
  await sql`update applicant_erasures set attempts = attempts + 1 where id = ${erasureId}`;

  const removed = await store.deletePrefix(applicantPrefix(e.tenant_id, e.applicant_id));
  // counted across attempts: a crashed attempt may have deleted the objects already
  await sql`
    update applicant_erasures
    set stats = jsonb_set(stats, '{objects}', to_jsonb(coalesce((stats->>'objects')::int, 0) + ${removed}::int))
    where id = ${erasureId}`;
  await erasureHooks.afterObjectsDeleted?.(erasureId);

  return transaction(sql, async (tx) => {
    const [locked] = await tx<
      ErasureRow[]
    >`select * from applicant_erasures where id = ${erasureId} for update`;
    if (!locked || locked.status === 'completed') return 'noop' as const;
    const objects = Number(locked.stats.objects ?? 0);
    const t = e.tenant_id;
    const a = e.applicant_id;
    const p = new Purger(tx, t);
    // batch records naming the applicant: their personal data goes, and those not screened yet fail readably
    const batchRecordsFailed = await eraseApplicantBatchRecords(tx, t, a);
    const flowIds = (
      await tx<{ id: string }[]>`select id::text from flows where tenant_id = ${t} and applicant_id = ${a}`
    ).map((r) => r.id);
    const checkIds = (
      await tx<{ id: string }[]>`
        select id::text from checks where tenant_id = ${t} and (applicant_id = ${a} or flow_id = any(${flowIds}::uuid[]))`
    ).map((r) => r.id);
    // rows pointing at the applicant's checks, flows or itself by column name (with or without a foreign key)
    for (const [column, ids] of [
      ['check_id', checkIds],
      ['flow_id', flowIds],
      ['applicant_id', [a]],
    ] as const) {
      for (const table of await p.tablesWith(column)) {
        if (table === 'checks' || table === 'flows' || table === 'applicants') continue;
        await p.delete(table, column, [...ids]);
      }
    }
    await p.delete('checks', 'id', checkIds);
    await p.delete('flows', 'id', flowIds);
    await p.delete('applicants', 'id', [a]);
    const outbox = (await p.tablesWith('resource_id')).includes('outbox_rows');
    if (outbox) await p.delete('outbox_rows', 'resource_id', [...p.deletedIds]);
    const stats = { rows: p.counts, objects, batch_records_failed: batchRecordsFailed };
    await writeAudit(tx, {
      tenant_id: t,
      actor_type: 'system',
      actor_id: 'applicant_erase',
      action: 'applicant.erased',
      resource_type: 'applicant',
      resource_id: a,
      request_id: null,
      // the tombstone: identifiers, counts and the keyed hash of the tenant's own reference — no personal data
      details: { erasure_id: erasureId, external_id_hash: e.external_id_hash, ...stats },
    });
    if (outbox) {
      await writeEvent(tx, t, 'applicant.erased', a, {
        applicant_id: a,
        erasure_id: erasureId,
        erased_at: new Date().toISOString(),
      });
    }
    await tx`
      update applicant_erasures set status = 'completed', completed_at = now(), stats = ${tx.json(stats)}
      where id = ${erasureId}`;
    return 'completed' as const;
  });
}

export function startErasureWorker(deps: ErasureDeps): Promise<RunningWorker> {
  return runWorker<{ erasure_id: string }>(deps.bus, deps.log, {
    kind: 'applicant_erase',
    max_deliver: 10,
    backoff_ms: [1_000, 5_000, 30_000, 120_000],
    ack_wait_ms: 60_000,
    concurrency: 2,
    async handle({ erasure_id }, { log }) {
      const r = await purgeApplicant({ ...deps, log }, erasure_id);
      log.info({ result: r }, 'applicant erasure job done');
    },
    async onGiveUp(_job, err, log) {
      // stays scheduled: resumeErasures() re-queues it at the next worker start
      log.error({ err }, 'applicant erasure gave up; it will be resumed at the next start');
    },
  });
}

/** Re-queues erasures that are still scheduled (e.g. the publish after the request failed, or a worker gave up).
 * The job id makes a still-queued job a duplicate that JetStream drops. */
export async function resumeErasures(deps: ErasureDeps): Promise<number> {
  const rows = await deps.sql<{ id: string; tenant_id: string }[]>`
    select id, tenant_id from applicant_erasures where status = 'scheduled' order by requested_at limit 1000`;
  for (const r of rows) {
    await deps.bus.publishJob(
      'applicant_erase',
      { erasure_id: r.id, tenant_id: r.tenant_id },
      erasureJobId(r.id),
    );
  }
  return rows.length;
}

/** Deletes objects that landed under an erased applicant's prefix after the purge (a presigned PUT issued before the
 * erasure stays valid for its lifetime), once every such URL has expired. Returns the erasures swept. */
export async function resweepLateUploads(
  deps: Pick<ErasureDeps, 'sql' | 'store'>,
  uploadTtlSeconds: number,
): Promise<number> {
  const due = await deps.sql<{ id: string; tenant_id: string; applicant_id: string }[]>`
    select id, tenant_id, applicant_id from applicant_erasures
    where status = 'completed' and resweep_done_at is null
      and requested_at < now() - make_interval(secs => ${uploadTtlSeconds + 5})
    order by requested_at limit 100`;
  for (const e of due) {
    const late = await deps.store.deletePrefix(applicantPrefix(e.tenant_id, e.applicant_id));
    await deps.sql`
      update applicant_erasures set resweep_done_at = now(),
        stats = jsonb_set(stats, '{late_objects}', to_jsonb(${late}::int))
      where id = ${e.id}`;
  }
  return due.length;
}
