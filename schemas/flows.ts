import { type Static, Type } from '@sinclair/typebox';
import { CheckOut } from './checks.js';
import {
  AmlDataset,
  ApplicantSummaryOut,
  Cursor,
  Limit,
  ListOf,
  Nullable,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  Uuid,
} from './common.js';
import { DocumentOut } from './documents.js';

export const FLOW_STATUSES = [
  'PENDING',
  'AWAITING_INPUT',
  'PROCESSING',
  'NEEDS_REVIEW',
  'APPROVED',
  'REJECTED',
  'FAILED',
] as const;
export const FlowStatus = StringEnum(FLOW_STATUSES, { title: 'FlowStatus' });
export type FlowStatus = Static<typeof FlowStatus>;

export const FLOW_DECISIONS = ['AUTO_APPROVED', 'MANUAL_REVIEW', 'REJECTED'] as const;
export const FlowDecision = StringEnum(FLOW_DECISIONS, { title: 'FlowDecision' });
export type FlowDecision = Static<typeof FlowDecision>;

export const FLOW_TYPES = ['kyc', 'kyb', 'id_document', 'aml_screening'] as const;
export const FlowType = StringEnum(FLOW_TYPES, { title: 'FlowType' });
export type FlowType = Static<typeof FlowType>;

export const ExecutionMode = StringEnum(['sync', 'async'] as const, { title: 'ExecutionMode' });
export type ExecutionMode = Static<typeof ExecutionMode>;

const Iso2 = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 country code' });
const ShortText = Type.String({ minLength: 1, maxLength: 200 });
/** Kept like the e-mail: a keyed hash and a hint, never the value (docs/decisions.md, "The applicant's journey"). */
export const Phone = Type.String({
  pattern: '^\\+[1-9][0-9]{6,14}$',
  description: 'E.164, e.g. +14155550123; stored as phone_hash + phone_hint',
});
export const TaxId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9 ./-]{0,63}$',
  description: 'national tax identifier; stored as tax_id_hash + tax_id_hint',
});

export const ApplicantIn = Type.Object(
  {
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    entity_type: Type.Optional(StringEnum(['individual', 'business'] as const)),
    legal_name_first: Type.Optional(ShortText),
    legal_name_middle: Type.Optional(ShortText),
    legal_name_last: Type.Optional(ShortText),
    business_name: Type.Optional(ShortText),
    dob: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
    nationality: Type.Optional(Iso2),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    phone: Type.Optional(Phone),
    tax_id: Type.Optional(TaxId),
    address_line1: Type.Optional(ShortText),
    address_line2: Type.Optional(ShortText),
    address_city: Type.Optional(ShortText),
    address_region: Type.Optional(ShortText),
    address_postal_code: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    address_country: Type.Optional(Iso2),
    consent: Type.Optional(
      Type.Object(
        {
          biometric: Type.Optional(Type.Boolean()),
          policy_version: Type.Optional(Type.String({ maxLength: 64 })),
        },
        { additionalProperties: false },
      ),
    ),
    custom_attributes: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 64 }),
        Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()]),
        {
          maxProperties: 50,
        },
      ),
    ),
  },
  { additionalProperties: false, title: 'ApplicantIn' },
);
export type ApplicantIn = Static<typeof ApplicantIn>;

export const DeviceIn = Type.Object(
  {
    visitor_id: Type.String({ minLength: 1, maxLength: 200 }),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false, title: 'DeviceIn' },
);

export const FlowCreateIn = Type.Object(
  {
    applicant: ApplicantIn,
    datasets: Type.Optional(Type.Array(AmlDataset, { minItems: 1, uniqueItems: true })),
    device: Type.Optional(DeviceIn),
    mode: Type.Optional(ExecutionMode),
    template_slug: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' })),
    type: Type.Optional(FlowType),
  },
  { additionalProperties: false, title: 'FlowCreateIn' },
);
export type FlowCreateIn = Static<typeof FlowCreateIn>;

export const FlowResult = StringEnum(['approved', 'review', 'denied', 'pending'] as const, {
  title: 'FlowResult',
});
export type FlowResult = Static<typeof FlowResult>;

