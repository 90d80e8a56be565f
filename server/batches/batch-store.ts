import type { CheckBatchOut } from '../../schemas/batches.js';

export interface BatchRow {
  id: string;
  seq: string;
  tenant_id: string;
  status: CheckBatchOut['status'];
  use_case: CheckBatchOut['use_case'];
  datasets: CheckBatchOut['datasets'];
  mode: string;
  policy_version: string;
  subject_count: number;
  completed_count: number;
  error_count: number;
  chunk_size: number;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export function batchOut(b: BatchRow): CheckBatchOut {
  return {
    id: b.id,
    status: b.status,
    use_case: b.use_case,
    datasets: b.datasets,
    mode: b.mode,
    subject_count: b.subject_count,
    completed_count: b.completed_count,
    error_count: b.error_count,
    error: b.error,
    policy_version: b.policy_version,
    created_at: b.created_at.toISOString(),
    updated_at: b.updated_at.toISOString(),
    completed_at: b.completed_at?.toISOString() ?? null,
  };
}
