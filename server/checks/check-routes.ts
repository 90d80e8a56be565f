import { CheckListOut, CheckListQuery, CheckOut, CheckParams } from '../../schemas/checks.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { getCheck, listChecks } from './check-store.js';

export function checkRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/checks',
      operationId: 'listChecks',
      summary: 'List checks, newest first; filters combine',
      tag: 'checks',
      auth: 'secret',
      query: CheckListQuery,
      responses: {
        200: { description: 'A page of checks', schema: CheckListOut },
        403: { description: 'A publishable key cannot read checks', schema: ErrorEnvelope },
      },
      handler: async ({ query, tenant }) => ({
        status: 200,
        body: await listChecks(sql, tenant.tenant_id, query),
      }),
    }),
    route({
      method: 'GET',
      path: '/v1/checks/{check_id}',
      operationId: 'getCheck',
      summary: 'One check with its evidence',
      tag: 'checks',
      auth: 'secret',
      params: CheckParams,
      responses: {
        200: { description: 'The check', schema: CheckOut },
        404: { description: 'Not found in this tenant', schema: ErrorEnvelope },
      },
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: await getCheck(sql, tenant.tenant_id, params.check_id),
      }),
    }),
  ];
}
