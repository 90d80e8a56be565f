import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { SessionCreateIn, SessionOut } from '../../schemas/operators.js';
import { actorOf, piiHash, writeAudit } from '../audit/audit.js';
import type { OperatorPrincipal, Principal } from '../auth/principal.js';
import {
  checkCsrf,
  clearedSessionCookie,
  newSessionToken,
  type SessionSettings,
  sessionCookie,
} from '../auth/sessions.js';
import { type Sql, transaction } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import { type OperatorRow, operatorOut } from '../operators/operator-service.js';
import { dummyHash, verifyPassword } from '../operators/password.js';

export interface SessionDeps {
  sql: Sql;
  redis: Redis;
  /** prefix of Redis keys (the deployment namespace) */
  ns: string;
  piiKey: string;
  settings: SessionSettings;
  maxFailures: number;
  lockoutSeconds: number;
}

const E401 = { description: 'Wrong e-mail or password, or no valid session', schema: ErrorEnvelope };
const E422 = { description: 'Validation error', schema: ValidationFailure };

/** Brute-force protection: sign-in attempts are counted per account (tenant + e-mail) and per client IP in Redis,
 * in a fixed window of lockoutSeconds that starts at the first counted attempt. Checking and counting are one Lua
 * call (atomic), so parallel guesses cannot all pass the check before any of them is counted: an attempt takes a
 * slot before the password is verified; at maxFailures (account) or 10×maxFailures (IP) taken slots, further
 * attempts get 429 until the window ends — even with the right password. A success gives its slots back (the
 * account counter is cleared, the IP counter decremented), so only failures accumulate. */
const ATTEMPT = `
local acct, ip = KEYS[1], KEYS[2]
local max_acct, max_ip, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if tonumber(redis.call('GET', acct) or '0') >= max_acct then return redis.call('TTL', acct) end
if tonumber(redis.call('GET', ip) or '0') >= max_ip then return redis.call('TTL', ip) end
redis.call('INCR', acct)
redis.call('EXPIRE', acct, ttl, 'NX')
redis.call('INCR', ip)
redis.call('EXPIRE', ip, ttl, 'NX')
return 0
`;
const RELEASE = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;

class LoginThrottle {
  constructor(private readonly deps: SessionDeps) {}
  private keys(tenantId: string, email: string, ip: string): [string, string] {
    const h = createHash('sha256').update(`${tenantId}\u0000${email}`).digest('hex').slice(0, 32);
    return [`${this.deps.ns}:login:acct:${h}`, `${this.deps.ns}:login:ip:${ip}`];
  }
  /** Takes an attempt slot or throws 429 login_locked. */
  async attempt(tenantId: string, email: string, ip: string): Promise<void> {
    const { maxFailures, lockoutSeconds } = this.deps;
    const ttl = (await this.deps.redis.eval(
      ATTEMPT,
      2,
      ...this.keys(tenantId, email, ip),
      maxFailures,
      maxFailures * 10,
      lockoutSeconds,
    )) as number;
    if (ttl !== 0) {
      const retry = Math.max(1, ttl > 0 ? ttl : lockoutSeconds);
      throw new ApiError('login_locked', {
        details: { retry_after_seconds: retry },
        headers: { 'retry-after': String(retry) },
      });
    }
  }
  /** A successful sign-in gives its slots back; a failed one keeps them. */
  async succeed(tenantId: string, email: string, ip: string): Promise<void> {
    await this.deps.redis.eval(RELEASE, 2, ...this.keys(tenantId, email, ip));
  }
}

/** The operator of a 'session' route (authenticate() has refused every other credential already). */
function requireOperator(p: Principal): OperatorPrincipal {
  if (p.kind !== 'operator') {
    throw new ApiError('forbidden', { message: 'Only an operator session (cookie) can use this endpoint' });
  }
  return p;
}

