import { ErrorEnvelope } from '../../schemas/common.js';
import {
  DeliveryParams,
  EndpointParams,
  PageQuery,
  WebhookDeliveryListOut,
  WebhookDeliveryOut,
  WebhookEndpointCreateIn,
  WebhookEndpointListOut,
  WebhookEndpointOut,
  WebhookEndpointPatchIn,
  WebhookEndpointWithSecretOut,
} from '../../schemas/webhooks.js';
import type { Bus } from '../bus/jetstream.js';
import { page, pageArgs } from '../db/cursor.js';
import type { Sql } from '../db/sql.js';
import { ApiError, invalid } from '../errors.js';
import { route } from '../http/router.js';
import { newSigningSecret, seal } from './signature.js';
import { refuseTarget } from './url-policy.js';
import {
  type DeliveryRow,
  deliveryOut,
  type EndpointRow,
  endpointById,
  endpointOut,
  endpointWithSecretOut,
} from './webhook-store.js';

export interface WebhookDeps {
  sql: Sql;
  bus: Bus;
  keyMaterial: string;
  allowPrivateTargets: boolean;
}

/** After a rotation the old secret keeps signing (a second v1) for this long, so receivers can switch over. */
const ROTATION_OVERLAP_HOURS = 24;

const E403 = { description: 'Forbidden', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };

