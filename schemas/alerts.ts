import { type Static, Type } from '@sinclair/typebox';
import { CheckDecision, CheckStatus } from './checks.js';
import {
  ApplicantSummaryOut,
  Cursor,
  Limit,
  Nullable,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  Uuid,
} from './common.js';

/** The alert states (the machine is server/alerts/alert-states.ts; docs/decisions/alerts-webhooks.md). */
export const ALERT_STATES = [
  'open',
  'in_review',
  'escalated',
  'pending_approval',
  'closed_true_match',
  'closed_false_positive',
] as const;
export const AlertState = StringEnum(ALERT_STATES, {
  title: 'AlertState',
  description:
    'open → in_review (assigned) → escalated → pending_approval (four-eyes) → closed_true_match | closed_false_positive',
});
export type AlertState = Static<typeof AlertState>;

export const DISPOSITIONS = ['true_match', 'false_positive'] as const;
export const AlertDisposition = StringEnum(DISPOSITIONS, { title: 'AlertDisposition' });
export type AlertDisposition = Static<typeof AlertDisposition>;

/** The subject as its check screened it (the aml_screen evidence's first subject), whoever raised the alert: a flow's
 * applicant, a batch record or a monitored subject. */
export const ScreenedSubjectOut = Type.Object(
  {
    name: Type.String(),
    type: Type.Optional(Type.String()),
    aliases: Type.Optional(Type.Array(Type.String())),
    date_of_birth: Type.Optional(Type.String()),
    nationality: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
  },
  { description: 'The subject as screened, from the check that raised the alert' },
);
export type ScreenedSubjectOut = Static<typeof ScreenedSubjectOut>;

export const AlertOut = Type.Object(
  {
    id: Uuid,
    check_id: Uuid,
    state: AlertState,
    subject_ref: Type.String(),
    source_entity_id: Type.String(),
    evidence: Type.Record(Type.String(), Type.Unknown()),
    four_eyes_required: Type.Boolean(),
    assigned_to: Nullable(Type.String()),
    reviewed_by: Nullable(Type.String()),
    disposed_by: Nullable(Type.String()),
    disposed_at: NullableTimestamp,
    disposition_reason: Nullable(Type.String()),
    disposition_evidence: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    escalated_at: NullableTimestamp,
    queue_sla_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    applicant: Nullable(ApplicantSummaryOut),
    assignee: Nullable(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
    subject: Nullable(ScreenedSubjectOut),
    check: Nullable(
      Type.Object({
        id: Uuid,
        applicant_id: Nullable(Uuid),
        decision: Nullable(CheckDecision),
        input_ref: Nullable(Type.String()),
        reference: Nullable(
          Type.String({ description: "the customer's reference the check was recorded with (external_id)" }),
        ),
        latency_ms: Type.Number(),
        mode: Type.String(),
        status: CheckStatus,
        use_case: Nullable(Type.String()),
      }),
    ),
    // beyond the spec: the workflow's own fields
    flow_id: Nullable(Uuid),
    batch_id: Nullable(Uuid),
    monitor_id: Nullable(Uuid),
    applicant_id: Nullable(Uuid),
    disposition: Nullable(AlertDisposition),
    proposed_at: NullableTimestamp,
    reviewed_at: NullableTimestamp,
    review_reason: Nullable(Type.String()),
  },
  { title: 'Alert' },
);
export type AlertOut = Static<typeof AlertOut>;

export const AlertParams = Type.Object({ alert_id: Uuid }, { additionalProperties: false });

export const AlertListQuery = Type.Object(
  {
    state: Type.Optional(AlertState),
    assignee: Type.Optional(
      Type.Union([Type.Literal('me'), Type.Literal('none'), Uuid], {
        description: 'An operator id, "me" (the calling operator) or "none" (unassigned)',
      }),
    ),
    check_id: Type.Optional(Uuid),
    applicant_id: Type.Optional(Uuid),
    flow_id: Type.Optional(Uuid),
    batch_id: Type.Optional(Uuid),
    due_before: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Alerts not closed whose queue_sla_at is before this',
      }),
    ),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type AlertListQuery = Static<typeof AlertListQuery>;

export const AlertListOut = Type.Object(
  { items: Type.Array(AlertOut), next_cursor: Nullable(Type.String()) },
  { title: 'AlertListOut' },
);

export const AlertAssignIn = Type.Object(
  { assignee_id: Nullable(Uuid) },
  { additionalProperties: false, title: 'AlertAssignIn' },
);
export type AlertAssignIn = Static<typeof AlertAssignIn>;

export const AlertDispositionIn = Type.Object(
  {
    disposition: AlertDisposition,
    reason: Type.String({ minLength: 1, maxLength: 4000 }),
    evidence: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 100 })),
  },
  { additionalProperties: false, title: 'AlertDispositionIn' },
);
export type AlertDispositionIn = Static<typeof AlertDispositionIn>;

export const AlertRejectIn = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 4000 }) },
  { additionalProperties: false, title: 'AlertRejectIn' },
);
export type AlertRejectIn = Static<typeof AlertRejectIn>;
