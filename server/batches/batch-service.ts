import { randomUUID } from 'node:crypto';
import type { CheckBatchCreateIn } from '../../schemas/batches.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { SubjectIn } from '../../schemas/subjects.js';
import { requireOwnApplicants } from '../applicants/applicant-service.js';
import type { TenantPrincipal } from '../auth/principal.js';
import type { Bus } from '../bus/jetstream.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { checkPolicyFor } from '../policy/check-policy.js';
import type { BatchRow } from './batch-store.js';

/** Subjects per JetStream job and per stored chunk row: small enough that a redelivery repeats little work (well
 * under a second of screening), large enough to amortise a transaction and its commit. */
export const CHUNK_SIZE = 500;
/** Chunks per insert statement when a batch is stored: a few MB of JSON a statement, never one giant one. */
const INSERT_CHUNKS = 4;

export interface ChunkJob {
  batch_id: string;
  /** for the job's log lines (older jobs may lack it) */
  tenant_id?: string;
  from: number;
  to: number;
}

/** One stored chunk of a batch (table batch_chunks): its subjects idx from_idx … to_idx - 1, in order. */
export interface ChunkRow {
  batch_id: string;
  from_idx: number;
  to_idx: number;
  tenant_id: string;
  subjects: StoredSubject[];
}

export interface StoredSubject {
  applicant_id: string | null;
  external_id: string | null;
  /** null once the applicant was erased (its record then settled: eraseApplicantBatchRecords) */
  subject: SubjectIn | null;
}

/** Stores the batch and its subjects atomically (a chunk of subjects a row, inserted a few rows a statement), joining the
 * caller's transaction when given one; the caller queues its chunks (publishChunks) after the commit. Self-serve
 * allowance: one unit per subject, consumed in the same transaction, so a batch that is not stored costs nothing. */
export async function createBatch(
  sql: Sql,
  tenant: TenantPrincipal,
  input: CheckBatchCreateIn,
  consumeAllowance: (sql: Sql, units: number) => Promise<void>,
): Promise<BatchRow> {
  await requireOwnApplicants(
    sql,
    tenant.tenant_id,
    input.records.flatMap((r, i) =>
      r.applicant_id ? [{ loc: ['body', 'records', i, 'applicant_id'], applicant_id: r.applicant_id }] : [],
    ),
  );
  const policy = await checkPolicyFor(sql, tenant.tenant_id);
  const datasets = (input.datasets ?? policy.default_datasets) as AmlDataset[];
  const subjects = input.records.flatMap((r) =>
    r.subjects.map(
      (s): StoredSubject => ({
        applicant_id: r.applicant_id ?? null,
        external_id: r.external_id ?? null,
        subject: s,
      }),
    ),
  );
  await consumeAllowance(sql, subjects.length);
  const id = randomUUID();
  const batch = await transaction(sql, async (tx) => {
    const [row] = await tx<BatchRow[]>`
      insert into check_batches (id, tenant_id, use_case, datasets, mode, policy_version, subject_count, chunk_size)
      values (${id}, ${tenant.tenant_id}, ${input.use_case ?? 'lookback'}, ${datasets}, 'async', ${policy.policy_version},
              ${subjects.length}, ${CHUNK_SIZE})
      returning *`;
    const chunks: ChunkRow[] = [];
    for (let from = 0; from < subjects.length; from += CHUNK_SIZE) {
      const to = Math.min(from + CHUNK_SIZE, subjects.length);
      chunks.push({
        batch_id: id,
        from_idx: from,
        to_idx: to,
        tenant_id: tenant.tenant_id,
        subjects: subjects.slice(from, to),
      });
    }
    for (let i = 0; i < chunks.length; i += INSERT_CHUNKS) {
      const slice = chunks.slice(i, i + INSERT_CHUNKS).map((c) => ({ ...c, subjects: json(tx, c.subjects) }));
      await tx`insert into batch_chunks ${tx(slice)}`;
    }
    return row;
  });
  if (!batch) throw new Error('batch insert returned nothing');
  return batch;
}

/** Queues every chunk of a batch (msgID dedup makes a repeat within the stream window a no-op; the worker is
 * idempotent beyond it) and marks the batch processing. */
export async function publishChunks(
  deps: { sql: Sql; bus: Bus },
  batch: Pick<BatchRow, 'id' | 'tenant_id' | 'subject_count' | 'chunk_size'>,
) {
  for (let from = 0; from < batch.subject_count; from += batch.chunk_size) {
    const job: ChunkJob = {
      batch_id: batch.id,
      tenant_id: batch.tenant_id,
      from,
      to: Math.min(from + batch.chunk_size, batch.subject_count),
    };
    await deps.bus.publishJob('batch_chunk', job, `batch_chunk:${batch.id}:${from}`);
  }
  await deps.sql`update check_batches set status = 'processing', updated_at = now() where id = ${batch.id} and status = 'queued'`;
}

/** Batches committed but never queued (a crash between commit and publish) are queued by a later sweep. */
export async function requeueStranded(deps: { sql: Sql; bus: Bus }): Promise<number> {
  const rows = await deps.sql<BatchRow[]>`
    select * from check_batches where status = 'queued' and created_at < now() - interval '30 seconds' limit 100`;
  for (const b of rows) await publishChunks(deps, b);
  return rows.length;
}
