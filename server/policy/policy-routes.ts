import { ErrorEnvelope } from '../../schemas/common.js';
import { CheckPolicyIn, CheckPolicyOut } from '../../schemas/policy.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { invalidateTemplateCache } from '../templates/template-store.js';
import { checkPolicyFor, policyOut, putCheckPolicy, validatePolicy } from './check-policy.js';

const E403 = { description: 'A publishable key cannot read or change the policy', schema: ErrorEnvelope };

export function policyRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/check_policy',
      operationId: 'getCheckPolicy',
      summary: 'The check policy in force (policy_version "default" until the first PUT)',
      tag: 'check_policy',
      auth: 'secret',
      responses: { 200: { description: 'The policy', schema: CheckPolicyOut }, 403: E403 },
      handler: async ({ tenant }) => {
        return { status: 200, body: policyOut(await checkPolicyFor(sql, tenant.tenant_id)) };
      },
    }),
    route({
      method: 'PUT',
      path: '/v1/check_policy',
      operationId: 'updateCheckPolicy',
      summary: 'Replace the check policy (omitted fields take their defaults); each PUT bumps policy_version',
      tag: 'check_policy',
      auth: 'secret',
      body: CheckPolicyIn,
      responses: {
        200: { description: 'The new policy with its version', schema: CheckPolicyOut },
        403: E403,
      },
      handler: async ({ body, tenant }) => {
        const stored = validatePolicy(body);
        const policy = await putCheckPolicy(sql, tenant.tenant_id, stored);
        invalidateTemplateCache(tenant.tenant_id);
        return { status: 200, body: policyOut(policy) };
      },
    }),
  ];
}
