import { type Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.js';

export const TenantPlan = StringEnum(['self_serve', 'contract'] as const, { title: 'TenantPlan' });
export const TenantStatus = StringEnum(['active', 'pending_verification', 'suspended'] as const, {
  title: 'TenantStatus',
});
export type TenantStatus = Static<typeof TenantStatus>;

const Origin = Type.String({
  pattern: '^https?://[^/\\s]+$',
  maxLength: 255,
  description: 'An exact origin: scheme://host[:port], no path',
});

export const TenantCreateIn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Type.Optional(TenantPlan),
    allowance: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    allowed_origins: Type.Optional(Type.Array(Origin, { maxItems: 50 })),
    status: Type.Optional(
      StringEnum(['active', 'pending_verification'] as const, {
        description: 'Initial status (default active)',
      }),
    ),
  },
  { additionalProperties: false, title: 'TenantCreateIn' },
);
export type TenantCreateIn = Static<typeof TenantCreateIn>;

export const TenantCreatedOut = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    plan: TenantPlan,
    status: TenantStatus,
    allowance: Nullable(Type.Integer()),
    allowed_origins: Type.Array(Type.String()),
    secret_key: Type.String({ description: 'tnk_… shown only once' }),
    publishable_key: Type.String({ description: 'pk_… shown only once' }),
    created_at: Timestamp,
  },
  { title: 'TenantCreatedOut' },
);
export type TenantCreatedOut = Static<typeof TenantCreatedOut>;
