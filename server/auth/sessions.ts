import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { RequestInfo } from '../http/request.js';
import type { OperatorPrincipal, OperatorRole } from './principal.js';

/** Operator sessions: an opaque random cookie value; only its SHA-256 is stored (operator_sessions.token_hash). */
export const SESSION_COOKIE = 'vs_session';
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionSettings {
  ttlSeconds: number;
  secureCookie: boolean;
  /** extra origins (besides same-origin and the tenant allowlist) allowed for cookie-authenticated writes */
  dashboardOrigins: string[];
}

export function newSessionToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSessionToken(token) };
}

export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const k = part.slice(0, i).trim();
    if (!(k in out)) out[k] = part.slice(i + 1).trim();
  }
  return out;
}

export function sessionTokenOf(req: RequestInfo): string | undefined {
  return parseCookies(req.headers.cookie)[SESSION_COOKIE];
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Strict',
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return [
    `${SESSION_COOKIE}=`,
    'Path=/',
    'Max-Age=0',
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Strict',
  ].join('; ');
}

interface SessionRow {
  session_id: string;
  tenant_id: string;
  operator_id: string;
  role: OperatorRole;
  plan: 'self_serve' | 'contract';
  status: 'active' | 'pending_verification' | 'suspended';
  allowed_origins: string[];
}

/** Resolves a session cookie value to an operator principal; 401 when unknown, expired, revoked or disabled.
 * Not cached: logout and operator disabling take effect on the next request. */
export async function resolveSession(sql: Sql, token: string): Promise<OperatorPrincipal> {
  if (!TOKEN_RE.test(token)) throw new ApiError('unauthorized', { message: 'Malformed session cookie' });
  const [row] = await sql<SessionRow[]>`
    select s.id as session_id, s.tenant_id, s.operator_id, o.role, t.plan, t.status, t.allowed_origins
    from operator_sessions s
    join operators o on o.id = s.operator_id and o.tenant_id = s.tenant_id
    join tenants t on t.id = s.tenant_id
    where s.token_hash = ${hashSessionToken(token)}
      and s.revoked_at is null and s.expires_at > now() and o.disabled_at is null`;
  if (!row) throw new ApiError('unauthorized', { message: 'Session expired or unknown: sign in again' });
  if (row.status === 'suspended') throw new ApiError('tenant_suspended');
  if (row.status === 'pending_verification') throw new ApiError('tenant_pending_verification');
  return {
    kind: 'operator',
    tenant_id: row.tenant_id,
    operator_id: row.operator_id,
    role: row.role,
    session_id: row.session_id,
    plan: row.plan,
    allowed_origins: row.allowed_origins,
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** CSRF defence for cookie-authenticated requests (on top of SameSite=Strict): a state-changing request must carry
 * an Origin equal to the API's own origin (same-origin dashboard), a configured dashboard origin, or one of the
 * tenant's allowed origins. A missing Origin is refused: browsers always send it on cross-origin and on
 * non-GET same-origin fetches. */
export function checkCsrf(req: RequestInfo, tenantOrigins: string[], dashboardOrigins: string[]): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  if (!origin || origin === 'null') {
    throw new ApiError('csrf_origin_mismatch', { message: 'Missing Origin on a cookie-authenticated write' });
  }
  const host = req.headers.host;
  let sameOrigin = false;
  try {
    sameOrigin = !!host && new URL(origin).host === host;
  } catch {
    sameOrigin = false;
  }
  if (sameOrigin || dashboardOrigins.includes(origin) || tenantOrigins.includes(origin)) return;
  throw new ApiError('csrf_origin_mismatch', { details: { origin } });
}
