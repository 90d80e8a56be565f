/**
 * The dashboard's only way to the service: the public /v1 endpoints with the operator session cookie
 * (HttpOnly, SameSite=Strict; fetch with credentials 'same-origin'), plus /admin with an X-Admin-Token the
 * platform operator types in (kept in memory only) for deployment-wide dataset promotion.
 * Types come from schemas/ (type-only imports: nothing of TypeBox reaches the bundle).
 */

import type { Static } from '@sinclair/typebox';
import type { AlertOut } from '../../schemas/alerts.js';
import type { ApplicantErasureOut, ApplicantOut, ApplicantPatchIn } from '../../schemas/applicants.js';
import type { CheckBatchCreateIn, CheckBatchOut } from '../../schemas/batches.js';
import type { CheckOut } from '../../schemas/checks.js';
import type { DatasetVersionOut, FatfListings } from '../../schemas/datasets.js';
import type { DocumentOut } from '../../schemas/documents.js';
import type { DatasetFeedCreateIn, DatasetFeedOut, DatasetFeedPatchIn } from '../../schemas/feeds.js';
import type { FlowDecideIn, FlowOut } from '../../schemas/flows.js';
import type { FunnelOut, FunnelRow } from '../../schemas/journey.js';
import type { MonitorCreateIn, MonitorOut } from '../../schemas/monitors.js';
import type {
  OperatorCreateIn,
  OperatorNameOut,
  OperatorOut,
  OperatorPatchIn,
} from '../../schemas/operators.js';
import type { CheckPolicyIn, CheckPolicyOut } from '../../schemas/policy.js';
import type {
  WebhookDeliveryOut as WebhookDeliverySchema,
  WebhookEndpointCreateIn,
  WebhookEndpointOut,
} from '../../schemas/webhooks.js';

export type {
  AlertOut,
  ApplicantOut,
  CheckBatchOut,
  CheckOut,
  CheckPolicyOut,
  DatasetFeedOut,
  DatasetVersionOut,
  DocumentOut,
  FlowOut,
  MonitorOut,
  OperatorOut,
  WebhookEndpointOut,
};
export type Role = OperatorOut['role'];
export type WebhookDeliveryOut = Static<typeof WebhookDeliverySchema>;

/** GET /v1/dataset_versions (server/datasets/dataset-operator-routes.ts): no source URIs, only formats. */
export type DatasetVersionSummary = Omit<DatasetVersionOut, 'sources'> & { formats: string[] };

/** GET …/documents/{id}/preview (schemas/documents.ts DocumentPreviewOut). */
export interface DocumentPreviewOut {
  url: string;
  method: 'GET';
  content_type: string;
  expires_in: number;
  expires_at: string;
}

export interface Session {
  operator: OperatorOut;
  tenant_id: string;
  expires_at: string;
}
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An alert (schemas/alerts.ts), with its history when the server sends one. */
export type Alert = AlertOut & {
  history?: { at: string; actor?: string | null; action: string; reason?: string | null }[];
};

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly issues: FieldIssue[],
  ) {
    super(message);
  }
  /** One line for an error banner, with the validation messages of a 422. */
  describe(): string {
    if (this.issues.length) {
      return this.issues
        .map((i) => `${i.loc.filter((l) => l !== 'body').join('.') || 'request'}: ${i.msg}`)
        .join('; ');
    }
    return this.message;
  }
}

/** Called on any 401 so that the shell can go back to the sign-in screen. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

type Query = Record<string, string | number | undefined | null>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function request<T>(
  method: string,
  path: string,
  opts: { body?: unknown; query?: Query; headers?: Record<string, string>; quiet401?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch (err) {
    throw new ApiFailure(
      0,
      'network_error',
      `The service is unreachable (${(err as Error).message})`,
      undefined,
      [],
    );
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const b = (body ?? {}) as {
      error?: { code?: string; message?: string; details?: Record<string, unknown> };
      detail?: FieldIssue[];
    };
    const failure = new ApiFailure(
      res.status,
      b.error?.code ?? `http_${res.status}`,
      b.error?.message ?? `${res.status} ${res.statusText}`,
      b.error?.details,
      Array.isArray(b.detail) ? b.detail : [],
    );
    if (res.status === 401 && !opts.quiet401) onUnauthorized();
    throw failure;
  }
  return body as T;
}

// ---- sessions
export const login = (tenant_id: string, email: string, password: string) =>
  request<Session>('POST', '/v1/sessions', { body: { tenant_id, email, password }, quiet401: true });
export const currentSession = () => request<Session>('GET', '/v1/sessions/current', { quiet401: true });
export const logout = () => request<void>('DELETE', '/v1/sessions', { quiet401: true });

// ---- alerts (workflow endpoints of the alerts issue)
export interface AlertFilters {
  state?: string;
  /** an operator id, "me" or "none" */
  assignee?: string;
  /** ISO time: alerts not closed whose SLA ends before it */
  due_before?: string;
  flow_id?: string;
  applicant_id?: string;
  check_id?: string;
  limit?: number;
  after?: string;
}
export const listAlerts = (f: AlertFilters) => request<Page<Alert>>('GET', '/v1/alerts', { query: { ...f } });
export const getAlert = (id: string) => request<Alert>('GET', `/v1/alerts/${encodeURIComponent(id)}`);
export const assignAlert = (id: string, assignee_id: string | null) =>
  request<Alert>('POST', `/v1/alerts/${encodeURIComponent(id)}/assign`, { body: { assignee_id } });
