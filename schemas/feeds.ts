import { type Static, Type } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';

const FeedUri = Type.String({
  pattern: '^(file://|s3://|https?://)',
  maxLength: 2000,
  description:
    'https://… (fetched with ETag / If-Modified-Since; single-file formats), s3://bucket/key (a prefix ending in / for directory formats) or file:///path',
});
const FeedPromote = StringEnum(['auto', 'manual'] as const, {
  title: 'DatasetFeedPromote',
  description:
    'auto: a version that passes validation is promoted at once; manual: it is left ready for an admin',
});
const IntervalMinutes = Type.Integer({ minimum: 1, maximum: 10_080, description: 'minutes between fetches' });
const MaxShrink = Type.Number({
  minimum: 0,
  maximum: 1,
  description: 'refuse a list whose entity count fell by more than this fraction of the last accepted one',
});

export const DatasetFeedCreateIn = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    format: Type.String({ minLength: 1, maxLength: 64, description: 'Engine format name, e.g. un_xml' }),
    uri: FeedUri,
    interval_minutes: Type.Optional(IntervalMinutes),
    promote: Type.Optional(FeedPromote),
    max_shrink_fraction: Type.Optional(MaxShrink),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'DatasetFeedCreateIn' },
);
export type DatasetFeedCreateIn = Static<typeof DatasetFeedCreateIn>;

export const DatasetFeedPatchIn = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    uri: Type.Optional(FeedUri),
    interval_minutes: Type.Optional(IntervalMinutes),
    promote: Type.Optional(FeedPromote),
    max_shrink_fraction: Type.Optional(MaxShrink),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'DatasetFeedPatchIn' },
);
export type DatasetFeedPatchIn = Static<typeof DatasetFeedPatchIn>;

export const DatasetFeedStatus = StringEnum(
  ['unchanged', 'ready', 'promoted', 'refused', 'failed', 'error'] as const,
  {
    title: 'DatasetFeedStatus',
    description:
      'outcome of the last fetch: unchanged (304 or same bytes), ready (built, awaiting an admin), promoted, refused (validation: shrank too much), failed (did not parse), error (could not fetch or build after retries)',
  },
);

export const DatasetFeedOut = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    format: Type.String(),
    uri: Type.String(),
    interval_minutes: Type.Integer(),
    promote: FeedPromote,
    max_shrink_fraction: Type.Number(),
    enabled: Type.Boolean(),
    etag: Nullable(Type.String()),
    last_modified: Nullable(Type.String()),
    next_due_at: Timestamp,
    last_checked_at: NullableTimestamp,
    last_status: Nullable(DatasetFeedStatus),
    last_error: Nullable(Type.String()),
    last_version_id: Nullable(Uuid),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'DatasetFeed' },
);
export type DatasetFeedOut = Static<typeof DatasetFeedOut>;

export const DatasetFeedListOut = Type.Object(
  { items: Type.Array(DatasetFeedOut) },
  { title: 'DatasetFeedList' },
);

export const FeedParams = Type.Object({ feed_id: Uuid }, { additionalProperties: false });
