import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { AlertDisposition, AlertState } from './alerts.js';
import { BatchStatus } from './batches.js';
import { CheckDecision, CheckResult, CheckStatus, CheckType } from './checks.js';
import { Nullable, Timestamp, Uuid } from './common.js';
import { FlowDecision, FlowStatus } from './flows.js';

/**
 * The event catalogue: every event the service writes to its outbox and delivers to webhooks, with its payload
 * schema. The single source of the WebhookEvent enum, the `webhooks` section of /openapi.json, the event list of
 * docs/webhooks.md and the payload types of server/outbox/outbox.ts (see "How to add an event" in
 * docs/decisions.md). Payloads carry ids and outcomes, never personal data.
 */
const FlowEvent = Type.Object(
  {
    flow_id: Uuid,
    applicant_id: Uuid,
    status: FlowStatus,
    decision: Nullable(FlowDecision),
    decision_reason_codes: Type.Array(Type.String()),
    /** who decided, for a reviewer's decision */
    reviewed_by: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: 'FlowEventData' },
);

const event = <T extends TSchema>(description: string, payload: T) => ({ description, payload });

export const EVENT_CATALOGUE = {
  'flow.created': event('A flow was created (any mode).', FlowEvent),
  'flow.completed': event(
    'A flow left PROCESSING or sync screening: decided, waiting for review, or FAILED.',
    FlowEvent,
  ),
  'flow.decided': event(
    'A flow got its decision: by the rules, or by a reviewer (`reviewed_by`).',
    FlowEvent,
  ),
  'check.completed': event(
    "A flow's check was recorded (batches report batch.completed, monitors monitor.match).",
    Type.Object(
      {
        check_id: Uuid,
        flow_id: Uuid,
        check_type: CheckType,
        status: CheckStatus,
        result: CheckResult,
        decision: Nullable(CheckDecision),
        alert_count: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  ),
  'alert.created': event(
    'A screening raised an alert: one matched list entity for one subject (flow, batch or monitor).',
    Type.Object(
      {
        alert_id: Uuid,
        check_id: Uuid,
        flow_id: Nullable(Uuid),
        batch_id: Nullable(Uuid),
        monitor_id: Nullable(Uuid),
        source_entity_id: Type.String(),
        state: AlertState,
        four_eyes_required: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
  ),
  'alert.updated': event(
    'An alert changed: assigned, disposed, escalated, approved, rejected, or its evidence refreshed by a later screening.',
    Type.Object(
      {
        alert_id: Uuid,
        check_id: Uuid,
        action: Type.String({
          description: 'assign, dispose, escalate, review, approve, reject, evidence_refreshed',
        }),
        previous_state: AlertState,
        state: AlertState,
        actor_id: Nullable(Type.String()),
        assigned_to: Nullable(Type.String()),
        disposition: Nullable(AlertDisposition),
        /** for evidence_refreshed: the check whose screening refreshed it */
        refreshed_by_check_id: Type.Optional(Uuid),
      },
      { additionalProperties: false },
    ),
  ),
  'batch.completed': event(
    'Every subject of a check batch was screened or counted as an error.',
    Type.Object(
      {
        batch_id: Uuid,
        status: BatchStatus,
        subject_count: Type.Integer(),
        completed_count: Type.Integer(),
        error_count: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  ),
  'monitor.match': event(
    "A monitor's rescreen raised alerts.",
    Type.Object(
      { monitor_id: Uuid, check_id: Uuid, alert_ids: Type.Array(Uuid), dataset_version: Type.String() },
      { additionalProperties: false },
    ),
  ),
  'dataset_version.promoted': event(
    'A dataset version became the active one (sent to every subscribed tenant).',
    Type.Object(
      { dataset_version_id: Uuid, name: Type.String(), promoted_at: Nullable(Timestamp) },
      { additionalProperties: false },
    ),
  ),
  'verification.started': event(
    "The applicant opened the flow's verification link for the first time (docs/journey.md).",
    Type.Object(
      { flow_id: Uuid, applicant_id: Uuid, link_id: Uuid, session_id: Uuid },
      { additionalProperties: false },
    ),
  ),
  'verification.submitted': event(
    'The applicant submitted the verification: every input was there; the flow processes next.',
    Type.Object({ flow_id: Uuid, applicant_id: Uuid, session_id: Uuid }, { additionalProperties: false }),
  ),
  'applicant.erased': event(
    "An applicant's personal data was erased (the tombstone keeps ids and counts only).",
    Type.Object(
      { applicant_id: Uuid, erasure_id: Uuid, erased_at: Timestamp },
      { additionalProperties: false },
    ),
  ),
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export type EventPayload<T extends EventType> = Static<(typeof EVENT_CATALOGUE)[T]['payload']>;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** What a webhook endpoint receives for one event. */
export const eventEnvelope = (type: EventType) =>
  Type.Object(
    {
      id: Type.String({ description: 'the event id, the same on every retry' }),
      type: Type.Literal(type),
      created_at: Timestamp,
      data: EVENT_CATALOGUE[type].payload,
    },
    { additionalProperties: false, title: `${type} event` },
  );
