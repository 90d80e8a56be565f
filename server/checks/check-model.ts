import type { CheckOut } from '../../schemas/checks.js';

export interface CheckRow {
  id: string;
  seq: string;
  flow_id: string | null;
  applicant_id: string | null;
  applicant_name: string | null;
  batch_id: string | null;
  check_type: CheckOut['check_type'];
  status: CheckOut['status'];
  result: CheckOut['result'];
  decision: CheckOut['decision'];
  reason_codes: string[];
  mode: CheckOut['mode'];
  use_case: string | null;
  input_ref: string | null;
  reference: string | null;
  run_key: string | null;
  latency_ms: number;
  dataset_versions: string[];
  datasets: CheckOut['datasets'];
  policy_version: string | null;
  error: string | null;
  evidence: Record<string, unknown>;
  alert_count: number;
  created_at: Date;
  completed_at: Date | null;
}

export function checkOut(r: CheckRow): CheckOut {
  return {
    id: r.id,
    flow_id: r.flow_id,
    applicant_id: r.applicant_id,
    applicant_name: r.applicant_name,
    batch_id: r.batch_id,
    check_type: r.check_type,
    status: r.status,
    result: r.result,
    decision: r.decision,
    reason_codes: r.reason_codes ?? [],
    mode: r.mode,
    use_case: r.use_case,
    input_ref: r.input_ref,
    reference: r.reference ?? null,
    latency_ms: r.latency_ms,
    dataset_versions: r.dataset_versions,
    datasets: r.datasets,
    policy_version: r.policy_version,
    error: r.error,
    evidence: r.evidence,
    alert_count: r.alert_count,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
  };
}
