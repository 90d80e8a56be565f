import type { DocumentOut } from '../../schemas/documents.js';
import type { FlowOut, FlowOutB, FlowResult } from '../../schemas/flows.js';
import { type CheckRow, checkOut } from '../checks/check-model.js';

export interface FlowRow {
  id: string;
  seq: string;
  tenant_id: string;
  applicant_id: string;
  flow_template_id: string | null;
  template_slug: string | null;
  type: FlowOut['type'];
  status: FlowOut['status'];
  decision: FlowOut['decision'];
  decision_reason_codes: string[];
  execution_mode: FlowOut['execution_mode'];
  datasets: NonNullable<FlowOut['datasets']>;
  client_metadata: Record<string, unknown>;
  extracted_fields: Record<string, unknown>;
  extracted_field_sources?: Record<string, string>;
  failure_reason: string | null;
  policy_version: string | null;
  process_run: number;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
}

export function resultOf(status: FlowOut['status']): FlowResult {
  switch (status) {
    case 'APPROVED':
      return 'approved';
    case 'REJECTED':
      return 'denied';
    case 'NEEDS_REVIEW':
      return 'review';
    default:
      return 'pending';
  }
}

export function flowOut(
  f: FlowRow,
  checks: CheckRow[] | undefined,
  documents: DocumentOut[] = [],
  missing?: string[],
): FlowOut {
  return {
    id: f.id,
    applicant_id: f.applicant_id,
    type: f.type,
    status: f.status,
    decision: f.decision,
    decision_reason_codes: f.decision_reason_codes,
    result: resultOf(f.status),
    execution_mode: f.execution_mode,
    datasets: f.datasets,
    ...(checks ? { checks: checks.map(checkOut) } : {}),
    documents,
    ...(missing ? { missing_inputs: missing } : {}),
    client_metadata: f.client_metadata,
    extracted_fields: f.extracted_fields,
    failure_reason: f.failure_reason,
    flow_template_id: f.flow_template_id,
    template_slug: f.template_slug,
    ...(f.policy_version ? { policy_version: f.policy_version } : {}),
    reviewed_by: f.reviewed_by ?? null,
    reviewed_at: f.reviewed_at?.toISOString() ?? null,
    created_at: f.created_at.toISOString(),
    completed_at: f.completed_at?.toISOString() ?? null,
  };
}

const OUTCOME: Partial<Record<FlowOut['status'], FlowOutB['outcome']>> = {
  PENDING: 'pending',
  AWAITING_INPUT: 'pending',
  PROCESSING: 'pending',
  NEEDS_REVIEW: 'in_review',
  APPROVED: 'approved',
};

/** Shape B: kind/state/outcome instead of status/decision/result. REJECTED and FAILED have no outcome value
 * in the spec's list, so `outcome` is omitted for them (state says it). */
export function flowOutB(
  f: FlowRow,
  checks: CheckRow[],
  template: { name: string; checks_only: boolean } | null,
  documents: DocumentOut[] = [],
): FlowOutB {
  const { status, decision: _d, result: _r, ...rest } = flowOut(f, checks, documents);
  const outcome = OUTCOME[status];
  return {
    ...rest,
    kind: template && !template.checks_only ? 'document_verification' : 'checks_only',
    state: status.toLowerCase() as FlowOutB['state'],
    ...(outcome ? { outcome } : {}),
    // where each extracted field came from: `mrz` for what the document check read (flows.extracted_field_sources)
    extracted_field_sources: Object.fromEntries(
      Object.keys(f.extracted_fields).map((k) => [k, f.extracted_field_sources?.[k] ?? 'applicant_input']),
    ),
    template_name: template?.name ?? null,
  };
}
