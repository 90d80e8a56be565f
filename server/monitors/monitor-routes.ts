import { AllowanceExhausted, ErrorEnvelope } from '../../schemas/common.js';
import {
  MonitorCreateIn,
  MonitorListOut,
  MonitorListQuery,
  MonitorOut,
  MonitorParams,
} from '../../schemas/monitors.js';
import { requireOwnApplicants } from '../applicants/applicant-service.js';
import type { Bus } from '../bus/jetstream.js';
import { decodeCursor, page } from '../db/cursor.js';
import { json, type Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import { checkPolicyFor } from '../policy/check-policy.js';
import { consumeAllowance, refundAllowance } from '../tenants/allowance.js';
import { type MonitorRow, monitorOut } from './monitor-store.js';

const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };

export function monitorRoutes(deps: { sql: Sql; bus: Bus }) {
  const { sql } = deps;
  const find = async (tenantId: string, id: string) => {
    const [m] = await sql<MonitorRow[]>`select * from monitors where id = ${id} and tenant_id = ${tenantId}`;
    if (!m) throw new ApiError('not_found', { message: 'Monitor not found' });
    return m;
  };
  const setStatus = (status: 'active' | 'paused', path: string, summary: string) =>
    route({
      method: 'POST',
      path,
      operationId: status === 'active' ? 'resumeMonitor' : 'pauseMonitor',
      summary,
      tag: 'monitors',
      auth: 'secret',
      params: MonitorParams,
      responses: { 200: { description: 'The monitor', schema: MonitorOut }, 404: E404 },
      handler: async ({ params, tenant }) => {
        await find(tenant.tenant_id, params.monitor_id);
        // resuming a monitor whose run was due while paused runs it at the next scheduler pass
        const [m] = await sql<MonitorRow[]>`
          update monitors set status = ${status}, failure_reason = null, updated_at = now()
          where id = ${params.monitor_id} and tenant_id = ${tenant.tenant_id} returning *`;
        if (!m) throw new ApiError('not_found');
        return { status: 200, body: monitorOut(m) };
      },
    });
  return [
    route({
      method: 'POST',
      path: '/v1/monitors',
      operationId: 'createMonitor',
      summary: 'Monitor subjects: rescreened on a schedule and against every dataset promotion',
      tag: 'monitors',
      auth: 'secret',
      body: MonitorCreateIn,
      responses: {
        201: { description: 'Created', schema: MonitorOut },
        402: {
          description: 'run_immediately with the self-serve allowance used up',
          schema: AllowanceExhausted,
        },
      },
      handler: async ({ body, tenant }) => {
        if (body.applicant_id) {
          await requireOwnApplicants(sql, tenant.tenant_id, [
            { loc: ['body', 'applicant_id'], applicant_id: body.applicant_id },
          ]);
        }
        const policy = await checkPolicyFor(sql, tenant.tenant_id);
        const runNow = body.run_immediately ?? true;
        // the first run is a check like any other: a self-serve unit, 402 (and no monitor) when none is left
        const charged = runNow && tenant.plan === 'self_serve';
        if (charged) await consumeAllowance(sql, tenant.tenant_id);
        const interval = body.interval_hours ?? 24;
        const search = [body.external_id, ...body.subjects.map((s) => s.name)]
          .filter(Boolean)
          .join(' ')
          .toLowerCase();
        const [m] = await sql<MonitorRow[]>`
          insert into monitors ${sql({
            tenant_id: tenant.tenant_id,
            applicant_id: body.applicant_id ?? null,
            external_id: body.external_id ?? null,
            subjects: json(sql, body.subjects),
            datasets: body.datasets ?? policy.default_datasets,
            policy_version: policy.policy_version,
            interval_hours: interval,
            next_due_at: runNow ? new Date() : new Date(Date.now() + interval * 3600_000),
            search_text: search,
          })}
          returning *`.catch(async (err: unknown) => {
          if (charged) await refundAllowance(sql, tenant.tenant_id);
          throw err;
        });
        if (!m) throw new Error('monitor insert returned nothing');
        if (runNow) {
          // claimed like any due monitor (once, by one process); published now so it does not wait for the scheduler
          const claimed = await sql`
            update monitors set next_due_at = now() + make_interval(hours => interval_hours)
            where id = ${m.id} and next_due_at <= now() returning id`;
          if (claimed.length)
            await deps.bus.publishJob(
              'monitor_run',
              { monitor_id: m.id, tenant_id: m.tenant_id },
              `monitor_run:${m.id}:created`,
            );
        }
        return { status: 201, body: monitorOut(m) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/monitors',
      operationId: 'listMonitors',
      summary: 'List monitors, newest first',
      tag: 'monitors',
      auth: 'secret',
      query: MonitorListQuery,
      responses: { 200: { description: 'A page', schema: MonitorListOut } },
      handler: async ({ query, tenant }) => {
        const limit = query.limit ?? 50;
        const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
        const rows = await sql<MonitorRow[]>`
          select * from monitors where tenant_id = ${tenant.tenant_id}
            ${query.status ? sql`and status = ${query.status}` : sql``}
            ${query.applicant_id ? sql`and applicant_id = ${query.applicant_id}` : sql``}
            ${query.use_case ? sql`and use_case = ${query.use_case}` : sql``}
            ${query.search ? sql`and search_text like ${`%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(monitorOut), next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/monitors/{monitor_id}',
      operationId: 'getMonitor',
      summary: 'Get a monitor',
      tag: 'monitors',
      auth: 'secret',
      params: MonitorParams,
      responses: { 200: { description: 'The monitor', schema: MonitorOut }, 404: E404 },
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: monitorOut(await find(tenant.tenant_id, params.monitor_id)),
      }),
    }),
    setStatus(
      'paused',
      '/v1/monitors/{monitor_id}/pause',
      'Pause a monitor (no scheduled or promotion rescreens)',
    ),
    setStatus('active', '/v1/monitors/{monitor_id}/resume', 'Resume a paused monitor'),
    route({
      method: 'DELETE',
      path: '/v1/monitors/{monitor_id}',
      operationId: 'deleteMonitor',
      summary: 'Delete a monitor (its checks and alerts stay)',
      tag: 'monitors',
      auth: 'secret',
      params: MonitorParams,
      responses: { 204: { description: 'Deleted' }, 404: E404 },
      handler: async ({ params, tenant }) => {
        const rows =
          await sql`delete from monitors where id = ${params.monitor_id} and tenant_id = ${tenant.tenant_id} returning id`;
        if (!rows.length) throw new ApiError('not_found', { message: 'Monitor not found' });
        return { status: 204 };
      },
    }),
  ];
}
