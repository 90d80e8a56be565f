import {
  AlertAssignIn,
  AlertDispositionIn,
  AlertListOut,
  AlertListQuery,
  AlertOut,
  AlertParams,
  AlertRejectIn,
} from '../../schemas/alerts.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import {
  actorOf,
  approveAlert,
  assignAlert,
  disposeAlert,
  escalateAlert,
  getAlert,
  listAlerts,
  rejectAlert,
} from './alert-service.js';

const COMMON = {
  403: {
    description: 'A publishable key cannot work alerts, or the operator role does not allow it',
    schema: ErrorEnvelope,
  },
};
const ONE = { ...COMMON, 404: { description: 'Not found in this tenant', schema: ErrorEnvelope } };
const CHANGE = {
  ...ONE,
  200: { description: 'The alert after the change', schema: AlertOut },
  409: { description: 'The alert state does not allow this action', schema: ErrorEnvelope },
};

/** The alerts workflow (docs/decisions/alerts-webhooks.md; the state machine is alert-states.ts). Operator identity:
 * operator sessions act as themselves within their role; the tenant secret key acts as an admin operator. */
export function alertRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/alerts',
      operationId: 'listAlerts',
      summary: 'List alerts, newest first; filters combine (due_before: the SLA queue of alerts not closed)',
      tag: 'alerts',
      auth: 'secret',
      query: AlertListQuery,
      responses: { ...COMMON, 200: { description: 'A page of alerts', schema: AlertListOut } },
      handler: async ({ query, principal, tenant }) => {
        return { status: 200, body: await listAlerts(sql, tenant.tenant_id, actorOf(principal), query) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/alerts/{alert_id}',
      operationId: 'getAlert',
      summary: 'Get an alert with its applicant, assignee and check summaries',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      responses: { ...ONE, 200: { description: 'The alert', schema: AlertOut } },
      handler: async ({ params, tenant }) => {
        return { status: 200, body: await getAlert(sql, tenant.tenant_id, params.alert_id) };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/alerts/{alert_id}/assign',
      operationId: 'assignAlert',
      summary: 'Assign an alert to an operator (an open alert moves to in_review), or unassign with null',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      body: AlertAssignIn,
      responses: CHANGE,
      handler: async ({ params, body, principal, tenant }) => {
        const out = await assignAlert(sql, tenant.tenant_id, params.alert_id, actorOf(principal), body);
        return { status: 200, body: out };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/alerts/{alert_id}/escalate',
      operationId: 'escalateAlert',
      summary: 'Escalate an open or in-review alert (it is then disposed by a supervisor or an admin)',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      responses: CHANGE,
      handler: async ({ params, principal, tenant }) => {
        const out = await escalateAlert(sql, tenant.tenant_id, params.alert_id, actorOf(principal));
        return { status: 200, body: out };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/alerts/{alert_id}/disposition',
      operationId: 'disposeAlert',
      summary:
        'Dispose an alert as true_match or false_positive: closes it, or with four_eyes_required proposes it ' +
        '(pending_approval) for a different supervisor to approve',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      body: AlertDispositionIn,
      responses: CHANGE,
      handler: async ({ params, body, principal, tenant }) => {
        const out = await disposeAlert(sql, tenant.tenant_id, params.alert_id, actorOf(principal), body);
        return { status: 200, body: out };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/alerts/{alert_id}/approve',
      operationId: 'approveAlert',
      summary:
        'Four-eyes: approve the pending disposition (supervisor or admin, not the proposer; 409 when nothing ' +
        'is pending or the evidence changed since the proposal)',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      responses: CHANGE,
      handler: async ({ params, principal, tenant }) => {
        const out = await approveAlert(sql, tenant.tenant_id, params.alert_id, actorOf(principal));
        return { status: 200, body: out };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/alerts/{alert_id}/reject',
      // the authorization table's name for the supervisor's review action (server/auth/authorize.ts)
      operationId: 'rejectAlert',
      summary: 'Four-eyes: reject the pending disposition with a reason; the alert goes back to work',
      tag: 'alerts',
      auth: 'secret',
      params: AlertParams,
      body: AlertRejectIn,
      responses: CHANGE,
      handler: async ({ params, body, principal, tenant }) => {
        const out = await rejectAlert(sql, tenant.tenant_id, params.alert_id, actorOf(principal), body);
        return { status: 200, body: out };
      },
    }),
  ];
}
