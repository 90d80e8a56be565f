import { type Static, Type } from '@sinclair/typebox';
import { Cursor, Limit, ListOf, Nullable, StringEnum, Timestamp, Uuid } from './common.js';

export const ActorType = StringEnum(
  ['secret_key', 'publishable_key', 'operator', 'admin', 'system', 'applicant_session'] as const,
  {
    title: 'AuditActorType',
  },
);

export const AuditEventOut = Type.Object(
  {
    id: Uuid,
    actor_type: ActorType,
    actor_id: Nullable(Type.String()),
    action: Type.String({
      description: 'e.g. applicant.updated, applicant.erased, or the operationId of the call',
    }),
    resource_type: Type.String(),
    resource_id: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'identifiers, field names and keyed hashes; never personal data',
    }),
    created_at: Timestamp,
  },
  { title: 'AuditEvent' },
);
export type AuditEventOut = Static<typeof AuditEventOut>;

export const AuditListQuery = Type.Object(
  {
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    actor_type: Type.Optional(ActorType),
    actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    resource_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    resource_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    since: Type.Optional(Timestamp),
    until: Type.Optional(Timestamp),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditListOut = ListOf(AuditEventOut, 'AuditEventListOut');
