import type { SubjectIn } from '../../schemas/subjects.js';
import type { Bus, RunningWorker } from '../bus/jetstream.js';
import { runWorker } from '../bus/jetstream.js';
import type { CheckOutcome } from '../checks/check-type.js';
import { buildCheck, recordChecks } from '../checks/recorder.js';
import { screenAml } from '../checks/types/aml-screen.js';
import { isPermanentDbError, publicFailureReason } from '../db/pg-errors.js';
import { type Sql, transaction } from '../db/sql.js';
import { purgeExpiredKeys } from '../idempotency/idempotency.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { writeEvent } from '../outbox/outbox.js';
import { checkPolicyFor } from '../policy/check-policy.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import { poolScreener } from '../screening/pool-screener.js';
import { toScreenSubject } from '../screening/subject.js';
import { type ChunkJob, requeueStranded } from './batch-service.js';
import type { BatchRow } from './batch-store.js';

interface SubjectRow {
  idx: number;
  applicant_id: string | null;
  external_id: string | null;
  subject: SubjectIn;
}

export interface BatchWorkerDeps {
  sql: Sql;
  bus: Bus;
  pool: MatcherPool;
  metrics: Metrics;
  log: Logger;
}

/** Screens one chunk of a batch. Exactly once per subject, whatever the redeliveries: the chunk's pending rows are
 * locked, screened, and in the same transaction their checks are inserted, the rows marked done and the batch
 * counters advanced by what this transaction changed. A crash anywhere rolls all of it back for the redelivery. */
export async function processChunk(deps: BatchWorkerDeps, job: ChunkJob): Promise<{ screened: number }> {
  const { sql } = deps;
  return transaction(sql, async (tx) => {
    const [batch] = await tx<BatchRow[]>`select * from check_batches where id = ${job.batch_id}`;
    if (!batch || batch.status === 'completed' || batch.status === 'failed') return { screened: 0 };
    const rows = await tx<SubjectRow[]>`
      select idx, applicant_id, external_id, subject from batch_subjects
      where batch_id = ${job.batch_id} and idx >= ${job.from} and idx < ${job.to} and status = 'pending'
      order by idx for update skip locked`;
    if (!rows.length) return { screened: 0 };
    const policy = await checkPolicyFor(tx, batch.tenant_id);
    const screen = poolScreener(deps.pool, deps.metrics);
    const outcomes = await Promise.all(
      rows.map((r) =>
        screenAml(screen, {
          subjects: [toScreenSubject(r.subject)],
          datasets: batch.datasets,
          policy: policy.aml_match_policy,
          use_case: batch.use_case,
        }),
      ),
    );
    const records = rows.map((r, i) => {
      const input_ref = r.subject.reference_id ?? r.subject.ref ?? `${batch.id}:${r.idx}`;
      return buildCheck(outcomes[i] as CheckOutcome, {
        tenant_id: batch.tenant_id,
        policy,
        mode: 'async',
        batch_id: batch.id,
        applicant_id: r.applicant_id,
        applicant_name: r.subject.name,
        reference: r.external_id,
        // the subject across screenings: the record's external_id, else its applicant, else its input_ref
        subject_ref: r.external_id ?? r.applicant_id ?? input_ref,
        input_ref,
        use_case: batch.use_case,
      });
    });
    await recordChecks(tx, records);
    const done = rows.map((r, i) => [r.idx, records[i]?.check.id as string]);
    await tx`
      update batch_subjects b set status = 'done', check_id = v.check_id::uuid
      from (values ${tx(done)}) as v(idx, check_id)
      where b.batch_id = ${batch.id} and b.idx = v.idx::int`;
    const [after] = await tx<{ status: string }[]>`
      update check_batches set
        completed_count = completed_count + ${rows.length},
        status = case when completed_count + ${rows.length} + error_count >= subject_count then 'completed' else 'processing' end,
        completed_at = case when completed_count + ${rows.length} + error_count >= subject_count then now() else null end,
        updated_at = now()
      where id = ${batch.id}
      returning status`;
    if (after?.status === 'completed') await emitCompleted(tx, batch.id);
    return { screened: rows.length };
  });
}

async function emitCompleted(tx: Sql, batchId: string): Promise<void> {
  // the transaction that completes the batch holds its row lock, so exactly one writes the event
  const [b] = await tx<BatchRow[]>`select * from check_batches where id = ${batchId}`;
  if (!b) return;
  await writeEvent(tx, b.tenant_id, 'batch.completed', b.id, {
    batch_id: b.id,
    status: b.status,
    subject_count: b.subject_count,
    completed_count: b.completed_count,
    error_count: b.error_count,
  });
}

