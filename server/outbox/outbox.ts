import { randomUUID } from 'node:crypto';

/** Event types written to the transactional outbox (delivered by the webhooks issue). */
export const EVENT_TYPES = [
  'flow.created',
  'flow.completed',
  'flow.decided',
  'check.completed',
  'alert.created',
  'alert.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface OutboxRow {
  id: string;
  tenant_id: string;
  type: EventType;
  resource_id: string;
  payload: Record<string, unknown>;
}

/** An outbox row; insert it in the same transaction (or statement) as the change it reports. Payloads carry ids
 * and outcomes only, never personal data. */
export function outboxEvent(
  tenantId: string,
  type: EventType,
  resourceId: string,
  payload: Record<string, unknown>,
): OutboxRow {
  return { id: randomUUID(), tenant_id: tenantId, type, resource_id: resourceId, payload };
}
