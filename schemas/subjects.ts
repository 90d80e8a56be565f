import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const SubjectType = StringEnum(['person', 'company', 'organization', 'vessel', 'aircraft'] as const, {
  title: 'SubjectType',
});

/** A subject to screen: the CLI's input line and the spec's monitored or batched subject. Only name is required. */
export const SubjectIn = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 200 })),
    reference_id: Type.Optional(Type.String({ maxLength: 200 })),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    type: Type.Optional(SubjectType),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 50 })),
    date_of_birth: Type.Optional(
      Type.String({
        format: 'partial-date',
        pattern: '^\\d{4}(-\\d{2}(-\\d{2})?)?$',
        description: 'YYYY, YYYY-MM or YYYY-MM-DD; a month or day the calendar has',
      }),
    ),
    nationality: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    identifiers: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 200 }))),
    imo_number: Type.Optional(Type.String({ maxLength: 20 })),
    mmsi: Type.Optional(Type.String({ maxLength: 20 })),
    registration_number: Type.Optional(Type.String({ maxLength: 100 })),
    role: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false, title: 'Subject' },
);
export type SubjectIn = Static<typeof SubjectIn>;

/** The list schemas a pair can be compared as (ingest/entity.ts ENTITY_SCHEMAS; a test pins them equal). */
export const CompareSchema = StringEnum(
  ['Person', 'Organization', 'Company', 'LegalEntity', 'Vessel', 'Aircraft'] as const,
  { title: 'CompareSchema' },
);

export const CompareIn = Type.Object(
  {
    schema: Type.Optional(CompareSchema),
    a: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), SubjectIn]),
    b: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), SubjectIn]),
  },
  { additionalProperties: false, title: 'CompareIn' },
);
export type CompareIn = Static<typeof CompareIn>;