export function sessionRoutes(deps: SessionDeps) {
  const { sql, settings } = deps;
  const throttle = new LoginThrottle(deps);
  return [
    route({
      method: 'POST',
      path: '/v1/sessions',
      operationId: 'createSession',
      summary: 'Operator sign-in: sets an HttpOnly, Secure, SameSite=Strict session cookie',
      tag: 'sessions',
      auth: 'none',
      body: SessionCreateIn,
      responses: {
        201: { description: 'Signed in; Set-Cookie carries the session', schema: SessionOut },
        401: E401,
        403: {
          description:
            'The tenant is suspended or pending_verification, or a browser sign-in came from an origin that is not allowed',
          schema: ErrorEnvelope,
        },
        422: E422,
        429: { description: 'Too many failed attempts (Retry-After)', schema: ErrorEnvelope },
      },
      handler: async ({ body, req }) => {
        const email = body.email.trim().toLowerCase();
        await throttle.attempt(body.tenant_id, email, req.ip);
        const [op] = await sql<(OperatorRow & { tenant_status: string; tenant_origins: string[] })[]>`
          select o.*, t.status as tenant_status, t.allowed_origins as tenant_origins
          from operators o join tenants t on t.id = o.tenant_id
          where o.tenant_id = ${body.tenant_id} and lower(o.email) = ${email}`;
        // unknown accounts cost one scrypt too, so that timing does not reveal which e-mails exist
        const ok = await verifyPassword(body.password, op?.password_hash ?? (await dummyHash()));
        if (!op || !ok || op.disabled_at) {
          throw new ApiError('unauthorized', { message: 'Wrong e-mail or password' });
        }
        // login CSRF: a browser sign-in must come from the dashboard's own origin (or a configured/allowed one),
        // so that another site cannot sign a victim's browser into an attacker's account
        if (req.headers.origin) checkCsrf(req, op.tenant_origins, deps.settings.dashboardOrigins);
        if (op.tenant_status === 'suspended') throw new ApiError('tenant_suspended');
        if (op.tenant_status === 'pending_verification') throw new ApiError('tenant_pending_verification');
        await throttle.succeed(body.tenant_id, email, req.ip);
        const { token, hash } = newSessionToken();
        const expiresAt = await transaction(sql, async (tx) => {
          const [s] = await tx<{ id: string; expires_at: Date }[]>`
            insert into operator_sessions (tenant_id, operator_id, token_hash, expires_at)
            values (${op.tenant_id}, ${op.id}, ${hash}, now() + make_interval(secs => ${settings.ttlSeconds}))
            returning id, expires_at`;
          if (!s) throw new Error('session insert returned nothing');
          await writeAudit(tx, {
            tenant_id: op.tenant_id,
            actor_type: 'operator',
            actor_id: op.id,
            action: 'session.created',
            resource_type: 'session',
            resource_id: s.id,
            request_id: req.request_id,
            details: { ip_hash: piiHash(deps.piiKey, req.ip) },
          });
          return s.expires_at;
        });
        return {
          status: 201,
          body: { operator: operatorOut(op), tenant_id: op.tenant_id, expires_at: expiresAt.toISOString() },
          headers: {
            'set-cookie': sessionCookie(token, settings.ttlSeconds, settings.secureCookie),
            'cache-control': 'no-store',
          },
          audited: true,
        };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/sessions/current',
      operationId: 'getCurrentSession',
      summary: 'The signed-in operator (cookie session only)',
      tag: 'sessions',
      auth: 'session',
      responses: { 200: { description: 'The session', schema: SessionOut }, 401: E401 },
      handler: async ({ principal }) => {
        const p = requireOperator(principal);
        const [row] = await sql<(OperatorRow & { expires_at: Date })[]>`
          select o.*, s.expires_at from operator_sessions s join operators o on o.id = s.operator_id
          where s.id = ${p.session_id} and s.tenant_id = ${p.tenant_id}`;
        if (!row) throw new ApiError('unauthorized');
        return {
          status: 200,
          body: {
            operator: operatorOut(row),
            tenant_id: p.tenant_id,
            expires_at: row.expires_at.toISOString(),
          },
        };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/sessions',
      operationId: 'deleteSession',
      summary: 'Sign out: revokes the session and clears the cookie',
      tag: 'sessions',
      auth: 'session',
      responses: { 204: { description: 'Signed out' }, 401: E401 },
      handler: async ({ principal, req }) => {
        const p = requireOperator(principal);
        await transaction(sql, async (tx) => {
          await tx`
            update operator_sessions set revoked_at = now()
            where id = ${p.session_id} and tenant_id = ${p.tenant_id} and revoked_at is null`;
          await writeAudit(tx, {
            tenant_id: p.tenant_id,
            ...actorOf(p),
            action: 'session.revoked',
            resource_type: 'session',
            resource_id: p.session_id,
            request_id: req.request_id,
          });
        });
        return {
          status: 204,
          headers: { 'set-cookie': clearedSessionCookie(settings.secureCookie) },
          audited: true,
        };
      },
    }),
  ];
}
