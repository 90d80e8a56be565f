import { type Static, Type } from '@sinclair/typebox';
import { Limit, ListOf, Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';

export const DatasetSource = Type.Object(
  {
    format: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Engine format name, e.g. ofac_sdn_csv, un_xml',
    }),
    uri: Type.String({
      pattern: '^(file://|s3://|https?://)',
      maxLength: 2000,
      description: 'file:///path, s3://bucket/key (a prefix ending in / for directory formats) or https://…',
    }),
  },
  { additionalProperties: false, title: 'DatasetSource' },
);

export const DatasetVersionCreateIn = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    sources: Type.Array(DatasetSource, { minItems: 1, maxItems: 20 }),
    notes: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false, title: 'DatasetVersionCreateIn' },
);
export type DatasetVersionCreateIn = Static<typeof DatasetVersionCreateIn>;

export const DatasetVersionStatus = StringEnum(['building', 'ready', 'failed', 'active'] as const, {
  title: 'DatasetVersionStatus',
});

export const DatasetVersionOut = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    status: DatasetVersionStatus,
    sources: Type.Array(DatasetSource),
    stats: Type.Record(Type.String(), Type.Unknown()),
    notes: Nullable(Type.String()),
    error: Nullable(Type.String()),
    created_at: Timestamp,
    ready_at: NullableTimestamp,
    promoted_at: NullableTimestamp,
    retired_at: NullableTimestamp,
  },
  { title: 'DatasetVersion' },
);
export type DatasetVersionOut = Static<typeof DatasetVersionOut>;

export const DatasetVersionListOut = Type.Object(
  { items: Type.Array(DatasetVersionOut), active: Nullable(DatasetVersionOut) },
  { title: 'DatasetVersionListOut' },
);

export const VersionParams = Type.Object({ version_id: Uuid }, { additionalProperties: false });

export const LINK_RULES = ['identifier', 'ofac_ent_num', 'name_dob_nationality', 'name_country'] as const;

export const EntityLinkOut = Type.Object(
  {
    entity_a: Type.String({ description: 'One entry (`source:source_id`); entity_a < entity_b' }),
    entity_b: Type.String(),
    consolidated_id: Type.String({
      description: 'The consolidated entity both entries belong to (its alerts carry this id)',
    }),
    rule: StringEnum(LINK_RULES, { description: 'The linking rule (docs/matching.md §8)' }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    reason: Type.String({
      description: 'What agreed: the identifier, or the names, date of birth and country',
    }),
  },
  { title: 'EntityLink' },
);

export type EntityLinkOut = Static<typeof EntityLinkOut>;

export const EntityLinkListQuery = Type.Object(
  {
    entity_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 300, description: 'Only the links of this entry' }),
    ),
    rule: Type.Optional(StringEnum(LINK_RULES)),
    limit: Type.Optional(Limit),
    after: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,9}$', description: 'Opaque cursor from next_cursor' }),
    ),
  },
  { additionalProperties: false },
);

export const EntityLinkListOut = ListOf(EntityLinkOut, 'EntityLinkListOut');

export const FatfListings = Type.Record(
  Type.String({ pattern: '^[A-Z]{2}$' }),
  StringEnum(['black', 'grey'] as const),
  {
    title: 'FatfListings',
    description: 'ISO 3166-1 alpha-2 country code → black | grey',
    maxProperties: 300,
  },
);
export type FatfListings = Static<typeof FatfListings>;
/** PUT body: the whole map, never empty (an empty map would silently clear every listing). */
export const FatfListingsIn = Type.Record(
  Type.String({ pattern: '^[A-Z]{2}$' }),
  StringEnum(['black', 'grey'] as const),
  {
    title: 'FatfListingsIn',
    description: 'ISO 3166-1 alpha-2 country code → black | grey; the whole map, at least one entry',
    minProperties: 1,
    maxProperties: 300,
  },
);
