import { randomUUID } from 'node:crypto';
import { asTenantPrincipal } from '../auth/authorize.js';
import type { AuthMode, Principal } from '../auth/principal.js';
import { ApiError, type Dependency } from '../errors.js';
import { type Logger, withRequestId } from '../log.js';
import type { Metrics } from '../metrics.js';
import { corsHeaders, corsRoute, preflightHeaders } from './cors.js';
import { errorReply } from './error-reply.js';
import type { BodyReader, Exchange } from './exchange.js';
import type { AuditedCall, Reply, RequestInfo } from './request.js';
import type { CompiledRoute, Router } from './router.js';
import { decodeBody, parseJson, parseQuery } from './validation.js';

type RouteSpec = CompiledRoute['spec'];

export interface HttpDeps {
  router: Router;
  log: Logger;
  metrics: Metrics;
  maxBodyBytes: number;
  authenticate: (mode: AuthMode, req: RequestInfo) => Promise<Principal>;
  /** role rules (server/auth/authorize.ts), after authentication and before the handler */
  authorize?: (spec: RouteSpec, principal: Principal) => void;
  /** writes the audit row of a successful non-GET call whose handler did not write its own (reply.audited) */
  audit?: (call: AuditedCall) => Promise<void>;
  /** false while shutting down: new requests get 503 */
  accepting: () => boolean;
  /** the backing services known to be disconnected now (an unexpected error meanwhile is their outage) */
  down?: () => Dependency[];
  /** whether some active tenant allows this browser origin (CORS preflights carry no credential) */
  knownOrigin?: (origin: string) => Promise<boolean>;
}

const CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const TENANT_ROUTES = new Set<AuthMode>(['secret', 'bearer', 'tenant', 'session']);
const REQUEST_ID_RE = /^[\w.:@/+=-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Bodies up to this size are read while the request is authenticated; larger ones only after. */
const EAGER_BODY_BYTES = 64 * 1024;

/** Tracks open requests so that shutdown can wait for them. */
export class InFlight {
  count = 0;
  private waiters: (() => void)[] = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    this.count--;
    if (this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}

/** Probes and scrapes, logged at debug: at info they would drown the access log (docs/decisions.md). */
const QUIET_ROUTES = new Set(['/livez', '/readyz', '/metrics']);

/** The one access log line per request: the route template, never the raw path, query, headers or body. Its object
 * is built only when the line's level is enabled (the benches and many deployments log at warn). */
function accessLog(
  log: Logger,
  route: string,
  line: () => {
    method: string;
    route: string;
    status: number;
    duration_ms: number;
    request_id: string;
    tenant_id?: string;
    aborted?: boolean;
  },
): void {
  const level = QUIET_ROUTES.has(route) ? 'debug' : 'info';
  if (log.isLevelEnabled(level)) log[level](line(), 'request');
}

/** The answer's headers after the request id: those set through ctx.setHeader, then CORS, then the reply's own (a
 * later one replaces an earlier value in the earlier one's place), then the JSON body's content-type unless one was
 * named (e.g. the redacted flow's media type). */
export function answerHeaders(
  out: [string, string][],
  extra: Record<string, string> | undefined,
  cors: Readonly<Record<string, string>> | undefined,
  reply: Reply,
): void {
  const all: Record<string, string> = { ...extra, ...cors, ...reply.headers };
  if (reply.body !== undefined && reply.text === undefined) all['content-type'] ??= 'application/json';
  out.push(...Object.entries(all));
}

/** The service's request handler, independent of the server that reads the requests. */
export function createHttpHandler(deps: HttpDeps, inflight: InFlight): (ex: Exchange) => void {
  const { router, log, metrics, maxBodyBytes } = deps;

  return (ex) => {
    const started = process.hrtime.bigint();
    const { method, path, rawQuery, headers, ip } = ex;
    const given = headers['x-request-id'];
    const request_id = given && REQUEST_ID_RE.test(given) ? given : randomUUID();
    const info: RequestInfo = { method, path, headers, ip, request_id };

    let aborted = false;
    let done = false;
    ex.onAborted(() => {
      aborted = true;
    });
    inflight.enter();

    let routeLabel = 'unmatched';
    let body: BodyReader | undefined;
    let eager = false;
    // headers for any answer (set by handlers through ctx.setHeader), the CORS route and the caller once known
    let extraHeaders: Record<string, string> | undefined;
    let cors: CompiledRoute | undefined;
    let principal: Principal | undefined;
    const send = (reply: Reply) => {
      if (done) return;
      done = true;
      inflight.leave();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpDuration.observe({ route: routeLabel, method, status: String(reply.status) }, seconds);
      accessLog(log, routeLabel, () => ({
        method,
        route: routeLabel,
        status: reply.status,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        request_id,
        ...(principal && 'tenant_id' in principal ? { tenant_id: principal.tenant_id } : {}),
        ...(aborted ? { aborted: true } : {}),
      }));
      if (aborted) return;
      const payload = Buffer.from(reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body)));
      // a body we did not read (refused before reading it) cannot be skipped on a kept-alive connection: close it
      const close = body?.unread() ?? false;
      if (!close) body?.release();
      const out: [string, string][] = [['x-request-id', request_id]];
      answerHeaders(out, extraHeaders, cors ? corsHeaders(headers.origin, principal) : undefined, reply);
      // HEAD: the GET's headers and length, no body
      ex.respond(reply.status, out, payload, method === 'HEAD', close);
    };
    const fail = (err: unknown) => send(errorReply(err, log, info, deps.down));

    if (!deps.accepting()) {
      fail(new ApiError('shutting_down', { headers: { 'retry-after': '5', connection: 'close' } }));
      return;
    }

    if (method === 'OPTIONS') {
      routeLabel = 'OPTIONS';
      const found = CORS_METHODS.flatMap((mm) => {
        const r = router.match(mm, path);
        return r.kind === 'found' ? [r.route] : [];
      });
      if (!found.length) {
        fail(new ApiError('not_found', { message: `No route for ${path}` }));
        return;
      }
      const origin = headers.origin;
      const requested = headers['access-control-request-method']?.toUpperCase();
      if (!origin || !requested) {
        const allow = [...found.map((r) => r.spec.method), 'OPTIONS'].join(', ');
        send({ status: 204, headers: { allow } });
        return;
      }
      // a CORS preflight: only publishable-key routes, only for origins some tenant allows, never `*`
      const corsMethods: string[] = found.filter(corsRoute).map((r) => r.spec.method);
      if (!corsMethods.includes(requested)) {
        fail(
          new ApiError('forbidden', {
            message: 'Cross-origin calls are allowed only on endpoints for publishable keys',
            headers: { vary: 'Origin' },
          }),
        );
        return;
      }
      (deps.knownOrigin ?? (async () => false))(origin).then((known) => {
        if (known) send({ status: 204, headers: preflightHeaders(origin, corsMethods) });
        else fail(new ApiError('origin_not_allowed', { headers: { vary: 'Origin' } }));
      }, fail);
      return;
    }

    // HEAD is answered by the GET route (RFC 9110: a server that supports GET supports HEAD)
    const m = router.match(method === 'HEAD' ? 'GET' : method, path);
    if (m.kind === 'not_found') {
      fail(new ApiError('not_found', { message: `No route for ${method} ${path}` }));
      return;
    }
    if (m.kind === 'method_not_allowed') {
      fail(
        new ApiError('method_not_allowed', {
          message: `${method} is not allowed on ${path}`,
          details: { allowed: m.allowed },
          headers: { allow: m.allowed.join(', ') },
        }),
      );
      return;
    }
    const { route, params } = m;
    routeLabel = route.spec.path;
    if (corsRoute(route)) cors = route;

    if (BODY_METHODS.has(method) && route.spec.body) {
      const bodyLimit = route.spec.maxBodyBytes ?? maxBodyBytes;
      const declared = Number(headers['content-length'] ?? '0');
      if (declared > bodyLimit) {
        fail(
          new ApiError('payload_too_large', {
            details: { max_bytes: bodyLimit },
            headers: { connection: 'close' },
          }),
        );
        return;
      }
      // attached now (uWS delivers body data only to a handler attached before returning); a body larger than
      // EAGER_BODY_BYTES (or of unknown length) is paused and read only once the request is authenticated and
      // authorised; a small one is read at once, so that an early refusal can keep the connection open
      eager = headers['content-length'] !== undefined && declared <= EAGER_BODY_BYTES;
      body = ex.body(
        bodyLimit,
        () => done || aborted,
        () => aborted,
        !eager,
      );
    }

    // jobs published while serving the request carry its id (their log lines too)
    withRequestId(request_id, async () => {
      // a small body is read first (an early refusal then leaves the connection usable), a large one after auth
      const early = eager ? await body?.read() : undefined;
      principal = await deps.authenticate(route.spec.auth, info);
      deps.authorize?.(route.spec, principal);
      const tenant = TENANT_ROUTES.has(route.spec.auth) ? asTenantPrincipal(principal) : undefined;
      const setHeader = (name: string, value: string) => {
        extraHeaders ??= {};
        extraHeaders[name.toLowerCase()] = value;
      };
      await route.spec.guard?.({ req: info, principal, tenant, setHeader });
      const raw = early ?? (await body?.read());
      let parsed: unknown;
      if (route.spec.body) {
        const ctype = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (ctype !== 'application/json') {
          throw new ApiError('unsupported_media_type', {
            details: { content_type: headers['content-type'] ?? null },
          });
        }
        parsed = parseJson(decodeBody(raw));
        route.validateBody?.(parsed);
      }
      const query: Record<string, unknown> = parseQuery(rawQuery);
      let reqLog: Logger | undefined;
      route.validateQuery(query);
      if (route.validateParams) route.validateParams(params);
      const reply = await route.spec.handler({
        req: info,
        body: parsed,
        query,
        params,
        principal,
        tenant,
        // made on first use: most requests log nothing beyond the access line (a child logger is ~1 kB and a few µs)
        get log() {
          reqLog ??= log.child({ request_id, ...(tenant ? { tenant_id: tenant.tenant_id } : {}) });
          return reqLog;
        },
        setHeader,
      });
      if (deps.audit && method !== 'GET' && method !== 'HEAD' && reply.status < 400 && !reply.audited) {
        await deps.audit({ spec: route.spec, principal, req: info, params, reply });
      }
      return reply;
    }).then(send, fail);
  };
}
