import { ErrorEnvelope } from '../../schemas/common.js';
import {
  OperatorCreateIn,
  OperatorListOut,
  OperatorListQuery,
  OperatorNameListOut,
  OperatorOut,
  OperatorParams,
  OperatorPatchIn,
} from '../../schemas/operators.js';
import { requireAdminAuthority, tenantOf } from '../auth/authorize.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { createOperator, listOperatorNames, listOperators, updateOperator } from './operator-service.js';

const E403 = { description: 'Needs admin authority', schema: ErrorEnvelope };

export function operatorRoutes(sql: Sql) {
  return [
    route({
      method: 'POST',
      path: '/v1/operators',
      operationId: 'createOperator',
      summary: 'Create a dashboard operator (admin authority)',
      tag: 'operators',
      auth: 'secret',
      body: OperatorCreateIn,
      responses: {
        201: { description: 'Operator created', schema: OperatorOut },
        403: E403,
        409: { description: 'E-mail already used in this tenant', schema: ErrorEnvelope },
      },
      handler: async ({ body, principal, req }) => {
        requireAdminAuthority(principal);
        const out = await createOperator(sql, principal, tenantOf(principal).tenant_id, body, req.request_id);
        return { status: 201, body: out, audited: true };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/operators',
      operationId: 'listOperators',
      summary: 'List operators, newest first (admin authority)',
      tag: 'operators',
      auth: 'secret',
      query: OperatorListQuery,
      responses: {
        200: { description: 'A page of operators', schema: OperatorListOut },
        403: E403,
      },
      handler: async ({ query, principal }) => {
        requireAdminAuthority(principal);
        return { status: 200, body: await listOperators(sql, tenantOf(principal).tenant_id, query) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/operator_names',
      operationId: 'listOperatorNames',
      summary:
        "Every operator's id, name and role (any role: the dashboard shows names instead of ids; no e-mails)",
      tag: 'operators',
      auth: 'secret',
      responses: { 200: { description: 'The operators of this tenant', schema: OperatorNameListOut } },
      handler: async ({ principal }) => ({
        status: 200,
        body: { items: await listOperatorNames(sql, tenantOf(principal).tenant_id) },
      }),
    }),
    route({
      method: 'PATCH',
      path: '/v1/operators/{operator_id}',
      operationId: 'updateOperator',
      summary: 'Rename, change role, reset password or disable an operator (admin authority); signs them out',
      tag: 'operators',
      auth: 'secret',
      params: OperatorParams,
      body: OperatorPatchIn,
      responses: {
        200: { description: 'The operator', schema: OperatorOut },
        403: E403,
        404: { description: 'Not found in this tenant', schema: ErrorEnvelope },
      },
      handler: async ({ params, body, principal, req }) => {
        requireAdminAuthority(principal);
        const out = await updateOperator(
          sql,
          principal,
          tenantOf(principal).tenant_id,
          params.operator_id,
          body,
          req.request_id,
        );
        return { status: 200, body: out, audited: true };
      },
    }),
  ];
}
