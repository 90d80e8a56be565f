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
import { SubjectIn } from './subjects.js';

export const MonitorStatus = StringEnum(['active', 'paused', 'failed'] as const, { title: 'MonitorStatus' });

export const MonitorCreateIn = Type.Object(
  {
    subjects: Type.Array(SubjectIn, { minItems: 1, maxItems: 20 }),
    applicant_id: Type.Optional(Uuid),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    datasets: Type.Optional(Nullable(Type.Array(AmlDataset, { minItems: 1, uniqueItems: true }))),
    run_immediately: Type.Optional(Type.Boolean({ default: true })),
    interval_hours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 24 * 90, default: 24, description: 'rescreen schedule' }),
    ),
  },
  { additionalProperties: false, title: 'MonitorCreateIn' },
);
export type MonitorCreateIn = Static<typeof MonitorCreateIn>;

export const MonitorOut = Type.Object(
  {
    id: Uuid,
    applicant_id: Nullable(Uuid),
    external_id: Nullable(Type.String()),
    datasets: Type.Array(AmlDataset),
    status: MonitorStatus,
    subjects: Type.Array(SubjectIn),
    use_case: Type.String(),
    policy_version: Type.String(),
    failure_reason: Nullable(Type.String()),
    last_check_id: Nullable(Uuid),
    last_checked_at: NullableTimestamp,
    last_dataset_partition: Nullable(
      Type.String({ description: 'the dataset version the monitor was last screened against' }),
    ),
    next_due_at: NullableTimestamp,
    interval_hours: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Monitor' },
);
export type MonitorOut = Static<typeof MonitorOut>;

export const MonitorListQuery = Type.Object(
  {
    status: Type.Optional(MonitorStatus),
    applicant_id: Type.Optional(Uuid),
    use_case: Type.Optional(Type.String({ maxLength: 64 })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const MonitorListOut = Type.Object(
  { items: Type.Array(MonitorOut), next_cursor: Nullable(Type.String()) },
  { title: 'MonitorListOut' },
);
export const MonitorParams = Type.Object({ monitor_id: Uuid }, { additionalProperties: false });
