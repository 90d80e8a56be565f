import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { RequestInfo } from '../http/request.js';
import type { ApplicantPrincipal } from './principal.js';
import { checkCsrf, parseCookies } from './sessions.js';

/**
 * Applicant sessions (docs/journey.md, "Links and sessions"): opened by a one-time verification link, bound to one
 * flow, held in Postgres (applicant_sessions). The credential is `aps_` + 32 random bytes, in the `vs_applicant`
 * cookie (the hosted page) or as `Authorization: Bearer` (a native app or the tenant's own front end); only its
 * SHA-256 is stored. It ends when unused for the idle timeout, at its absolute lifetime, on cancel, and when its link
 * is revoked.
 */
export const APPLICANT_COOKIE = 'vs_applicant';
const TOKEN_RE = /^aps_[A-Za-z0-9_-]{43}$/;

export interface ApplicantSessionSettings {
  idleSeconds: number;
  maxSeconds: number;
  secureCookie: boolean;
  /** origins, besides the API's own, whose cookie-authenticated writes are accepted (DASHBOARD_ORIGINS) */
  extraOrigins: string[];
}

export function newApplicantToken(): { token: string; hash: Buffer } {
  const token = `aps_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashApplicantToken(token) };
}

export const hashApplicantToken = (token: string): Buffer => hash('sha256', token, 'buffer');

/** The applicant credential a request carries: `Bearer aps_…` first, else the cookie when no Authorization is sent
 * (a tenant key in Authorization is never read as an applicant). */
export function applicantCredentialOf(
  req: RequestInfo,
): { token: string; transport: 'cookie' | 'bearer' } | undefined {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(aps_\S+)$/i.exec(header);
    return m?.[1] ? { token: m[1], transport: 'bearer' } : undefined;
  }
  const cookie = parseCookies(req.headers.cookie)[APPLICANT_COOKIE];
  return cookie ? { token: cookie, transport: 'cookie' } : undefined;
}

/** `vs_applicant=…; Path=/; Max-Age; HttpOnly; Secure; SameSite=Lax`: Lax so that the page opened from the link (a
 * top-level navigation from a mail or a chat) has it; writes are also held to the page's own origin (CSRF). */
export function applicantCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${APPLICANT_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Lax',
  ].join('; ');
}

interface SessionRow {
  token_hash: Buffer;
  session_id: string;
  tenant_id: string;
  flow_id: string;
  link_id: string;
  purpose: 'verification' | 'handoff';
  expires_at: Date;
  plan: 'self_serve' | 'contract';
  status: 'active' | 'pending_verification' | 'suspended';
  allowed_origins: string[];
}

/** Resolves and touches a session in one statement: 401 when unknown, ended, past its lifetime or idle too long. */
export async function resolveApplicantSession(
  sql: Sql,
  credential: { token: string; transport: 'cookie' | 'bearer' },
  idleSeconds: number,
): Promise<ApplicantPrincipal> {
  if (!TOKEN_RE.test(credential.token)) {
    throw new ApiError('unauthorized', { message: 'Malformed applicant session' });
  }
  const h = hashApplicantToken(credential.token);
  const [row] = await sql<SessionRow[]>`
    update applicant_sessions s set last_seen_at = now()
    from tenants t
    where s.token_hash = ${h} and t.id = s.tenant_id and s.transport = ${credential.transport}
      and s.ended_at is null and s.expires_at > now()
      and s.last_seen_at > now() - make_interval(secs => ${idleSeconds})
    returning s.token_hash, s.id as session_id, s.tenant_id, s.flow_id, s.link_id, s.purpose, s.expires_at,
              t.plan, t.status, t.allowed_origins`;
  // the lookup is by hash; compared again in constant time so that no path depends on the token's bytes
  if (!row || !timingSafeEqual(row.token_hash, h)) {
    throw new ApiError('unauthorized', {
      message: 'Applicant session ended or unknown: open the link again',
    });
  }
  if (row.status === 'suspended') throw new ApiError('tenant_suspended');
  if (row.status === 'pending_verification') throw new ApiError('tenant_pending_verification');
  return {
    kind: 'applicant',
    tenant_id: row.tenant_id,
    flow_id: row.flow_id,
    session_id: row.session_id,
    link_id: row.link_id,
    purpose: row.purpose,
    transport: credential.transport,
    expires_at: row.expires_at,
    plan: row.plan,
    allowed_origins: row.allowed_origins,
  };
}

/** The applicant principal of a request, or undefined without an applicant credential. A cookie write must come
 * from the page's own origin (or a configured one): SameSite=Lax alone lets a sibling site post. */
export async function authenticateApplicant(
  sql: Sql,
  req: RequestInfo,
  settings: Pick<ApplicantSessionSettings, 'idleSeconds' | 'extraOrigins'>,
): Promise<ApplicantPrincipal | undefined> {
  const credential = applicantCredentialOf(req);
  if (!credential) return undefined;
  const principal = await resolveApplicantSession(sql, credential, settings.idleSeconds);
  if (credential.transport === 'cookie') checkCsrf(req, [], settings.extraOrigins);
  return principal;
}

/** The allowed origins of the tenant whose applicant session a page request carries ([] without one): the hosted
 * page may be framed by them only. A framed page whose session is a bearer one (an embedding tenant exchanged the
 * link: its token is in the page's fragment, which no request carries) names the session by its id instead
 * (`/applicant/?session=<id>`); the id only says whom to allow to frame the page, it opens nothing. */
export function applicantOrigins(sql: Sql, idleSeconds: number) {
  return async (req: RequestInfo, sessionId?: string): Promise<string[]> => {
    const credential = applicantCredentialOf(req);
    if (!credential) return sessionId ? await bearerSessionOrigins(sql, sessionId, idleSeconds) : [];
    try {
      return (await resolveApplicantSession(sql, credential, idleSeconds)).allowed_origins;
    } catch {
      return [];
    }
  };
}

/** The allowed origins of a live bearer session's tenant, by the session's id (not touched: the id is no credential). */
async function bearerSessionOrigins(sql: Sql, sessionId: string, idleSeconds: number): Promise<string[]> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sessionId)) return [];
  const [row] = await sql<{ allowed_origins: string[] }[]>`
    select t.allowed_origins from applicant_sessions s join tenants t on t.id = s.tenant_id
    where s.id = ${sessionId} and s.transport = 'bearer' and s.ended_at is null and s.expires_at > now()
      and s.last_seen_at > now() - make_interval(secs => ${idleSeconds}) and t.status = 'active'`;
  return row?.allowed_origins ?? [];
}
