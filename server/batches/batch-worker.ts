import type { ScreenResult, ScreenSubject } from '../../matcher/types.js';
import type { Bus, RunningWorker } from '../bus/jetstream.js';
import { runWorker } from '../bus/jetstream.js';
import { buildCheck, recordChecksBulk } from '../checks/recorder.js';
import { amlOutcome, amlScreenOptions } from '../checks/types/aml-screen.js';
import { isPermanentDbError, publicFailureReason } from '../db/pg-errors.js';
import { json, type Sql, type Tx, transaction } from '../db/sql.js';
import { purgeExpiredKeys } from '../idempotency/idempotency.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { writeEvent } from '../outbox/outbox.js';
import { checkPolicyAt } from '../policy/check-policy.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import { screenBulk } from '../screening/pool-screener.js';
import { toScreenSubject } from '../screening/subject.js';
import { type ChunkJob, requeueStranded, type StoredSubject } from './batch-service.js';
import type { BatchRow } from './batch-store.js';

export interface BatchWorkerDeps {
  sql: Sql;
  bus: Bus;
  pool: MatcherPool;
  metrics: Metrics;
  log: Logger;
}

interface ChunkState {
  from_idx: number;
  to_idx: number;
  status: 'pending' | 'done';
}

interface PendingSubject extends StoredSubject {
  subject: NonNullable<StoredSubject['subject']>;
  idx: number;
}

/** The chunk holding a job's range (a whole chunk, or one record of it), locked when `lock`. */
async function chunkOf(sql: Sql, job: ChunkJob, lock: boolean): Promise<ChunkState | undefined> {
  const [chunk] = await sql<ChunkState[]>`
    select from_idx, to_idx, status from batch_chunks
    where batch_id = ${job.batch_id} and from_idx <= ${job.from} and to_idx >= ${job.to}
    order by from_idx desc limit 1 ${lock ? sql`for update` : sql``}`;
  return chunk;
}

/** The records of a job's range already settled one by one (batch_records). */
async function settledIn(sql: Sql, job: ChunkJob): Promise<Set<number>> {
  const rows = await sql<{ idx: number }[]>`
    select idx from batch_records where batch_id = ${job.batch_id} and idx >= ${job.from} and idx < ${job.to}`;
  return new Set(rows.map((r) => r.idx));
}

/** The subjects of a job's range still to screen: none when its chunk is done, else those not settled one by one. */
async function pendingOf(sql: Sql, job: ChunkJob, chunk: ChunkState): Promise<PendingSubject[]> {
  if (chunk.status === 'done') return [];
  const [row] = await sql<{ subjects: StoredSubject[] }[]>`
    select subjects from batch_chunks where batch_id = ${job.batch_id} and from_idx = ${chunk.from_idx}`;
  const settled = await settledIn(sql, job);
  const pending: PendingSubject[] = [];
  for (let idx = job.from; idx < job.to; idx++) {
    const s = row?.subjects[idx - chunk.from_idx];
    // an erased applicant's record has no subject left, and was settled by the erasure
    if (s?.subject && !settled.has(idx)) pending.push({ ...s, subject: s.subject, idx });
  }
  return pending;
}

/** Whether a job covers its whole chunk (the chunk is then settled as one) or records of it (settled one by one). */
const wholeChunk = (job: ChunkJob, chunk: ChunkState) =>
  job.from === chunk.from_idx && job.to === chunk.to_idx;

/**
 * Screens one chunk of a batch (or one record of it). Exactly once per subject, whatever the redeliveries: the
 * pending subjects are screened first, outside any transaction, so that the matcher threads work while other chunks
 * write; then one transaction locks the chunk's row, drops what a concurrent delivery settled meanwhile, records the
 * checks (the recorder's bulk path), marks the chunk done (or the records, for a single-record job) and
 * advances the batch counters by what it recorded. A crash anywhere rolls the transaction back for the redelivery.
 */
