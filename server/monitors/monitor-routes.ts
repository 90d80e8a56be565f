import { AllowanceExhausted, ErrorEnvelope } from '../../schemas/common.js';
import {
  MonitorCreateIn,
  MonitorListOut,
  MonitorListQuery,
  MonitorOut,
  MonitorParams,
} from '../../schemas/monitors.js';
import type { Bus } from '../bus/jetstream.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { createMonitor } from './monitor-service.js';
import { deleteMonitor, findMonitor, listMonitors, monitorOut, setMonitorStatus } from './monitor-store.js';

const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };

export function monitorRoutes(deps: { sql: Sql; bus: Bus }) {
  const { sql } = deps;
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
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: monitorOut(await setMonitorStatus(sql, tenant.tenant_id, params.monitor_id, status)),
      }),
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
      handler: async ({ body, tenant }) => ({ status: 201, body: await createMonitor(deps, tenant, body) }),
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
      handler: async ({ query, tenant }) => ({
        status: 200,
        body: await listMonitors(sql, tenant.tenant_id, query),
      }),
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
        body: monitorOut(await findMonitor(sql, tenant.tenant_id, params.monitor_id)),
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
        await deleteMonitor(sql, tenant.tenant_id, params.monitor_id);
        return { status: 204 };
      },
    }),
  ];
}
