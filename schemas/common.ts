import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { AML_DATASET_VALUES } from './aml-datasets.js';

export const Uuid = Type.String({
  format: 'uuid',
  description: 'UUID (either case; stored and answered in lower case)',
});
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export { AML_DATASET_VALUES };
export const AmlDataset = Type.Unsafe<(typeof AML_DATASET_VALUES)[number]>({
  type: 'string',
  enum: [...AML_DATASET_VALUES],
  title: 'AmlDataset',
  description: 'An AML dataset category',
});
export type AmlDataset = Static<typeof AmlDataset>;

export const ValidationErrorItem = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
      description: 'Path to the offending input, e.g. ["body","datasets"] or ["query","limit"]',
    }),
    msg: Type.String(),
    type: Type.String({ description: 'Machine-readable error type, e.g. missing, type, enum, json_invalid' }),
  },
  { title: 'ValidationError' },
);
export type ValidationErrorItem = Static<typeof ValidationErrorItem>;

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'Stable machine-readable error code' }),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'ErrorBody' },
);

export const ErrorEnvelope = Type.Object({ error: ErrorBody }, { title: 'Error' });
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export const ValidationFailure = Type.Object(
  { detail: Type.Array(ValidationErrorItem), error: ErrorBody },
  { title: 'HTTPValidationError' },
);

export const AllowanceExhausted = Type.Object(
  {
    error: Type.Object({
      code: Type.Literal('allowance_exhausted'),
      message: Type.String(),
      details: Type.Object({ allowance: Type.Integer(), consumed: Type.Integer() }),
    }),
  },
  { title: 'AllowanceExhausted' },
);

export const StringMap = Type.Record(Type.String(), Type.String());

export const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
export const Cursor = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Opaque cursor from next_cursor',
});

/** An applicant as other objects embed it (an alert's, a flow's): who it is at a glance. Null once erased. */
export const ApplicantSummaryOut = Type.Object({
  id: Uuid,
  external_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
});

export const ListOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) }, { title });

/** A string enum as JSON Schema `enum` (clearer validation messages than anyOf of consts). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  opts: { title?: string; description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