export const FlowOut = Type.Object(
  {
    id: Uuid,
    applicant_id: Uuid,
    applicant: Type.Optional(
      Nullable(
        Type.Object(ApplicantSummaryOut.properties, {
          description: 'in a list of flows: the applicant at a glance (null once erased)',
        }),
      ),
    ),
    type: FlowType,
    status: FlowStatus,
    decision: Nullable(FlowDecision),
    decision_reason_codes: Type.Array(Type.String()),
    result: Type.Optional(FlowResult),
    execution_mode: ExecutionMode,
    datasets: Type.Optional(Type.Array(AmlDataset)),
    checks: Type.Optional(Type.Array(CheckOut)),
    documents: Type.Optional(Type.Array(DocumentOut)),
    missing_inputs: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'what an open flow still waits for, in journey order: consent, each missing intake field by name ' +
          '(legal_name, dob, …), document, document_chip (passport_nfc_behavior required), selfie, submission ' +
          '(the applicant has not submitted yet); on a ' +
          'single flow that is PENDING or AWAITING_INPUT',
      }),
    ),
    client_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    extracted_fields: Type.Record(Type.String(), Type.Unknown()),
    failure_reason: Nullable(Type.String()),
    flow_template_id: Type.Optional(Nullable(Uuid)),
    template_slug: Type.Optional(Nullable(Type.String())),
    policy_version: Type.Optional(Type.String()),
    reviewed_by: Type.Optional(Nullable(Type.String({ description: 'who decided the flow in review' }))),
    reviewed_at: Type.Optional(NullableTimestamp),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
  },
  { title: 'Flow' },
);
export type FlowOut = Static<typeof FlowOut>;

export const FLOW_KINDS = ['checks_only', 'document_verification'] as const;
export const FlowKind = StringEnum(FLOW_KINDS, { title: 'FlowKind' });
export const FLOW_STATES = [
  'pending',
  'awaiting_input',
  'processing',
  'needs_review',
  'approved',
  'rejected',
  'failed',
] as const;
export const FlowState = StringEnum(FLOW_STATES, { title: 'FlowState' });
export const FlowOutcome = StringEnum(['pending', 'approved', 'in_review'] as const, {
  title: 'FlowOutcome',
});

const { status: _s, decision: _d, result: _r, ...shapeAFields } = FlowOut.properties;
/** Shape B (the AML rerun's response): kind/state/outcome replace status/decision/result. */
export const FlowOutB = Type.Object(
  {
    ...shapeAFields,
    kind: FlowKind,
    state: FlowState,
    outcome: Type.Optional(FlowOutcome),
    extracted_field_sources: Type.Optional(Type.Record(Type.String(), Type.String())),
    template_name: Type.Optional(Nullable(Type.String())),
  },
  { title: 'FlowShapeB' },
);
export type FlowOutB = Static<typeof FlowOutB>;

export const FlowDecideIn = Type.Object(
  {
    decision: FlowDecision,
    reason_codes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z0-9_]{1,64}$' }), { maxItems: 20, uniqueItems: true }),
    ),
  },
  { additionalProperties: false, title: 'FlowDecideIn' },
);
export type FlowDecideIn = Static<typeof FlowDecideIn>;

export const ProcessAccepted = Type.Object(
  { status: Type.Literal('accepted'), flow_id: Uuid },
  { title: 'ProcessAccepted', additionalProperties: Type.String() },
);

export const RedactedFlowOut = Type.Object(
  { id: Uuid, reason_codes: Type.Array(Type.String()), result: FlowResult },
  { title: 'RedactedFlow' },
);
/** The media type of the redacted flow (a publishable key's answer), so that the two answers of POST /v1/flows
 * are told apart by their Content-Type, and typed clients get one type per credential. */
export const REDACTED_FLOW_MEDIA_TYPE = 'application/vnd.veriscreen.redacted-flow+json';

export const FlowParams = Type.Object({ flow_id: Uuid }, { additionalProperties: false });

export const FlowListQuery = Type.Object(
  {
    status: Type.Optional(FlowStatus),
    decision: Type.Optional(FlowDecision),
    type: Type.Optional(FlowType),
    exclude_type: Type.Optional(FlowType),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type FlowListQuery = Static<typeof FlowListQuery>;

export const FlowListOut = ListOf(FlowOut, 'FlowListOut');
