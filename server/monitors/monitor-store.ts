import type { MonitorOut } from '../../schemas/monitors.js';
import type { SubjectIn } from '../../schemas/subjects.js';

export interface MonitorRow {
  id: string;
  seq: string;
  tenant_id: string;
  applicant_id: string | null;
  external_id: string | null;
  subjects: SubjectIn[];
  datasets: MonitorOut['datasets'];
  status: MonitorOut['status'];
  use_case: string;
  policy_version: string;
  failure_reason: string | null;
  interval_hours: number;
  last_check_id: string | null;
  last_checked_at: Date | null;
  last_dataset_partition: string | null;
  next_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function monitorOut(m: MonitorRow): MonitorOut {
  return {
    id: m.id,
    applicant_id: m.applicant_id,
    external_id: m.external_id,
    datasets: m.datasets,
    status: m.status,
    subjects: m.subjects,
    use_case: m.use_case,
    policy_version: m.policy_version,
    failure_reason: m.failure_reason,
    last_check_id: m.last_check_id,
    last_checked_at: m.last_checked_at?.toISOString() ?? null,
    last_dataset_partition: m.last_dataset_partition,
    next_due_at: m.next_due_at?.toISOString() ?? null,
    interval_hours: m.interval_hours,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

export const subjectRef = (m: Pick<MonitorRow, 'id'>) => `monitor:${m.id}`;
