import { type Static, Type } from '@sinclair/typebox';
import {
  AmlDataset,
  Cursor,
  Limit,
  Nullable,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  Uuid,
} from './common.js';

export const CHECK_TYPES = [
  'aml_screen',
  'country_risk',
  'ip_risk',
  'device_fingerprint',
  'document',
  'selfie',
] as const;
export const CheckType = StringEnum(CHECK_TYPES, { title: 'CheckType' });
export type CheckType = Static<typeof CheckType>;

export const CheckStatus = StringEnum(['completed', 'failed'] as const, { title: 'CheckStatus' });
export const CHECK_RESULTS = ['clear', 'hit', 'error', 'not_applicable'] as const;
export const CheckResult = StringEnum(CHECK_RESULTS, { title: 'CheckResult' });
export const CheckDecision = StringEnum(['AUTO_APPROVED', 'MANUAL_REVIEW', 'REJECTED'] as const, {
  title: 'CheckDecision',
});

export const AmlMatchOut = Type.Object(
  {
    entity_id: Type.String(),
    source: Type.String(),
    source_id: Type.String(),
    schema: Type.String(),
    name: Type.String(),
    score: Type.Number(),
    datasets: Type.Array(Type.String()),
    programs: Type.Array(Type.String()),
    evidence: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'AmlMatch' },
);

export const CheckOut = Type.Object(
  {
    id: Uuid,
    flow_id: Nullable(Uuid),
    applicant_id: Nullable(Uuid),
    applicant_name: Nullable(Type.String()),
    batch_id: Nullable(Uuid),
    check_type: CheckType,
    status: CheckStatus,
    result: CheckResult,
    decision: Nullable(CheckDecision),
    reason_codes: Type.Optional(Type.Array(Type.String(), { description: 'signals this check raised' })),
    mode: StringEnum(['sync', 'async'] as const),
    use_case: Nullable(Type.String()),
    input_ref: Nullable(Type.String()),
    reference: Type.Optional(Nullable(Type.String())),
    latency_ms: Type.Number(),
    dataset_versions: Type.Array(Type.String()),
    datasets: Type.Array(AmlDataset),
    policy_version: Nullable(Type.String()),
    error: Nullable(Type.String()),
    evidence: Type.Record(Type.String(), Type.Unknown()),
    alert_count: Type.Integer(),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
  },
  { title: 'Check' },
);
export type CheckOut = Static<typeof CheckOut>;

export const CheckParams = Type.Object({ check_id: Uuid }, { additionalProperties: false });

export const CheckListQuery = Type.Object(
  {
    check_type: Type.Optional(CheckType),
    status: Type.Optional(CheckStatus),
    result: Type.Optional(CheckResult),
    applicant_id: Type.Optional(Uuid),
    flow_id: Type.Optional(Uuid),
    batch_id: Type.Optional(Uuid),
    use_case: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    decision: Type.Optional(CheckDecision),
    dataset: Type.Optional(AmlDataset),
    reference: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The applicant's external_id, exact" }),
    ),
    input_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case-insensitive substring of the screened name or the reference',
      }),
    ),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type CheckListQuery = Static<typeof CheckListQuery>;

export const CheckListOut = Type.Object(
  { items: Type.Array(CheckOut), next_cursor: Nullable(Type.String()) },
  { title: 'CheckListOut' },
);

// The Alert resource (AlertState, AlertOut, …) lives in schemas/alerts.ts.
