import { CheckListOut, CheckListQuery, CheckOut, CheckParams } from '../../schemas/checks.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import { page, pageArgs } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
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
        403: { description: 'A publishable key cannot read checks', schema: ErrorEnvelope },
      },
      handler: async ({ query, tenant }) => {
        const { limit, after } = pageArgs(query);
        // every filter has a (tenant_id, <column>, seq desc) index or a GIN index (migration 003); those of status,
        // result, decision and check_type hold only the rare values (equalsFilter, migration 020)
        const like = query.search
          ? `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
          : '';
        const rows = await sql<CheckRow[]>`
          select * from checks
          where tenant_id = ${tenant.tenant_id}
            ${query.check_type ? equalsFilter(sql, 'checks', 'check_type', query.check_type) : sql``}
            ${query.status ? equalsFilter(sql, 'checks', 'status', query.status) : sql``}
            ${query.result ? equalsFilter(sql, 'checks', 'result', query.result) : sql``}
            ${query.flow_id ? sql`and flow_id = ${query.flow_id}` : sql``}
            ${query.batch_id ? sql`and batch_id = ${query.batch_id}` : sql``}
            ${query.applicant_id ? sql`and applicant_id = ${query.applicant_id}` : sql``}
            ${query.use_case ? sql`and use_case = ${query.use_case}` : sql``}
            ${query.decision ? equalsFilter(sql, 'checks', 'decision', query.decision) : sql``}
            ${query.dataset ? sql`and datasets @> ${[query.dataset]}::text[]` : sql``}
            ${query.reference ? sql`and reference = ${query.reference}` : sql``}
            ${query.input_ref ? sql`and input_ref = ${query.input_ref}` : sql``}
            ${
              query.search
                ? sql`and (lower(applicant_name) like ${like} or lower(reference) like ${like})`
                : sql``
            }
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc
          limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(checkOut), next_cursor: p.next_cursor } };
      },
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
      handler: async ({ params, tenant }) => {
        const [row] = await sql<CheckRow[]>`
          select * from checks where id = ${params.check_id} and tenant_id = ${tenant.tenant_id}`;
        if (!row) throw new ApiError('not_found', { message: 'Check not found' });
        return { status: 200, body: checkOut(row) };
      },
    }),
  ];
}