export async function processChunk(deps: BatchWorkerDeps, job: ChunkJob): Promise<{ screened: number }> {
  const { sql } = deps;
  const [batch] = await sql<BatchRow[]>`select * from check_batches where id = ${job.batch_id}`;
  if (!batch || batch.status === 'completed' || batch.status === 'failed') return { screened: 0 };
  const chunk = await chunkOf(sql, job, false);
  if (!chunk) return { screened: 0 };
  const pending = await pendingOf(sql, job, chunk);
  if (!pending.length) return { screened: 0 };
  // the policy the batch recorded when it was accepted, not the one in force now (it may have changed meanwhile)
  const policy = await checkPolicyAt(sql, batch.tenant_id, batch.policy_version);
  const req = { datasets: batch.datasets, policy: policy.aml_match_policy, use_case: batch.use_case };
  const subjects = pending.map((p) => toScreenSubject(p.subject));
  const results = await screenBulk(deps.pool, deps.metrics, subjects, amlScreenOptions(req));
  const records = pending.map((p, i) => {
    const result = results[i] as ScreenResult;
    const outcome = amlOutcome(
      { ...req, subjects: [subjects[i] as ScreenSubject] },
      [result],
      result.screen_ms ?? 0,
    );
    const input_ref = p.subject.reference_id ?? p.subject.ref ?? `${batch.id}:${p.idx}`;
    return buildCheck(outcome, {
      tenant_id: batch.tenant_id,
      policy,
      mode: 'async',
      batch_id: batch.id,
      applicant_id: p.applicant_id,
      applicant_name: p.subject.name,
      reference: p.external_id,
      // the subject across screenings: the record's external_id, else its applicant, else its input_ref
      subject_ref: p.external_id ?? p.applicant_id ?? input_ref,
      input_ref,
      use_case: batch.use_case,
    });
  });
  return transaction(sql, async (tx) => {
    const locked = await chunkOf(tx, job, true);
    if (!locked || locked.status === 'done') return { screened: 0 };
    const settled = await settledIn(tx, job);
    const todo = records.filter((_, i) => !settled.has((pending[i] as PendingSubject).idx));
    const idxs = pending.filter((p) => !settled.has(p.idx)).map((p) => p.idx);
    if (!todo.length) return { screened: 0 };
    await recordChecksBulk(tx, todo);
    if (wholeChunk(job, locked)) {
      await tx`update batch_chunks set status = 'done' where batch_id = ${batch.id} and from_idx = ${locked.from_idx}`;
    } else {
      await tx`insert into batch_records ${tx(idxs.map((idx) => ({ batch_id: batch.id, idx, status: 'done' })))}`;
    }
    const [after] = await tx<{ status: string }[]>`
      update check_batches set
        completed_count = completed_count + ${todo.length},
        status = case when completed_count + ${todo.length} + error_count >= subject_count then 'completed' else 'processing' end,
        completed_at = case when completed_count + ${todo.length} + error_count >= subject_count then now() else null end,
        updated_at = now()
      where id = ${batch.id}
      returning status`;
    if (after?.status === 'completed') await emitCompleted(tx, batch.id);
    return { screened: todo.length };
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
  const job = { batch_id: batchId, from: range.from, to: range.to };
  const n = await transaction(deps.sql, async (tx) => {
    const chunk = await chunkOf(tx, job, true);
    if (!chunk) return 0;
    const pending = await pendingOf(tx, job, chunk);
    if (!pending.length) return 0;
    if (wholeChunk(job, chunk))
      await tx`update batch_chunks set status = 'done' where batch_id = ${batchId} and from_idx = ${chunk.from_idx}`;
    return settleErrors(
      tx,
      batchId,
      pending.map((r) => ({ idx: r.idx, reason: reason(r) })),
    );
  });
  deps.metrics.batchRecords.inc({ outcome: 'error' }, n);
}

/** The one place records of a batch are settled as errors: a batch_records row each (`record <idx>: <reason>`, a
 * reason a tenant may read), and the batch's counters advanced by exactly that many, so the batch still ends; a
 * batch that ends with errors says so in `error` (how many, and the first reason), and one where every record failed
 * ends `failed`. Call it with the records' chunk locked (or settled as a whole meanwhile). */
export async function settleErrors(
  tx: Tx,
  batchId: string,
  records: { idx: number; reason: string }[],
): Promise<number> {
  if (!records.length) return 0;
  const failed = records.map((r) => ({
    batch_id: batchId,
    idx: r.idx,
    status: 'error',
    error: `record ${r.idx}: ${r.reason}`,
  }));
  await tx`insert into batch_records ${tx(failed)}`;
  const n = failed.length;
  const first = failed[0]?.error ?? '';
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
}

/** What the erasure of an applicant does to its batch records (in the erasure's transaction): each record that
 * names the applicant loses its personal data (subject and external_id), and each not screened yet is settled as an
 * error with a readable reason, so it neither vanishes nor keeps its batch waiting; a record screened before stays
 * counted (its check is erased with the applicant's other checks). Chunks are locked like the worker locks them, so
 * a chunk screened meanwhile either records the applicant's check first (then erased) or skips the settled record.
 * Returns the records settled as errors. */
export async function eraseApplicantBatchRecords(
  tx: Tx,
  tenantId: string,
  applicantId: string,
): Promise<number> {
  const chunks = await tx<
    { batch_id: string; from_idx: number; to_idx: number; status: string; subjects: StoredSubject[] }[]
  >`
    select batch_id, from_idx, to_idx, status, subjects from batch_chunks
    where tenant_id = ${tenantId} and subjects @> ${json(tx, [{ applicant_id: applicantId }])}
    order by batch_id, from_idx for update`;
  let settledAsErrors = 0;
  for (const c of chunks) {
    const settled = await settledIn(tx, { batch_id: c.batch_id, from: c.from_idx, to: c.to_idx });
    const unscreened: { idx: number; reason: string }[] = [];
    const subjects = c.subjects.map((s, i) => {
      if (s.applicant_id !== applicantId) return s;
      const idx = c.from_idx + i;
      if (c.status === 'pending' && !settled.has(idx))
        unscreened.push({ idx, reason: 'the applicant was erased before this record was screened' });
      return { applicant_id: applicantId, external_id: null, subject: null };
    });
    await tx`
      update batch_chunks set subjects = ${json(tx, subjects)}
      where batch_id = ${c.batch_id} and from_idx = ${c.from_idx}`;
    settledAsErrors += await settleErrors(tx, c.batch_id, unscreened);
  }
  return settledAsErrors;
}

/** A chunk that failed with an error no retry can cure (e.g. a record whose applicant no longer exists) is screened
 * record by record: the records that can succeed are recorded, each that cannot fails at once with its reason. A
 * transient failure on the way is thrown, and the redelivery resumes with the records still pending. */
async function screenOneByOne(deps: BatchWorkerDeps, job: ChunkJob): Promise<void> {
  const chunk = await chunkOf(deps.sql, job, false);
  const rows = chunk ? await pendingOf(deps.sql, job, chunk) : [];
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
    // chunks in flight: while one writes, the others' subjects keep the matcher threads busy
    concurrency: 4,
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
