import { AlertOut, AlertParams } from '../../schemas/checks.js';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { requireTenant } from '../auth/authenticate.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';

interface AlertRow {
  id: string;
  check_id: string;
  state: AlertOut['state'];
  subject_ref: string;
  source_entity_id: string;
  evidence: Record<string, unknown>;
  four_eyes_required: boolean;
  assigned_to: string | null;
  reviewed_by: string | null;
  disposed_by: string | null;
  disposed_at: Date | null;
  disposition_reason: string | null;
  disposition_evidence: Record<string, unknown>[];
  escalated_at: Date | null;
  queue_sla_at: Date | null;
  created_at: Date;
  updated_at: Date;
  a_id: string | null;
  a_external_id: string | null;
  a_name: string | null;
  c_applicant_id: string | null;
  c_decision: 'AUTO_APPROVED' | 'MANUAL_REVIEW' | 'REJECTED' | null;
  c_input_ref: string | null;
  c_latency_ms: number;
  c_mode: string;
  c_status: 'completed' | 'failed';
  c_use_case: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Minimal read of an alert raised by a check (the alerts issue adds the workflow). */
export function alertRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/alerts/{alert_id}',
      operationId: 'getAlert',
      summary: 'Get an alert with its applicant and check summaries',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      responses: {
        200: { description: 'The alert', schema: AlertOut },
        401: { description: 'Missing, malformed or unknown credential', schema: ErrorEnvelope },
        403: { description: 'A publishable key cannot read alerts', schema: ErrorEnvelope },
        404: { description: 'Not found in this tenant', schema: ErrorEnvelope },
        422: { description: 'Validation error', schema: ValidationFailure },
      },
      handler: async ({ params, principal }) => {
        const tenant = requireTenant(principal);
        const [r] = await sql<AlertRow[]>`
          select al.*, a.id as a_id, a.external_id as a_external_id, c.applicant_name as a_name,
            c.applicant_id as c_applicant_id, c.decision as c_decision, c.input_ref as c_input_ref,
            c.latency_ms as c_latency_ms, c.mode as c_mode, c.status as c_status, c.use_case as c_use_case
          from alerts al
          join checks c on c.id = al.check_id and c.tenant_id = al.tenant_id
          left join applicants a on a.id = al.applicant_id and a.tenant_id = al.tenant_id and a.erased_at is null
          where al.id = ${params.alert_id} and al.tenant_id = ${tenant.tenant_id}`;
        if (!r) throw new ApiError('not_found', { message: 'Alert not found' });
        const body: AlertOut = {
          id: r.id,
          check_id: r.check_id,
          state: r.state,
          subject_ref: r.subject_ref,
          source_entity_id: r.source_entity_id,
          evidence: r.evidence,
          four_eyes_required: r.four_eyes_required,
          assigned_to: r.assigned_to,
          reviewed_by: r.reviewed_by,
          disposed_by: r.disposed_by,
          disposed_at: iso(r.disposed_at),
          disposition_reason: r.disposition_reason,
          disposition_evidence: r.disposition_evidence,
          escalated_at: iso(r.escalated_at),
          queue_sla_at: iso(r.queue_sla_at),
          created_at: r.created_at.toISOString(),
          updated_at: r.updated_at.toISOString(),
          applicant: r.a_id ? { id: r.a_id, external_id: r.a_external_id, name: r.a_name } : null,
          assignee: null,
          check: {
            id: r.check_id,
            applicant_id: r.c_applicant_id,
            decision: r.c_decision,
            input_ref: r.c_input_ref,
            latency_ms: r.c_latency_ms,
            mode: r.c_mode,
            status: r.c_status,
            use_case: r.c_use_case,
          },
        };
        return { status: 200, body };
      },
    }),
  ];
}