/** Marks still-pending subjects as errors (each with a reason a tenant may read) and advances the batch's counters
 * by exactly the rows this transaction changed, so the batch still ends; a batch that ends with errors says so in
 * `error` (how many, and the first reason), and one where every subject failed ends `failed`. */
async function failSubjects(
  deps: BatchWorkerDeps,
  batchId: string,
  range: { from: number; to: number },
  reason: (row: { idx: number; applicant_id: string | null }) => string,
): Promise<void> {
  const n = await transaction(deps.sql, async (tx) => {
    const pending = await tx<{ idx: number; applicant_id: string | null }[]>`
      select idx, applicant_id from batch_subjects
      where batch_id = ${batchId} and idx >= ${range.from} and idx < ${range.to} and status = 'pending'
      order by idx for update`;
    if (!pending.length) return 0;
    const failed = pending.map((r) => [r.idx, `record ${r.idx}: ${reason(r)}`] as const);
    await tx`
      update batch_subjects b set status = 'error', error = v.error
      from (values ${tx(failed.map(([i, e]) => [i, e]))}) as v(idx, error)
      where b.batch_id = ${batchId} and b.idx = v.idx::int`;
    const n = failed.length;
    const first = failed[0]?.[1] ?? '';
    const [after] = await tx<{ status: string }[]>`
      update check_batches set
        error_count = error_count + ${n},
        error = (error_count + ${n})::text || ' of ' || subject_count::text || ' subjects could not be screened; first: '
                || coalesce(substring(error from 'first: (.*)$'), ${first}::text),
        status = case when completed_count + error_count + ${n} < subject_count then status
                      when completed_count = 0 then 'failed' else 'completed' end,
        completed_at = case when completed_count + error_count + ${n} >= subject_count then now() else completed_at end,
        updated_at = now()
      where id = ${batchId} returning status`;
    if (after?.status === 'completed' || after?.status === 'failed') await emitCompleted(tx, batchId);
    return n;
  });
  deps.metrics.batchRecords.inc({ outcome: 'error' }, n);
}

/** A chunk that failed with an error no retry can cure (e.g. a record whose applicant no longer exists) is screened
 * record by record: the records that can succeed are recorded, each that cannot fails at once with its reason. A
 * transient failure on the way is thrown, and the redelivery resumes with the records still pending. */
async function screenOneByOne(deps: BatchWorkerDeps, job: ChunkJob): Promise<void> {
  const rows = await deps.sql<{ idx: number; applicant_id: string | null }[]>`
    select idx, applicant_id from batch_subjects
    where batch_id = ${job.batch_id} and idx >= ${job.from} and idx < ${job.to} and status = 'pending'
    order by idx`;
  for (const r of rows) {
    try {
      const { screened } = await processChunk(deps, { batch_id: job.batch_id, from: r.idx, to: r.idx + 1 });
      deps.metrics.batchRecords.inc({ outcome: 'screened' }, screened);
    } catch (err) {
      if (!isPermanentDbError(err)) throw err;
      deps.log.warn({ err, idx: r.idx }, 'batch record cannot be screened');
      await failSubjects(deps, job.batch_id, { from: r.idx, to: r.idx + 1 }, (row) =>
        publicFailureReason(err, row),
      );
    }
  }
}

export async function startBatchWorker(deps: BatchWorkerDeps): Promise<RunningWorker> {
  // batches committed but never queued (crash between commit and publish) are queued again
  const sweep = setInterval(() => {
    requeueStranded(deps).catch((err: unknown) => deps.log.warn({ err }, 'batch requeue sweep failed'));
    purgeExpiredKeys(deps.sql).catch((err: unknown) =>
      deps.log.warn({ err }, 'idempotency key purge failed'),
    );
  }, 30_000);
  const worker = await runWorker<ChunkJob>(deps.bus, deps.log, {
    kind: 'batch_chunk',
    max_deliver: 5,
    backoff_ms: [1_000, 5_000, 15_000, 60_000],
    jitter: 0.2,
    // a chunk takes well under a second; a worker killed mid-chunk has its chunk redelivered after this
    ack_wait_ms: 15_000,
    concurrency: 2,
    handle: async (job, { log }) => {
      const jobDeps = { ...deps, log };
      try {
        const { screened } = await processChunk(jobDeps, job);
        deps.metrics.batchRecords.inc({ outcome: 'screened' }, screened);
      } catch (err) {
        if (!isPermanentDbError(err)) throw err;
        await screenOneByOne(jobDeps, job);
      }
    },
    // after the last retry the chunk's still-pending subjects are counted as errors, so the batch still ends
    onGiveUp: (job, err) => failSubjects(deps, job.batch_id, job, () => publicFailureReason(err)),
  });
  return {
    async stop() {
      clearInterval(sweep);
      await worker.stop();
    },
  };
}
