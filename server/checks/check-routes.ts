import { CheckListOut, CheckListQuery } from '../../schemas/checks.js';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { requireTenant } from '../auth/authenticate.js';
import type { Sql } from '../db/sql.js';
import { decodeCursor, page } from '../http/cursor.js';
import { route } from '../http/router.js';
import { type CheckRow, checkOut } from './check-model.js';

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
        401: { description: 'Unauthorized', schema: ErrorEnvelope },
        422: { description: 'Validation error', schema: ValidationFailure },
      },
      handler: async ({ query, principal }) => {
        const tenant = requireTenant(principal);
        const limit = query.limit ?? 50;
        const after = query.after ? decodeCursor(query.after) : null;
        const rows = await sql<CheckRow[]>`
          select * from checks
          where tenant_id = ${tenant.tenant_id}
            ${query.check_type ? sql`and check_type = ${query.check_type}` : sql``}
            ${query.flow_id ? sql`and flow_id = ${query.flow_id}` : sql``}
            ${query.applicant_id ? sql`and applicant_id = ${query.applicant_id}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc
          limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(checkOut), next_cursor: p.next_cursor } };
      },
    }),
  ];
}
