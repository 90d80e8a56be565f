import type {
  WebhookEndpointOut,
  WebhookEndpointWithSecretOut,
  WebhookEvent,
} from '../../schemas/webhooks.js';
import type { Sql } from '../db/sql.js';

export interface EndpointRow {
  id: string;
  seq: string;
  tenant_id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}

export function endpointOut(e: EndpointRow): WebhookEndpointOut {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    signing_secret: null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

/** The endpoint with its new signing secret (create and rotate_secret only). */
export function endpointWithSecretOut(e: EndpointRow, signing_secret: string): WebhookEndpointWithSecretOut {
  return { ...endpointOut(e), signing_secret };
}

export async function endpointById(sql: Sql, tenantId: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await sql<EndpointRow[]>`
    select * from webhook_endpoints where id = ${id} and tenant_id = ${tenantId} and deleted_at is null`;
  return row;
}

export interface DeliveryRow {
  id: string;
  seq: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: WebhookEvent;
  status: 'pending' | 'retrying' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function deliveryOut(d: DeliveryRow) {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
    delivered_at: d.delivered_at?.toISOString() ?? null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}
