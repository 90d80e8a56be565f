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

export const MAX_BATCH_RECORDS = 100_000;
export const MAX_SUBJECTS_PER_RECORD = 10;

export const CHECK_USE_CASES = ['onboarding', 'lookback', 'ongoing', 'payment'] as const;
export const CheckUseCase = StringEnum(CHECK_USE_CASES, { title: 'CheckUseCase' });
export const BatchStatus = StringEnum(['queued', 'processing', 'completed', 'failed'] as const, {
  title: 'BatchStatus',
});

export const BatchRecordIn = Type.Object(
  {
    applicant_id: Type.Optional(Uuid),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    subjects: Type.Array(SubjectIn, { minItems: 1, maxItems: MAX_SUBJECTS_PER_RECORD }),
  },
  { additionalProperties: false, title: 'BatchRecordIn' },
);

export const CheckBatchCreateIn = Type.Object(
  {
    records: Type.Array(BatchRecordIn, { minItems: 1, maxItems: MAX_BATCH_RECORDS }),
    datasets: Type.Optional(Nullable(Type.Array(AmlDataset, { minItems: 1, uniqueItems: true }))),
    mode: Type.Optional(StringEnum(['async'] as const, { description: 'batches always run asynchronously' })),
    use_case: Type.Optional(CheckUseCase),
  },
  { additionalProperties: false, title: 'CheckBatchCreateIn' },
);
export type CheckBatchCreateIn = Static<typeof CheckBatchCreateIn>;

export const CheckBatchOut = Type.Object(
  {
    id: Uuid,
    status: BatchStatus,
    use_case: CheckUseCase,
    datasets: Type.Array(AmlDataset),
    mode: Type.String(),
    subject_count: Type.Integer(),
    completed_count: Type.Integer(),
    error_count: Type.Integer(),
    error: Nullable(Type.String()),
    policy_version: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: NullableTimestamp,
  },
  { title: 'CheckBatch' },
);
export type CheckBatchOut = Static<typeof CheckBatchOut>;

export const CheckBatchListOut = Type.Object(
  { items: Type.Array(CheckBatchOut), next_cursor: Nullable(Type.String()) },
  { title: 'CheckBatchListOut' },
);
export const BatchParams = Type.Object({ batch_id: Uuid }, { additionalProperties: false });
export const BatchListQuery = Type.Object(
  { status: Type.Optional(BatchStatus), limit: Type.Optional(Limit), after: Type.Optional(Cursor) },
  { additionalProperties: false },
);
