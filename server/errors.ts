// The error catalogue: every non-validation error the API returns has a stable code and status here.
export const ERRORS = {
  unauthorized: { status: 401, message: 'Missing, malformed or unknown credential' },
  allowance_exhausted: { status: 402, message: 'The account allowance of checks is used up' },
  forbidden: { status: 403, message: 'The credential is not allowed to perform this action' },
  tenant_pending_verification: {
    status: 403,
    message: 'The tenant is pending_verification: its keys are not active until its identity check completes',
  },
  tenant_suspended: { status: 403, message: 'The tenant is suspended' },
  origin_not_allowed: { status: 403, message: 'The Origin is not in the tenant allowlist' },
  csrf_origin_mismatch: {
    status: 403,
    message: 'Cookie-authenticated writes need an Origin header matching an allowed origin',
  },
  insufficient_role: { status: 403, message: 'Your operator role does not allow this action' },
  applicant_session_forbidden: {
    status: 403,
    message: "An applicant session may act only on its own flow, with its session's purpose",
  },
  admin_authority_required: {
    status: 403,
    message: 'This action needs admin authority (tenant secret key or an admin operator)',
  },
  not_found: { status: 404, message: 'Resource not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this path' },
  conflict: { status: 409, message: 'The request conflicts with the current state' },
  applicant_has_open_flows: {
    status: 409,
    message:
      'The applicant has open flows (PENDING, AWAITING_INPUT, PROCESSING, NEEDS_REVIEW); erasure is refused',
  },
  document_state_conflict: { status: 409, message: 'The document is not in a state that allows this action' },
  document_integrity_failed: {
    status: 409,
    message: 'The stored bytes are not the bytes that were verified: the document is rejected',
  },
  flow_not_collecting: {
    status: 409,
    message: 'The flow is not collecting applicant input (it is past that, or its template needs none)',
  },
  inputs_missing: { status: 409, message: 'Some inputs are still missing: see details.missing' },
  link_unusable: {
    status: 410,
    message: 'The verification link cannot be used: see details.reason (used, expired, revoked, unknown)',
  },
  already_exists: { status: 409, message: 'A resource with the same unique key already exists' },
  alert_state_conflict: { status: 409, message: 'The alert is not in a state that allows this action' },
  alert_nothing_pending: { status: 409, message: 'No disposition of this alert is pending approval' },
  alert_evidence_stale: {
    status: 409,
    message: "The alert's evidence changed after the disposition was proposed; reject it and review again",
  },
  self_approval_forbidden: {
    status: 403,
    message: 'Four-eyes review: the operator who proposed a disposition cannot approve it',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'The Idempotency-Key was already used with a different body',
    loc: ['header', 'idempotency-key'],
  },
  idempotency_in_flight: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed',
  },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  validation_failed: { status: 422, message: 'The request is invalid' },
  unsupported_operation: {
    status: 422,
    message: 'The operation is not supported in the current state',
    loc: ['path', 'flow_id'],
  },
  capture_mode_not_allowed: {
    status: 422,
    message: "The template's document_capture_mode does not allow this capture",
    loc: ['body', 'capture'],
  },
  biometric_consent_required: {
    status: 422,
    message:
      'This flow needs biometric processing (selfie / face match): the applicant must give consent.biometric = true',
    loc: ['body', 'applicant', 'consent', 'biometric'],
  },
  chip_not_accepted: {
    status: 422,
    message: "This document does not take chip data (its flow's template, or its document type)",
    loc: ['path', 'document_id'],
  },
  chip_data_invalid: { status: 422, message: 'The chip data is not what it claims to be', loc: ['body'] },
  chip_challenge_invalid: {
    status: 422,
    message: 'The Active Authentication challenge is unknown, used, expired or for another document',
    loc: ['body', 'active_authentication', 'challenge_id'],
  },
  chip_already_submitted: { status: 409, message: "This document's chip data was submitted already" },
  trust_store_file_invalid: {
    status: 422,
    message: 'The file is not a valid master list, CSCA certificate or CRL for the trust store',
    loc: ['body', 'data'],
  },
  liveness_challenge_unknown: {
    status: 422,
    message: 'No liveness challenge with this id on this flow',
    loc: ['body', 'liveness_challenge_id'],
  },
  liveness_challenge_expired: {
    status: 422,
    message: 'The liveness challenge has expired: start a new one',
    loc: ['body', 'liveness_challenge_id'],
  },
  liveness_challenge_used: {
    status: 409,
    message: 'This pose of the liveness challenge already has its frame: start a new challenge to retake',
  },
  liveness_challenge_limit: {
    status: 409,
    message: 'The flow has had as many liveness challenges as it may have',
  },
  rate_limited: { status: 429, message: 'Too many requests' },
  login_locked: { status: 429, message: 'Too many failed sign-in attempts; try again later' },
  internal_error: { status: 500, message: 'Internal error' },
  overloaded: { status: 503, message: 'The screening pool is at capacity; retry shortly' },
  matcher_unavailable: { status: 503, message: 'No dataset version is loaded yet' },
  shutting_down: { status: 503, message: 'The server is shutting down' },
  service_unavailable: {
    status: 503,
    message: 'A service this request needs is unavailable; nothing was changed, retry shortly',
  },
} as const satisfies Record<string, { status: number; message: string; loc?: readonly string[] }>;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;
  /** where the offending input is, for a 422's detail[] (default: the catalogue's loc, else ["body"]) */
  readonly loc: (string | number)[] | undefined;

  constructor(
    code: ErrorCode,
    opts: {
      message?: string;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
      loc?: (string | number)[];
    } = {},
  ) {
    super(opts.message ?? ERRORS[code].message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = opts.details;
    this.headers = opts.headers;
    const entry = ERRORS[code];
    this.loc = opts.loc ?? ('loc' in entry ? [...entry.loc] : undefined);
  }
}

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** 422 with the spec's ValidationError array. */
export class ValidationError extends Error {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.issues = issues;
  }
}

export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new ValidationError([{ loc, msg, type }]);

/** The backing services whose outage a request can meet. */
export type Dependency = 'database' | 'redis' | 'nats';
/** Seconds a client should wait before retrying after an outage answer. */
export const OUTAGE_RETRY_AFTER_S = 2;

/** 503 service_unavailable with Retry-After, naming the dependency (the documented outage answer). */
export function outageError(dependency: Dependency, message?: string): ApiError {
  return new ApiError('service_unavailable', {
    ...(message ? { message } : {}),
    details: { dependency },
    headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_S) },
  });
}

// postgres.js: socket errors of a connection, its own connection codes, and SQLSTATE classes 08 (connection
// exception), 57P01-03 (server shutting down / starting) and 53300 (too many connections)
const PG_CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
// ioredis: no connection and no offline queue, retries exhausted, command timeout, connection closed
const REDIS_MESSAGES = /enableOfflineQueue|Connection is closed|Command timed out|Reached the max retries/;

/** Which dependency's outage an unexpected error is, if any. `down` reports the dependencies known to be
 * disconnected right now: an unclassified error that happens while one is down is blamed on it. */
export function outageOf(err: unknown, down: () => Dependency[] = () => []): Dependency | undefined {
  if (err instanceof ApiError || err instanceof ValidationError) return undefined;
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const name = typeof e?.name === 'string' ? e.name : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.test(message)) return 'redis';
  if (PG_CONNECTION_CODES.has(code) || (name === 'PostgresError' && code.startsWith('08'))) return 'database';
  return down()[0];
}