export const disposeAlert = (id: string, disposition: string, reason: string) =>
  request<Alert>('POST', `/v1/alerts/${encodeURIComponent(id)}/disposition`, {
    body: { disposition, reason },
  });
/** Approve takes no body: the proposal (who, what, why) is already on the alert. */
export const approveAlert = (id: string) =>
  request<Alert>('POST', `/v1/alerts/${encodeURIComponent(id)}/approve`);
export const rejectAlert = (id: string, reason: string) =>
  request<Alert>('POST', `/v1/alerts/${encodeURIComponent(id)}/reject`, { body: { reason } });

// ---- flows and checks
export const listFlows = (q: { status?: string; decision?: string; limit?: number; after?: string }) =>
  request<Page<FlowOut>>('GET', '/v1/flows', { query: { ...q } });
export const getFlow = (id: string) => request<FlowOut>('GET', `/v1/flows/${encodeURIComponent(id)}`);
export const decideFlow = (id: string, body: FlowDecideIn) =>
  request<FlowOut>('POST', `/v1/flows/${encodeURIComponent(id)}/decide`, { body });
export const rerunAml = (id: string) =>
  request<Record<string, unknown>>('POST', `/v1/flows/${encodeURIComponent(id)}/checks/aml_screen/rerun`);
/** A flow's verification link (docs/journey.md); `url` only in the answer that minted it. */
export interface VerificationLink {
  id: string;
  flow_id: string;
  purpose: 'verification' | 'handoff';
  url: string | null;
  status: 'active' | 'used' | 'expired' | 'revoked';
  expires_at: string;
  redirect_url: string | null;
  locale: string | null;
  created_at: string;
  used_at: string | null;
  revoked_at: string | null;
}
const linksPath = (flowId: string) => `/v1/flows/${encodeURIComponent(flowId)}/verification_links`;
export const listVerificationLinks = (flowId: string) =>
  request<{ items: VerificationLink[] }>('GET', linksPath(flowId));
export const createVerificationLink = (
  flowId: string,
  body: { expires_in?: number; locale?: string; redirect_url?: string },
) => request<VerificationLink>('POST', linksPath(flowId), { body });
export const revokeVerificationLink = (flowId: string, linkId: string) =>
  request<VerificationLink>('DELETE', `${linksPath(flowId)}/${encodeURIComponent(linkId)}`);
/** GET /v1/verification_funnel: per template, how many flows reached each stage of the journey. */
export type { FunnelRow };
export const getFunnel = (q: { template_id?: string; since?: string }) =>
  request<FunnelOut>('GET', '/v1/verification_funnel', { query: q });

export const previewDocument = (flowId: string, documentId: string) =>
  request<DocumentPreviewOut>(
    'GET',
    `/v1/flows/${encodeURIComponent(flowId)}/documents/${encodeURIComponent(documentId)}/preview`,
  );
/** GET …/documents/{id}/chip/portrait: the chip's DG2 portrait as JPEG (audited). */
export const previewChipPortrait = (flowId: string, documentId: string) =>
  request<DocumentPreviewOut>(
    'GET',
    `/v1/flows/${encodeURIComponent(flowId)}/documents/${encodeURIComponent(documentId)}/chip/portrait`,
  );
export const listChecks = (q: Query) => request<Page<CheckOut>>('GET', '/v1/checks', { query: q });

// ---- applicants
export const listApplicants = (q: { q?: string; status?: string; limit?: number; after?: string }) =>
  request<Page<ApplicantOut>>('GET', '/v1/applicants', { query: { ...q } });
export const getApplicant = (id: string) =>
  request<ApplicantOut>('GET', `/v1/applicants/${encodeURIComponent(id)}`);
export const patchApplicant = (id: string, body: ApplicantPatchIn) =>
  request<ApplicantOut>('PATCH', `/v1/applicants/${encodeURIComponent(id)}`, { body });
export const eraseApplicant = (id: string) =>
  request<ApplicantErasureOut>('DELETE', `/v1/applicants/${encodeURIComponent(id)}`);

// ---- batches and monitors
export const createBatch = (body: CheckBatchCreateIn) =>
  request<CheckBatchOut>('POST', '/v1/check_batches', { body });
export const getBatch = (id: string) =>
  request<CheckBatchOut>('GET', `/v1/check_batches/${encodeURIComponent(id)}`);
