/**
 * The page's only way to the service: the applicant-session operations of docs/journey.md, on the same origin with
 * the session cookie (HttpOnly: the page never sees it) — or, in an embedding tenant's iframe, with the bearer token
 * the tenant put in the page's fragment (a cross-site frame gets no SameSite=Lax cookie) — and the object store's
 * presigned PUTs for captures.
 */

export type CaptureMode = 'live_only' | 'upload_only' | 'live_or_upload';
export type Pose = 'front' | 'left' | 'right' | 'up' | 'down';

export interface ConsentStep {
  name: 'consent';
  done: boolean;
  biometric_required: boolean;
  /** the version consented to; null before consent */
  policy_version: string | null;
}
export interface IntakeStep {
  name: 'intake';
  done: boolean;
  fields: { name: string; required: boolean; value_present: boolean }[];
}
export interface SessionDocument {
  id: string;
  doc_type: string;
  side: string;
  upload_status: string;
  capture: string | null;
}
export interface DocumentStep {
  name: 'document';
  done: boolean;
  allowed_document_types: string[];
  allowed_issuing_countries: string[];
  required_documents: { types: string[]; side: string; min: number }[];
  capture_mode: CaptureMode;
  nfc: 'disabled' | 'optional' | 'required';
  documents: SessionDocument[];
}
export interface SelfieStep {
  name: 'selfie';
  done: boolean;
  liveness: boolean;
  documents?: SessionDocument[];
}
export interface ReviewStep {
  name: 'review';
  done: boolean;
}
export type Step = ConsentStep | IntakeStep | DocumentStep | SelfieStep | ReviewStep;
export type StepName = Step['name'];

export interface SessionView {
  flow_id: string;
  purpose: 'verification' | 'handoff';
  locale: string | null;
  tenant: { display_name: string };
  expires_at: string;
  redirect_url: string | null;
  steps: Step[];
  missing: string[];
  status: 'collecting' | 'submitted' | 'processing' | 'done';
  /** the hand-off to another device, once one was asked for */
  handoff?: { status: 'waiting' | 'opened' | 'ended'; expires_at: string } | null;
}

export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail: FieldIssue[] = [],
  ) {
    super(message);
  }
}

let bearer: string | null = null;

/** The embedded page's session: `#token=aps_…` of its address (a POST /v1/applicant_sessions page_url); null for a
 * page opened by a link (its cookie is the session). The token stays in the fragment, so that a reload of the frame
 * resumes: browsers that block third-party storage deny a cross-site frame its sessionStorage, and a fragment never
 * reaches a server, a log or a Referer. */
export function adoptBearer(): void {
  bearer = /^#token=(aps_[A-Za-z0-9_-]{43})$/.exec(location.hash)?.[1] ?? null;
}

/** The session ended (cancel): the page forgets its token and takes it out of its address. */
export function dropBearer(): void {
  if (!bearer) return;
  bearer = null;
  history.replaceState(null, '', location.pathname + location.search);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      // with a bearer no cookie is wanted; a different credentials mode also keeps the page's preload of its
      // session (made without the token) from answering this request
      credentials: bearer ? 'omit' : 'same-origin',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiFailure(0, 'network', 'network');
  }
  const json = (await res.json().catch(() => null)) as
    | (T & { error?: { code?: string; message?: string }; detail?: FieldIssue[] })
    | null;
  if (!res.ok) {
    throw new ApiFailure(
      res.status,
      json?.error?.code ?? 'http_error',
      json?.error?.message ?? res.statusText,
      json?.detail ?? [],
    );
  }
  return json as T;
}

export interface CreatedDocument {
  id: string;
  upload: { url: string; method: 'PUT'; headers: Record<string, string> };
}
export interface QualityVerdict {
  ok: boolean;
  /** reason codes of the document and selfie checks (document_unreadable, selfie_no_face, …) */
  reasons: string[];
  /** what made it of low quality (image_blurred, glare_high, resolution_low) */
  quality_reasons?: string[];
}
export interface LivenessChallenge {
  id: string;
  nonce: string;
  poses: Pose[];
  expires_at: string;
}

export interface NewCapture {
  doc_type: string;
  side: string;
  capture: 'camera' | 'upload';
  mime_type: 'image/jpeg' | 'image/png';
  liveness_challenge_id?: string;
  pose?: Pose;
}

const flowPath = (flowId: string) => `/v1/flows/${encodeURIComponent(flowId)}`;

export const api = {
  session: () => call<SessionView>('GET', '/v1/applicant_session'),
  consent: (body: { biometric: boolean; policy_version: string }) =>
    call<SessionView>('POST', '/v1/applicant_session/consent', body),
  intake: (body: Record<string, string>) => call<SessionView>('PUT', '/v1/applicant_session/intake', body),
  handoff: () => call<{ url: string; expires_at: string }>('POST', '/v1/applicant_session/handoff'),
  submit: () => call<SessionView>('POST', '/v1/applicant_session/submit'),
  cancel: () => call<unknown>('POST', '/v1/applicant_session/cancel').finally(dropBearer),
  createDocument: (flowId: string, body: NewCapture) =>
    call<CreatedDocument>('POST', '/v1/documents', { submission_id: flowId, ...body }),
  complete: (flowId: string, documentId: string) =>
    call<unknown>('POST', `${flowPath(flowId)}/documents/${encodeURIComponent(documentId)}/complete`),
  quality: (flowId: string, documentId: string) =>
    call<QualityVerdict>('POST', `${flowPath(flowId)}/documents/${encodeURIComponent(documentId)}/quality`),
  livenessChallenge: (flowId: string) =>
    call<LivenessChallenge>('POST', `${flowPath(flowId)}/liveness_challenges`),
};

/** PUTs a capture to its presigned URL with exactly the headers the URL was signed with. */
export async function putUpload(upload: CreatedDocument['upload'], image: Blob): Promise<void> {
  let res: Response;
  try {
    res = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: image });
  } catch {
    throw new ApiFailure(0, 'network', 'network');
  }
  if (!res.ok) throw new ApiFailure(res.status, 'upload_failed', res.statusText);
}

/** One capture sent: registered, uploaded, judged by the synchronous quality endpoint and completed only when good
 * (a refused capture is never completed, so it never counts). A liveness frame is judged by the challenge itself (a
 * turned head is what it asks for). */
export async function sendCapture(flowId: string, what: NewCapture, image: Blob): Promise<QualityVerdict> {
  const doc = await api.createDocument(flowId, what);
  await putUpload(doc.upload, image);
  if (!what.liveness_challenge_id) {
    const verdict = await api.quality(flowId, doc.id);
    if (!verdict.ok) return verdict;
  }
  await api.complete(flowId, doc.id);
  return { ok: true, reasons: [] };
}
