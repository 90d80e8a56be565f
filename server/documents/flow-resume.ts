import { type FlowDeps, resumeIfInputsComplete } from '../flows/flow-service.js';

/** Hands a flow waiting in AWAITING_INPUT back to flow processing once its required inputs are there (uploads verified
 * and read, intake fields and consent given):
 * the same transition as POST /v1/flows/{id}/process (AWAITING_INPUT → PROCESSING + a flow_process job), performed by
 * the system on the tenant's behalf and not charged again (the flow was charged when it first left PENDING). */
export function resumeFlowAfterDocuments(flowDeps: FlowDeps) {
  return (tenantId: string, flowId: string): Promise<boolean> =>
    resumeIfInputsComplete(flowDeps, tenantId, flowId);
}