export const createMonitor = (body: MonitorCreateIn) => request<MonitorOut>('POST', '/v1/monitors', { body });
export const listBatches = (q: { status?: string; after?: string }) =>
  request<Page<CheckBatchOut>>('GET', '/v1/check_batches', { query: { ...q, limit: 50 } });
export const listMonitors = (q: { status?: string; search?: string; cursor?: string }) =>
  request<Page<MonitorOut>>('GET', '/v1/monitors', { query: { ...q, limit: 50 } });
export const deleteMonitor = (id: string) =>
  request<void>('DELETE', `/v1/monitors/${encodeURIComponent(id)}`);
export const pauseMonitor = (id: string) =>
  request<MonitorOut>('POST', `/v1/monitors/${encodeURIComponent(id)}/pause`);
export const resumeMonitor = (id: string) =>
  request<MonitorOut>('POST', `/v1/monitors/${encodeURIComponent(id)}/resume`);

// ---- tenant configuration
export const getPolicy = () => request<CheckPolicyOut>('GET', '/v1/check_policy');
export const putPolicy = (body: CheckPolicyIn) =>
  request<CheckPolicyOut>('PUT', '/v1/check_policy', { body });
export const listWebhooks = () =>
  request<Page<WebhookEndpointOut>>('GET', '/v1/webhook_endpoints', { query: { limit: 200 } });
export const createWebhook = (body: WebhookEndpointCreateIn) =>
  request<WebhookEndpointOut>('POST', '/v1/webhook_endpoints', { body });
export const setWebhookEnabled = (id: string, enabled: boolean) =>
  request<WebhookEndpointOut>('PATCH', `/v1/webhook_endpoints/${encodeURIComponent(id)}`, {
    body: { enabled },
  });
export const rotateWebhookSecret = (id: string) =>
  request<WebhookEndpointOut>('POST', `/v1/webhook_endpoints/${encodeURIComponent(id)}/rotate_secret`);
export const listDeliveries = (id: string) =>
  request<Page<WebhookDeliveryOut>>('GET', `/v1/webhook_endpoints/${encodeURIComponent(id)}/deliveries`, {
    query: { limit: 100 },
  });
export const redeliver = (endpointId: string, deliveryId: string) =>
  request<WebhookDeliveryOut>(
    'POST',
    `/v1/webhook_endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
  );
export const listOperators = () =>
  request<Page<OperatorOut>>('GET', '/v1/operators', { query: { limit: 200 } });
export const listOperatorNames = () => request<{ items: OperatorNameOut[] }>('GET', '/v1/operator_names');
export const createOperator = (body: OperatorCreateIn) =>
  request<OperatorOut>('POST', '/v1/operators', { body });
export const patchOperator = (id: string, body: OperatorPatchIn) =>
  request<OperatorOut>('PATCH', `/v1/operators/${encodeURIComponent(id)}`, { body });

// ---- dataset versions: read through /v1, promote through /admin (deployment-wide)
export const listDatasetVersions = () =>
  request<{ items: DatasetVersionSummary[]; active: DatasetVersionSummary | null }>(
    'GET',
    '/v1/dataset_versions',
  );

// ---- deployment-wide /admin screens (FATF listings, list feeds): the X-Admin-Token typed in by the operator
const admin = (token: string) => ({ headers: { 'x-admin-token': token }, quiet401: true });

export type { FatfListings };
export const getFatf = (token: string) => request<FatfListings>('GET', '/admin/fatf_listings', admin(token));
export const putFatf = (token: string, body: FatfListings) =>
  request<FatfListings>('PUT', '/admin/fatf_listings', { ...admin(token), body });
export const listFeeds = (token: string) =>
  request<{ items: DatasetFeedOut[] }>('GET', '/admin/dataset_feeds', admin(token));
export const createFeed = (token: string, body: DatasetFeedCreateIn) =>
  request<DatasetFeedOut>('POST', '/admin/dataset_feeds', { ...admin(token), body });
export const patchFeed = (token: string, id: string, body: DatasetFeedPatchIn) =>
  request<DatasetFeedOut>('PATCH', `/admin/dataset_feeds/${encodeURIComponent(id)}`, {
    ...admin(token),
    body,
  });
export const deleteFeed = (token: string, id: string) =>
  request<void>('DELETE', `/admin/dataset_feeds/${encodeURIComponent(id)}`, admin(token));
export const runFeed = (token: string, id: string) =>
  request<DatasetFeedOut>('POST', `/admin/dataset_feeds/${encodeURIComponent(id)}/run`, admin(token));
export const promoteDatasetVersion = (id: string, adminToken: string) =>
  request<DatasetVersionOut>('POST', `/admin/dataset_versions/${encodeURIComponent(id)}/promote`, {
    headers: { 'x-admin-token': adminToken },
    quiet401: true,
  });
