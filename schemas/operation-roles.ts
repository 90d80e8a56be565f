/**
 * The roles × operations table: the minimum operator role per operationId, in one place for the server
 * (server/auth/authorize.ts enforces it on every request) and the dashboard (which hides what a role cannot do).
 * Plain data and two functions: nothing here imports TypeBox, so the dashboard bundle can take it as it is.
 */
export type OperatorRole = 'analyst' | 'supervisor' | 'admin';

export const ROLES = ['analyst', 'supervisor', 'admin'] as const satisfies readonly OperatorRole[];
const RANK: Record<OperatorRole, number> = { analyst: 1, supervisor: 2, admin: 3 };

/** Minimum operator role per operationId. Operations missing here fall back to DEFAULT_RULE (fail closed). */
export const OPERATION_ROLES: Readonly<Record<string, OperatorRole>> = {
  // flows and checks: an operator creating a flow has the power of a secret key
  createFlow: 'analyst',
  listFlows: 'analyst',
  getFlow: 'analyst',
  processFlow: 'analyst',
  rerunAmlScreen: 'analyst',
  decideFlow: 'supervisor',
  listChecks: 'analyst',
  getCheck: 'analyst',
  createCheckBatch: 'analyst',
  getCheckBatch: 'analyst',
  listCheckBatches: 'analyst',
  // alerts: analysts work them, supervisors give the second pair of eyes
  listAlerts: 'analyst',
  getAlert: 'analyst',
  assignAlert: 'analyst',
  disposeAlert: 'analyst',
  escalateAlert: 'analyst',
  approveAlert: 'supervisor',
  reviewAlert: 'supervisor',
  // analysts reach it to withdraw their own proposal; rejecting anyone else's needs a supervisor (mayRejectProposal)
  rejectAlert: 'analyst',
  // monitors
  createMonitor: 'analyst',
  listMonitors: 'analyst',
  getMonitor: 'analyst',
  pauseMonitor: 'supervisor',
  resumeMonitor: 'supervisor',
  deleteMonitor: 'supervisor',
  // tenant-wide configuration
  getCheckPolicy: 'analyst',
  listDatasetVersionsForTenant: 'analyst',
  updateCheckPolicy: 'admin',
  listFlowTemplates: 'analyst',
  getFlowTemplate: 'analyst',
  createFlowTemplate: 'admin',
  updateFlowTemplate: 'admin',
  listWebhookEndpoints: 'admin',
  createWebhookEndpoint: 'admin',
  updateWebhookEndpoint: 'admin',
  deleteWebhookEndpoint: 'admin',
  getWebhookEndpoint: 'admin',
  listWebhookDeliveries: 'admin',
  redeliverWebhook: 'admin',
  rotateWebhookSecret: 'admin',
  // applicants (internal_status / risk_tier edits need admin: see authorizeApplicantPatch)
  listApplicants: 'analyst',
  getApplicant: 'analyst',
  updateApplicant: 'analyst',
  eraseApplicant: 'admin',
  // documents
  createFlowDocument: 'analyst',
  createDocument: 'analyst',
  listFlowDocuments: 'analyst',
  getFlowDocument: 'analyst',
  completeFlowDocument: 'analyst',
  previewFlowDocument: 'analyst',
  createChipChallenge: 'analyst',
  submitDocumentChip: 'analyst',
  previewChipPortrait: 'analyst',
  documentQuality: 'analyst',
  createLivenessChallenge: 'analyst',
  // operators and sessions
  createOperator: 'admin',
  listOperators: 'admin',
  listOperatorNames: 'analyst',
  updateOperator: 'admin',
  getCurrentSession: 'analyst',
  deleteSession: 'analyst',
  // native apps
  createNativeApp: 'admin',
  listNativeApps: 'analyst',
  getNativeApp: 'analyst',
  updateNativeApp: 'admin',
  // audit log
  listAuditEvents: 'admin',
  // the applicant's journey: a link hands one applicant a flow's data collection (docs/journey.md)
  createVerificationLink: 'supervisor',
  listVerificationLinks: 'supervisor',
  revokeVerificationLink: 'supervisor',
  getVerificationFunnel: 'analyst',
};

/** Unknown operations: reads are open to every role, writes need admin (fail closed). */
export function requiredRole(operationId: string, method: string): OperatorRole {
  return OPERATION_ROLES[operationId] ?? (method === 'GET' ? 'analyst' : 'admin');
}

export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return RANK[role] >= RANK[needed];
}
