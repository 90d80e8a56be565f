import { Type } from '@sinclair/typebox';
import { AllowanceExhausted, ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import {
  FlowCreateIn,
  FlowDecideIn,
  FlowListOut,
  FlowListQuery,
  FlowOut,
  FlowOutB,
  FlowParams,
  ProcessAccepted,
  REDACTED_FLOW_MEDIA_TYPE,
  RedactedFlowOut,
} from '../../schemas/flows.js';
import { applicantSummaries } from '../applicants/applicant-summary.js';
import { actorOf } from '../audit/audit.js';
import { page, pageArgs } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import type { Tx } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { Reply } from '../http/request.js';
import { route } from '../http/router.js';
import { withIdempotency } from '../idempotency/idempotency.js';
import { loadGeo, resolveClientIp } from './client-metadata.js';
import { type FlowRow, flowOut } from './flow-model.js';
import {
  createFlow,
  decideFlowReview,
  type FlowDeps,
  getFlow,
  rerunAml,
  startProcessing,
} from './flow-service.js';
import { hitRateLimit, type RateLimitConfig } from './rate-limit.js';

const E403 = {
  description: 'Credential not allowed (publishable key rules, tenant status)',
  schema: ErrorEnvelope,
};
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };
const E402 = { description: 'Self-serve allowance used up', schema: AllowanceExhausted };
const E422State = {
  description: 'Validation error, or unsupported_operation: the flow is not in a status that allows this',
  schema: Type.Union([ValidationFailure, ErrorEnvelope]),
};

