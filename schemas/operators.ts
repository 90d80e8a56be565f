import { type Static, Type } from '@sinclair/typebox';
import { Cursor, Limit, ListOf, StringEnum, Timestamp, Uuid } from './common.js';

export const OPERATOR_ROLES = ['analyst', 'supervisor', 'admin'] as const;
export const OperatorRole = StringEnum(OPERATOR_ROLES, {
  title: 'OperatorRole',
  description: 'analyst works alerts; supervisor approves four-eyes decisions; admin configures the tenant',
});

export const OperatorCreateIn = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: OperatorRole,
    password: Type.String({
      minLength: 12,
      maxLength: 256,
      description: 'initial password, at least 12 characters',
    }),
  },
  { additionalProperties: false, title: 'OperatorCreateIn' },
);
export type OperatorCreateIn = Static<typeof OperatorCreateIn>;

export const OperatorPatchIn = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(OperatorRole),
    disabled: Type.Optional(
      Type.Boolean({ description: 'true signs the operator out everywhere and refuses sign-in' }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 12,
        maxLength: 256,
        description: 'a new password; signs the operator out everywhere',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'OperatorPatchIn' },
);
export type OperatorPatchIn = Static<typeof OperatorPatchIn>;

export const OperatorParams = Type.Object({ operator_id: Uuid }, { additionalProperties: false });

export const OperatorOut = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    role: OperatorRole,
    disabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Operator' },
);
export type OperatorOut = Static<typeof OperatorOut>;

/** Who is who, for every role: names instead of ids wherever the dashboard shows an operator (no e-mails). */
export const OperatorNameOut = Type.Object(
  { id: Uuid, name: Type.String(), role: OperatorRole, disabled: Type.Boolean() },
  { title: 'OperatorName' },
);
export type OperatorNameOut = Static<typeof OperatorNameOut>;
export const OperatorNameListOut = Type.Object(
  { items: Type.Array(OperatorNameOut) },
  { title: 'OperatorNameListOut' },
);

export const OperatorListQuery = Type.Object(
  { role: Type.Optional(OperatorRole), limit: Type.Optional(Limit), after: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const OperatorListOut = ListOf(OperatorOut, 'OperatorListOut');

export const SessionCreateIn = Type.Object(
  {
    tenant_id: Type.String({ format: 'uuid', description: 'the tenant (workspace) to sign in to' }),
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false, title: 'SessionCreateIn' },
);
export type SessionCreateIn = Static<typeof SessionCreateIn>;

export const SessionOut = Type.Object(
  { operator: OperatorOut, tenant_id: Uuid, expires_at: Timestamp },
  { title: 'Session' },
);
