import { AuditListOut, AuditListQuery } from '../../schemas/audit.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import { requireAdminAuthority, tenantOf } from '../auth/authorize.js';
import { page, pageArgs } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import type { AuditRow } from './audit.js';

export function auditRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/audit_events',
      operationId: 'listAuditEvents',
      summary: "The tenant's audit log, newest first; filters combine (admin authority)",
      tag: 'audit',
      auth: 'secret',
      query: AuditListQuery,
      responses: {
        200: { description: 'A page of audit events', schema: AuditListOut },
        403: { description: 'Needs admin authority', schema: ErrorEnvelope },
      },
      handler: async ({ query, principal }) => {
        requireAdminAuthority(principal);
        const { tenant_id } = tenantOf(principal);
        const { limit, after } = pageArgs(query);
        const rows = await sql<AuditRow[]>`
          select * from audit_log where tenant_id = ${tenant_id}
            ${query.action ? equalsFilter(sql, 'audit_log', 'action', query.action) : sql``}
            ${query.actor_type ? sql`and actor_type = ${query.actor_type}` : sql``}
            ${query.actor_id ? sql`and actor_id = ${query.actor_id}` : sql``}
            ${query.resource_type ? sql`and resource_type = ${query.resource_type}` : sql``}
            ${query.resource_id ? sql`and resource_id = ${query.resource_id}` : sql``}
            ${query.request_id ? sql`and request_id = ${query.request_id}` : sql``}
            ${query.since ? sql`and created_at >= ${new Date(query.since)}` : sql``}
            ${query.until ? sql`and created_at < ${new Date(query.until)}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return {
          status: 200,
          body: {
            items: p.rows.map((r) => ({
              id: r.id,
              actor_type: r.actor_type,
              actor_id: r.actor_id,
              action: r.action,
              resource_type: r.resource_type,
              resource_id: r.resource_id,
              request_id: r.request_id,
              details: r.details,
              created_at: r.created_at.toISOString(),
            })),
            next_cursor: p.next_cursor,
          },
        };
      },
    }),
  ];
}