export function flowRoutes(deps: FlowDeps & { rateLimit: RateLimitConfig }) {
  const { sql } = deps;
  // load the geolocation database now rather than on the first flow (its latency would land on a customer)
  void loadGeo().catch(() => {});
  return [
    route({
      method: 'POST',
      path: '/v1/flows',
      operationId: 'createFlow',
      summary: 'Create a flow; in sync mode its checks run inline and the decided flow is returned',
      tag: 'flows',
      auth: 'tenant',
      body: FlowCreateIn,
      headers: {
        origin: 'Browser origin; required with a publishable key and checked against the allowlist',
        'idempotency-key':
          "Replays the first response for 24 h (per credential kind: a publishable key's keys are its own); " +
          'another body with the same key → 422',
      },
      responses: {
        201: {
          description:
            'Flow created: the flow (shape A) for a secret key or an operator session, the redacted flow (its own ' +
            'media type) for a publishable key',
          content: { 'application/json': FlowOut, [REDACTED_FLOW_MEDIA_TYPE]: RedactedFlowOut },
          headers: ['RateLimit', 'RateLimit-Policy'],
        },
        402: E402,
        403: E403,
        409: { description: 'A request with this Idempotency-Key is still running', schema: ErrorEnvelope },
        429: {
          description: 'Publishable key rate limit (RateLimit and Retry-After headers)',
          schema: ErrorEnvelope,
          headers: ['RateLimit', 'RateLimit-Policy'],
        },
        503: { description: 'Matcher overloaded or no dataset loaded', schema: ErrorEnvelope },
      },
      // publishable keys: counted before the body is validated and before the origin check, so that a flood of
      // invalid or wrong-origin requests is limited too; the limit's headers go with every answer (201, 403, 422 …)
      guard: async ({ req, tenant, setHeader }) => {
        if (tenant.kind !== 'publishable') return;
        const ip = resolveClientIp(req.ip, req.headers['x-forwarded-for'], deps.trustedProxies);
        const limitHeaders = await hitRateLimit(deps.redis, deps.rateLimit, tenant.key_id, ip);
        for (const [k, v] of Object.entries(limitHeaders)) setHeader(k, v);
      },
      handler: async ({ body, principal, req, tenant }) => {
        // the audit row is written in the flow's own statement (one commit per flow), not by the central hook
        const publishable = tenant.kind === 'publishable';
        const create = async (tx?: Tx): Promise<Reply> => {
          const { flow, redacted } = await createFlow(deps, tenant, body, req, actorOf(principal), tx);
          return publishable ? { status: 201, body: redacted } : { status: 201, body: flow };
        };
        const key = req.headers['idempotency-key'];
        // with a key, the flow and its key record commit together: a retry after any failure replays the answer
        const { reply } =
          key === undefined
            ? { reply: await create() }
            : await withIdempotency(
                sql,
                {
                  tenant_id: tenant.tenant_id,
                  // a browser's keys never replay a secret key's full flow, nor the other way round
                  scope: publishable ? `flows:${tenant.key_id}` : 'flows',
                  key,
                  body,
                },
                create,
              );
        const redactedFlow = publishable && reply.status === 201;
        return {
          ...reply,
          audited: true,
          ...(redactedFlow
            ? { headers: { ...reply.headers, 'content-type': REDACTED_FLOW_MEDIA_TYPE } }
            : {}),
        };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flows',
      operationId: 'listFlows',
      summary: 'List flows, newest first',
      tag: 'flows',
      auth: 'secret',
      query: FlowListQuery,
      responses: {
        200: { description: 'A page of flows', schema: FlowListOut },
        403: E403,
      },
      handler: async ({ query, tenant }) => {
        const { limit, after } = pageArgs(query);
        const rows = await sql<FlowRow[]>`
          select * from flows
          where tenant_id = ${tenant.tenant_id}
            ${query.status ? equalsFilter(sql, 'flows', 'status', query.status) : sql``}
            ${query.decision ? equalsFilter(sql, 'flows', 'decision', query.decision) : sql``}
            ${query.type ? equalsFilter(sql, 'flows', 'type', query.type) : sql``}
            ${query.exclude_type ? sql`and type <> ${query.exclude_type}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc
          limit ${limit + 1}`;
        const p = page(rows, limit);
        const applicants = await applicantSummaries(
          sql,
          tenant.tenant_id,
          p.rows.map((r) => r.applicant_id),
        );
        const items = p.rows.map((r) => ({
          ...flowOut(r, undefined),
          applicant: applicants.get(r.applicant_id) ?? null,
        }));
        return { status: 200, body: { items, next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}',
      operationId: 'getFlow',
      summary: 'Get a flow with its checks',
      tag: 'flows',
      auth: 'secret',
      params: FlowParams,
      responses: {
        200: { description: 'The flow', schema: FlowOut },
        403: E403,
        404: E404,
      },
      handler: async ({ params, tenant }) => {
        if (tenant.kind !== 'secret') throw new ApiError('forbidden');
        return { status: 200, body: await getFlow(sql, tenant.tenant_id, params.flow_id) };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/process',
      operationId: 'processFlow',
      summary: 'Queue a PENDING (or AWAITING_INPUT) flow for processing on a worker (secret key only)',
      tag: 'flows',
      // the spec: "bearer only" — not an operator session
      auth: 'bearer',
      params: FlowParams,
      responses: {
        202: {
          description: 'Accepted: the flow is PROCESSING and its job is queued',
          schema: ProcessAccepted,
        },
        402: E402,
        403: E403,
        404: E404,
        422: E422State,
      },
      handler: async ({ params, tenant }) => {
        await startProcessing(deps, tenant, params.flow_id);
        return { status: 202, body: { status: 'accepted', flow_id: params.flow_id } };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/decide',
      operationId: 'decideFlow',
      summary: 'Record a reviewer decision on a flow in NEEDS_REVIEW',
      tag: 'flows',
      auth: 'secret',
      params: FlowParams,
      body: FlowDecideIn,
      responses: {
        200: { description: 'The decided flow', schema: FlowOut },
        403: E403,
        404: E404,
        422: E422State,
      },
      handler: async ({ params, principal, body, tenant }) => {
        const actor =
          principal.kind === 'operator' ? `operator:${principal.operator_id}` : `api_key:${tenant.key_id}`;
        return {
          status: 200,
          body: await decideFlowReview(sql, tenant.tenant_id, params.flow_id, body, actor),
        };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/checks/aml_screen/rerun',
      operationId: 'rerunAmlScreen',
      summary:
        'Run the AML screen again: records a new check; rules re-evaluated only for rules-made NEEDS_REVIEW',
      tag: 'flows',
      auth: 'secret',
      params: FlowParams,
      responses: {
        200: { description: 'The flow (shape B)', schema: FlowOutB },
        402: E402,
        403: E403,
        404: E404,
        422: E422State,
        503: { description: 'Matcher overloaded or no dataset loaded', schema: ErrorEnvelope },
      },
      handler: async ({ params, tenant }) => {
        return { status: 200, body: await rerunAml(deps, tenant, params.flow_id) };
      },
    }),
  ];
}