export function webhookRoutes(deps: WebhookDeps) {
  const { sql } = deps;
  const checkUrl = async (url: string) => {
    const why = await refuseTarget(url, deps.allowPrivateTargets);
    if (why) throw invalid(['body', 'url'], why, 'url_not_allowed');
  };
  const mustFind = async (tenantId: string, id: string) => {
    const e = await endpointById(sql, tenantId, id);
    if (!e) throw new ApiError('not_found', { message: 'Webhook endpoint not found' });
    return e;
  };
  return [
    route({
      method: 'POST',
      path: '/v1/webhook_endpoints',
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint; the signing secret is returned only here',
      tag: 'webhooks',
      auth: 'secret',
      body: WebhookEndpointCreateIn,
      responses: {
        201: { description: 'Created', schema: WebhookEndpointWithSecretOut },
        403: E403,
      },
      handler: async ({ body, tenant }) => {
        await checkUrl(body.url);
        const secret = newSigningSecret();
        const [row] = await sql<EndpointRow[]>`
          insert into webhook_endpoints (tenant_id, url, events, secret_sealed)
          values (${tenant.tenant_id}, ${body.url}, ${body.events}, ${seal(secret, deps.keyMaterial)})
          returning *`;
        if (!row) throw new Error('endpoint insert returned nothing');
        return { status: 201, body: endpointWithSecretOut(row, secret) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/webhook_endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first',
      tag: 'webhooks',
      auth: 'secret',
      query: PageQuery,
      responses: {
        200: { description: 'A page', schema: WebhookEndpointListOut },
        403: E403,
      },
      handler: async ({ query, tenant }) => {
        const { limit, after } = pageArgs(query);
        const rows = await sql<EndpointRow[]>`
          select * from webhook_endpoints where tenant_id = ${tenant.tenant_id} and deleted_at is null
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return {
          status: 200,
          body: { items: p.rows.map((r) => endpointOut(r)), next_cursor: p.next_cursor },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/webhook_endpoints/{endpoint_id}',
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      tag: 'webhooks',
      auth: 'secret',
      params: EndpointParams,
      responses: {
        200: { description: 'The endpoint', schema: WebhookEndpointOut },
        404: E404,
      },
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: endpointOut(await mustFind(tenant.tenant_id, params.endpoint_id)),
      }),
    }),
    route({
      method: 'PATCH',
      path: '/v1/webhook_endpoints/{endpoint_id}',
      operationId: 'updateWebhookEndpoint',
      summary:
        'Change url, events or enabled (null or absent = unchanged); re-enabling resets the failure count',
      tag: 'webhooks',
      auth: 'secret',
      params: EndpointParams,
      body: WebhookEndpointPatchIn,
      responses: {
        200: { description: 'Updated', schema: WebhookEndpointOut },
        404: E404,
      },
      handler: async ({ params, body, tenant }) => {
        const e = await mustFind(tenant.tenant_id, params.endpoint_id);
        if (body.url) await checkUrl(body.url);
        const enabled = body.enabled ?? e.enabled;
        const [row] = await sql<EndpointRow[]>`
          update webhook_endpoints set
            url = ${body.url ?? e.url},
            events = ${body.events ?? e.events},
            enabled = ${enabled},
            disabled_reason = ${enabled ? null : body.enabled === false ? 'disabled by the tenant' : e.disabled_reason},
            consecutive_failures = ${enabled && !e.enabled ? 0 : e.consecutive_failures},
            updated_at = now()
          where id = ${e.id} and tenant_id = ${tenant.tenant_id}
          returning *`;
        if (!row) throw new ApiError('not_found');
        return { status: 200, body: endpointOut(row) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/webhook_endpoints/{endpoint_id}',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint (its delivery log is kept)',
      tag: 'webhooks',
      auth: 'secret',
      params: EndpointParams,
      responses: { 204: { description: 'Deleted' }, 404: E404 },
      handler: async ({ params, tenant }) => {
        const rows = await sql`
          update webhook_endpoints set deleted_at = now(), enabled = false, updated_at = now()
          where id = ${params.endpoint_id} and tenant_id = ${tenant.tenant_id} and deleted_at is null returning id`;
        if (!rows.length) throw new ApiError('not_found', { message: 'Webhook endpoint not found' });
        return { status: 204 };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/webhook_endpoints/{endpoint_id}/rotate_secret',
      operationId: 'rotateWebhookSecret',
      summary: 'New signing secret (returned once); the old one keeps signing beside it for 24 h',
      tag: 'webhooks',
      auth: 'secret',
      params: EndpointParams,
      responses: {
        200: { description: 'Rotated', schema: WebhookEndpointWithSecretOut },
        404: E404,
      },
      handler: async ({ params, tenant }) => {
        const e = await mustFind(tenant.tenant_id, params.endpoint_id);
        const secret = newSigningSecret();
        const [row] = await sql<EndpointRow[]>`
          update webhook_endpoints set
            previous_secret_sealed = secret_sealed,
            previous_secret_expires_at = now() + make_interval(hours => ${ROTATION_OVERLAP_HOURS}),
            secret_sealed = ${seal(secret, deps.keyMaterial)},
            updated_at = now()
          where id = ${e.id} and tenant_id = ${tenant.tenant_id}
          returning *`;
        if (!row) throw new ApiError('not_found');
        return { status: 200, body: endpointWithSecretOut(row, secret) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/webhook_endpoints/{endpoint_id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery log of an endpoint, newest first',
      tag: 'webhooks',
      auth: 'secret',
      params: EndpointParams,
      query: PageQuery,
      responses: {
        200: { description: 'A page', schema: WebhookDeliveryListOut },
        404: E404,
      },
      handler: async ({ params, query, tenant }) => {
        await mustFind(tenant.tenant_id, params.endpoint_id);
        const { limit, after } = pageArgs(query);
        const rows = await sql<DeliveryRow[]>`
          select * from webhook_deliveries where endpoint_id = ${params.endpoint_id} and tenant_id = ${tenant.tenant_id}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(deliveryOut), next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/webhook_endpoints/{endpoint_id}/deliveries/{delivery_id}/redeliver',
      operationId: 'redeliverWebhook',
      summary: 'Send a delivery again now (same event id), whatever its status',
      tag: 'webhooks',
      auth: 'secret',
      params: DeliveryParams,
      responses: {
        202: { description: 'Queued', schema: WebhookDeliveryOut },
        404: E404,
        409: { description: 'The endpoint is disabled', schema: ErrorEnvelope },
      },
      handler: async ({ params, tenant }) => {
        const e = await mustFind(tenant.tenant_id, params.endpoint_id);
        if (!e.enabled)
          throw new ApiError('conflict', { message: 'Enable the endpoint before redelivering' });
        const [row] = await sql<DeliveryRow[]>`
          update webhook_deliveries set status = 'pending', next_attempt_at = now(), updated_at = now()
          where id = ${params.delivery_id} and endpoint_id = ${e.id} and tenant_id = ${tenant.tenant_id}
          returning *`;
        if (!row) throw new ApiError('not_found', { message: 'Delivery not found' });
        await deps.bus.publishJob(
          'webhook_delivery',
          { delivery_id: row.id, tenant_id: tenant.tenant_id, manual: true },
          `webhook_delivery:${row.id}:manual:${Date.now()}`,
        );
        return { status: 202, body: deliveryOut(row) };
      },
    }),
  ];
}
