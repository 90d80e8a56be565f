import { type Static, Type } from '@sinclair/typebox';
import { Cursor, Limit, Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';
import { EVENT_TYPES } from './events.js';

/** Every event of the catalogue (schemas/events.ts) can be subscribed to. */
export const WEBHOOK_EVENTS = EVENT_TYPES;
export const WebhookEvent = StringEnum(WEBHOOK_EVENTS, { title: 'WebhookEvent' });
export type WebhookEvent = Static<typeof WebhookEvent>;

const Url = Type.String({ pattern: '^https?://', minLength: 8, maxLength: 2048, description: 'http(s) URL' });
const Events = Type.Array(WebhookEvent, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true });

export const WebhookEndpointCreateIn = Type.Object(
  { url: Url, events: Events },
  { additionalProperties: false, title: 'WebhookEndpointCreateIn' },
);
export type WebhookEndpointCreateIn = Static<typeof WebhookEndpointCreateIn>;

export const WebhookEndpointPatchIn = Type.Object(
  {
    url: Type.Optional(Nullable(Url)),
    events: Type.Optional(Nullable(Events)),
    enabled: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false, title: 'WebhookEndpointPatchIn' },
);
export type WebhookEndpointPatchIn = Static<typeof WebhookEndpointPatchIn>;

const endpointFields = {
  id: Uuid,
  url: Type.String(),
  events: Type.Array(WebhookEvent),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const WebhookEndpointOut = Type.Object(
  {
    ...endpointFields,
    signing_secret: Type.Null({ description: 'the secret is shown only on create and rotation' }),
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointOut = Static<typeof WebhookEndpointOut>;

/** The answer of create and rotate_secret: the only ones that carry the signing secret. */
export const WebhookEndpointWithSecretOut = Type.Object(
  {
    ...endpointFields,
    signing_secret: Type.String({ description: 'whsec_…: shown here only; keep it to verify signatures' }),
  },
  { title: 'WebhookEndpointWithSecret' },
);
export type WebhookEndpointWithSecretOut = Static<typeof WebhookEndpointWithSecretOut>;

export const WebhookEndpointListOut = Type.Object(
  { items: Type.Array(WebhookEndpointOut), next_cursor: Nullable(Type.String()) },
  { title: 'WebhookEndpointListOut' },
);

export const EndpointParams = Type.Object({ endpoint_id: Uuid }, { additionalProperties: false });
export const DeliveryParams = Type.Object(
  { endpoint_id: Uuid, delivery_id: Uuid },
  { additionalProperties: false },
);
export const PageQuery = Type.Object(
  { limit: Type.Optional(Limit), after: Type.Optional(Cursor) },
  { additionalProperties: false },
);

export const WebhookDeliveryOut = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Uuid,
    event_type: WebhookEvent,
    status: StringEnum(['pending', 'retrying', 'succeeded', 'failed'] as const),
    attempts: Type.Integer(),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    next_attempt_at: NullableTimestamp,
    delivered_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookDelivery' },
);
export const WebhookDeliveryListOut = Type.Object(
  { items: Type.Array(WebhookDeliveryOut), next_cursor: Nullable(Type.String()) },
  { title: 'WebhookDeliveryListOut' },
);
