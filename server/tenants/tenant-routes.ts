import { ErrorEnvelope } from '../../schemas/common.js';
import { TenantCreatedOut, TenantCreateIn } from '../../schemas/tenants.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { createTenant } from './tenant-service.js';

export function tenantRoutes(sql: Sql) {
  return [
    route({
      method: 'POST',
      path: '/admin/tenants',
      operationId: 'createTenant',
      summary: 'Create a tenant with a secret and a publishable key (keys are shown only in this response)',
      tag: 'admin',
      auth: 'admin',
      body: TenantCreateIn,
      responses: {
        201: { description: 'Tenant created', schema: TenantCreatedOut },
        401: { description: 'Missing or wrong X-Admin-Token', schema: ErrorEnvelope },
      },
      handler: async ({ body }) => ({ status: 201, body: await createTenant(sql, body) }),
    }),
  ];
}
