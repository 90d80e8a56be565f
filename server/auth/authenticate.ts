import { timingSafeEqual } from 'node:crypto';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { RequestInfo } from '../http/request.js';
import { type ApplicantSessionSettings, authenticateApplicant } from './applicant-sessions.js';
import { hashKey, keyKind, safeEqual } from './keys.js';
import type { AuthMode, Principal, TenantPrincipal } from './principal.js';
import { checkCsrf, resolveSession, type SessionSettings, sessionTokenOf } from './sessions.js';

interface KeyRow {
  key_id: string;
  key_hash: Buffer;
  kind: 'secret' | 'publishable';
  tenant_id: string;
  plan: 'self_serve' | 'contract';
  status: 'active' | 'pending_verification' | 'suspended';
  allowed_origins: string[];
}

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

/** Resolves credentials to a principal. Key lookups are cached for a few seconds per process:
 * revocation and tenant status changes take effect within CACHE_TTL_MS everywhere. */
export function createAuthenticator(
  sql: Sql,
  adminToken: string,
  sessions: Pick<SessionSettings, 'dashboardOrigins'> = { dashboardOrigins: [] },
  applicant: Pick<ApplicantSessionSettings, 'idleSeconds'> = { idleSeconds: 1800 },
) {
  const applicantSettings = { ...applicant, extraOrigins: sessions.dashboardOrigins };
  const cache = new Map<string, { row: KeyRow | null; at: number }>();

  async function lookup(hash: Buffer): Promise<KeyRow | null> {
    const k = hash.toString('base64');
    const hit = cache.get(k);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.row;
    const rows = await sql<KeyRow[]>`
      select k.id as key_id, k.key_hash, k.kind, t.id as tenant_id, t.plan, t.status, t.allowed_origins
      from api_keys k join tenants t on t.id = k.tenant_id
      where k.key_hash = ${hash} and k.revoked_at is null`;
    const row = rows[0] ?? null;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(k, { row, at: Date.now() });
    return row;
  }

  return async function authenticate(mode: AuthMode, req: RequestInfo): Promise<Principal> {
    if (mode === 'applicant' || mode === 'secret_or_applicant') {
      // an applicant session is read only on the routes that name it: everywhere else it is no credential (401)
      const principal = await authenticateApplicant(sql, req, applicantSettings);
      if (principal) return principal;
      if (mode === 'applicant') {
        throw new ApiError('unauthorized', {
          message: 'This endpoint needs an applicant session (the vs_applicant cookie or Bearer aps_…)',
        });
      }
      return authenticate('secret', req);
    }
    if (mode === 'session') {
      // a key is still checked first (an unknown one is a 401), then refused: this route is the dashboard's
      const principal = await authenticate('secret', req);
      if (principal.kind !== 'operator') {
        throw new ApiError('forbidden', {
          message: 'Only an operator session (cookie) can use this endpoint',
        });
      }
      return principal;
    }
    if (mode === 'none') return { kind: 'anonymous' };
    if (mode === 'admin') {
      const token = req.headers['x-admin-token'];
      if (!token || !safeEqual(token, adminToken)) {
        throw new ApiError('unauthorized', { message: 'Missing or wrong X-Admin-Token' });
      }
      return { kind: 'admin' };
    }
    const header = req.headers.authorization;
    if (!header && mode === 'bearer') {
      throw new ApiError('unauthorized', {
        message: 'This endpoint needs Authorization: Bearer <secret key>; an operator session cannot call it',
      });
    }
    if (!header) {
      // the dashboard: an operator session cookie (secret-level routes, within the operator's role)
      const token = sessionTokenOf(req);
      if (token) {
        const operator = await resolveSession(sql, token);
        checkCsrf(req, operator.allowed_origins, sessions.dashboardOrigins);
        return operator;
      }
      throw new ApiError('unauthorized', { message: 'Missing Authorization: Bearer <key>' });
    }
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const key = m?.[1];
    const kind = key ? keyKind(key) : undefined;
    if (!key || !kind)
      throw new ApiError('unauthorized', { message: 'Malformed credential: expected Bearer tnk_… or pk_…' });
    const hash = hashKey(key);
    const row = await lookup(hash);
    // the lookup is by hash; compare again in constant time so no early-exit path depends on key bytes
    if (!row || !timingSafeEqual(row.key_hash, hash) || row.kind !== kind) {
      throw new ApiError('unauthorized', { message: 'Unknown or revoked key' });
    }
    if (row.status === 'pending_verification') throw new ApiError('tenant_pending_verification');
    if (row.status === 'suspended') throw new ApiError('tenant_suspended');
    if ((mode === 'secret' || mode === 'bearer') && kind !== 'secret') {
      throw new ApiError('forbidden', { message: 'A publishable key cannot call this endpoint' });
    }
    const principal: TenantPrincipal = {
      kind,
      tenant_id: row.tenant_id,
      key_id: row.key_id,
      plan: row.plan,
      allowed_origins: row.allowed_origins,
    };
    return principal;
  };
}
