import type { Sql } from '../db/sql.js';
import { type FlowDeps, startProcessing } from '../flows/flow-service.js';

/** Hands a flow waiting in AWAITING_INPUT back to flow processing once its required documents are verified: the
 * same transition as POST /v1/flows/{id}/process (AWAITING_INPUT → PROCESSING + a flow_process job, billed like
 * that call), performed by the system on the tenant's behalf. */
export function resumeFlowAfterDocuments(flowDeps: FlowDeps & { sql: Sql }) {
  return async (tenantId: string, flowId: string): Promise<void> => {
    const [t] = await flowDeps.sql<{ plan: 'self_serve' | 'contract' }[]>`
      select plan from tenants where id = ${tenantId}`;
    if (!t) return;
    await startProcessing(
      flowDeps,
      { kind: 'secret', tenant_id: tenantId, key_id: 'system:documents', plan: t.plan, allowed_origins: [] },
      flowId,
    );
  };
}
