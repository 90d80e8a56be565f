import { randomUUID } from 'node:crypto';
import { tenantFor } from '../auth/authorize.js';
import type { AuthMode, Principal, TenantPrincipal } from '../auth/principal.js';
import { ApiError, type Dependency } from '../errors.js';
import { flowTracing, traceFlow, traceNow } from '../flow-trace.js';
import { type Logger, withRequestId } from '../log.js';
import type { Metrics } from '../metrics.js';
import { corsHeaders, corsRoute, preflightHeaders } from './cors.js';
import { errorReply } from './error-reply.js';
import { type BodyReader, bodyTooLarge, type Exchange } from './exchange.js';
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
  authorize?: (spec: RouteSpec, principal: Principal, params: Record<string, string>) => void;
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

/**
 * One request on its way through the edge: what the steps have learnt so far. The steps run in this order, each
 * a function below (hono's compose, written out):
 *   preflight → route → body limits → authenticate → authorise → guard → parse and validate → handler → audit
 * Any step may throw; the error is answered once, by errorReply (server/http/error-reply.ts).
 */
interface InProgress {
  ex: Exchange;
  info: RequestInfo;
  rawQuery: string;
  started: bigint;
  /** the route template for metrics and the access log ('unmatched', 'OPTIONS' before a route is found) */
  routeLabel: string;
  route?: CompiledRoute;
  params: Record<string, string>;
  body?: BodyReader;
  /** the body is small enough to be read before authentication */
  eager: boolean;
  principal?: Principal;
  tenant?: TenantPrincipal;
  /** the CORS route the answer is for, if any */
  cors?: CompiledRoute;
  /** headers for any answer, errors included, set by handlers and guards through ctx.setHeader */
  extraHeaders?: Record<string, string>;
  parsed?: unknown;
  query: Record<string, unknown>;
  aborted: boolean;
  done: boolean;
}

/** preflight: OPTIONS without a CORS request → 204 with Allow; a CORS preflight → 204 for the routes publishable keys
 * may call, from an origin some active tenant allows; never `*`. */
function preflight(rq: InProgress, deps: HttpDeps): Reply | Promise<Reply> {
  const { path, headers } = rq.info;
  rq.routeLabel = 'OPTIONS';
  const found = CORS_METHODS.flatMap((mm) => {
    const r = deps.router.match(mm, path);
    return r.kind === 'found' ? [r.route] : [];
  });
  if (!found.length) throw new ApiError('not_found', { message: `No route for ${path}` });
  const origin = headers.origin;
  const requested = headers['access-control-request-method']?.toUpperCase();
  if (!origin || !requested) {
    return { status: 204, headers: { allow: [...found.map((r) => r.spec.method), 'OPTIONS'].join(', ') } };
  }
  const corsMethods: string[] = found.filter(corsRoute).map((r) => r.spec.method);
  if (!corsMethods.includes(requested)) {
    throw new ApiError('forbidden', {
      message: 'Cross-origin calls are allowed only on endpoints for publishable keys',
      headers: { vary: 'Origin' },
    });
  }
  return (deps.knownOrigin ?? (async () => false))(origin).then((known) => {
    if (!known) throw new ApiError('origin_not_allowed', { headers: { vary: 'Origin' } });
    return { status: 204, headers: preflightHeaders(origin, corsMethods) };
  });
}

/** route: the route for the method and path (HEAD is answered by the GET route, RFC 9110); 404 or 405 otherwise. */
function findRoute(rq: InProgress, router: Router): CompiledRoute {
  const { method, path } = rq.info;
  const m = router.match(method === 'HEAD' ? 'GET' : method, path);
  if (m.kind === 'not_found') throw new ApiError('not_found', { message: `No route for ${method} ${path}` });
  if (m.kind === 'method_not_allowed') {
    throw new ApiError('method_not_allowed', {
      message: `${method} is not allowed on ${path}`,
      details: { allowed: m.allowed },
      headers: { allow: m.allowed.join(', ') },
    });
  }
  rq.route = m.route;
  rq.params = m.params;
  rq.routeLabel = m.route.spec.path;
  if (corsRoute(m.route)) rq.cors = m.route;
  return m.route;
}

/** body limits: a declared length over the route's cap is a 413 at once; otherwise the body reader is attached now
 * (uWS delivers body data only to a reader attached before the handler returns). A body larger than
 * EAGER_BODY_BYTES (or of unknown length) stays paused until the request is authenticated, authorised and past its
 * guard; a small one is read at once, so that an early refusal can keep the connection open. */
function limitBody(rq: InProgress, route: CompiledRoute, maxBodyBytes: number): void {
  const { method, headers } = rq.info;
  if (!BODY_METHODS.has(method) || !route.spec.body) return;
  const limit = route.spec.maxBodyBytes ?? maxBodyBytes;
  const declared = Number(headers['content-length'] ?? '0');
  if (declared > limit) throw bodyTooLarge(limit);
  rq.eager = headers['content-length'] !== undefined && declared <= EAGER_BODY_BYTES;
  rq.body = rq.ex.body(
    limit,
    () => rq.done || rq.aborted,
    () => rq.aborted,
    !rq.eager,
  );
}

/** authenticate: the caller, by the route's auth mode (server/auth/authenticate.ts). A small body is read first. */
async function authenticate(
  rq: InProgress,
  route: CompiledRoute,
  deps: HttpDeps,
): Promise<Buffer | undefined> {
  const early = rq.eager ? await rq.body?.read() : undefined;
  rq.principal = await deps.authenticate(route.spec.auth, rq.info);
  return early;
}

/** authorise: the operator's role for the operation, and the tenant the route acts for (server/auth/authorize.ts). */
function authorise(rq: InProgress, route: CompiledRoute, principal: Principal, deps: HttpDeps): void {
  deps.authorize?.(route.spec, principal, rq.params);
  rq.tenant = tenantFor(route.spec.auth, principal);
}

/** parse and validate: content type, JSON, and the route's body, query and path schemas (server/http/validation.ts). */
async function parseAndValidate(
  rq: InProgress,
  route: CompiledRoute,
  early: Buffer | undefined,
): Promise<void> {
  const raw = early ?? (await rq.body?.read());
  if (route.spec.body) {
    const ctype = (rq.info.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (ctype !== 'application/json') {
      throw new ApiError('unsupported_media_type', {
        details: { content_type: rq.info.headers['content-type'] ?? null },
      });
    }
    rq.parsed = parseJson(decodeBody(raw));
    if (!route.spec.bodyCheckedByHandler) route.validateBody?.(rq.parsed);
  }
  rq.query = parseQuery(rq.rawQuery);
  route.validateQuery(rq.query);
  if (route.validateParams) route.validateParams(rq.params);
}

/** handler: the route's own code, with what the steps before it learnt. */
function handle(
  rq: InProgress,
  route: CompiledRoute,
  principal: Principal,
  log: Logger,
): Promise<Reply> | Reply {
  const { request_id } = rq.info;
  const tenant = rq.tenant;
  let reqLog: Logger | undefined;
  return route.spec.handler({
    req: rq.info,
    body: rq.parsed,
    query: rq.query,
    params: rq.params,
    principal,
    tenant,
    // made on first use: most requests log nothing beyond the access line (a child logger is ~1 kB and a few µs)
    get log() {
      reqLog ??= log.child({ request_id, ...(tenant ? { tenant_id: tenant.tenant_id } : {}) });
      return reqLog;
    },
    setHeader: (name, value) => setHeader(rq, name, value),
  });
}

/** audit: the central row of a successful state-changing call whose handler wrote none (server/audit/audit.ts). */
async function audit(
  rq: InProgress,
  route: CompiledRoute,
  principal: Principal,
  reply: Reply,
  deps: HttpDeps,
) {
  const { method } = rq.info;
  if (deps.audit && method !== 'GET' && method !== 'HEAD' && reply.status < 400 && !reply.audited) {
    await deps.audit({ spec: route.spec, principal, req: rq.info, params: rq.params, reply });
  }
}

function setHeader(rq: InProgress, name: string, value: string): void {
  rq.extraHeaders ??= {};
  rq.extraHeaders[name.toLowerCase()] = value;
}

/** The steps after the route and body limits, in order; they may wait (authentication, the guard, the body). */
async function authenticatedSteps(rq: InProgress, route: CompiledRoute, deps: HttpDeps): Promise<Reply> {
  const early = await authenticate(rq, route, deps);
  const principal = rq.principal as Principal;
  authorise(rq, route, principal, deps);
  await route.spec.guard?.({
    req: rq.info,
    principal,
    tenant: rq.tenant,
    setHeader: (name, value) => setHeader(rq, name, value),
  });
  await parseAndValidate(rq, route, early);
  const reply = await handle(rq, route, principal, deps.log);
  await audit(rq, route, principal, reply, deps);
  return reply;
}

/** The answer, once: metrics, the access log line, headers (request id, ctx.setHeader, CORS, the reply's own), and
 * the transport's write. A body left unread closes the connection (it cannot be skipped on a kept-alive one). */
function send(rq: InProgress, reply: Reply, deps: HttpDeps, inflight: InFlight): void {
  if (rq.done) return;
  rq.done = true;
  inflight.leave();
  const { method, request_id, headers } = rq.info;
  const seconds = Number(process.hrtime.bigint() - rq.started) / 1e9;
  if (flowTracing && rq.routeLabel === '/v1/flows' && method === 'POST') traceAnswer(reply, seconds);
  deps.metrics.httpDuration.observe({ route: rq.routeLabel, method, status: String(reply.status) }, seconds);
  const principal = rq.principal;
  accessLog(deps.log, rq.routeLabel, () => ({
    method,
    route: rq.routeLabel,
    status: reply.status,
    duration_ms: Math.round(seconds * 1e6) / 1e3,
    request_id,
    ...(principal && 'tenant_id' in principal ? { tenant_id: principal.tenant_id } : {}),
    ...(rq.aborted ? { aborted: true } : {}),
  }));
  if (rq.aborted) return;
  const payload =
    reply.bytes ?? Buffer.from(reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body)));
  const close = rq.body?.unread() ?? false;
  if (!close) rq.body?.release();
  const out: [string, string][] = [['x-request-id', request_id]];
  answerHeaders(out, rq.extraHeaders, rq.cors ? corsHeaders(headers.origin, principal) : undefined, reply);
  // HEAD: the GET's headers and length, no body
  rq.ex.respond(reply.status, out, payload, method === 'HEAD', close);
}

/** A created flow's arrival and answer, for FLOW_TRACE_FILE (server/flow-trace.ts). */
function traceAnswer(reply: Reply, seconds: number): void {
  const id = (reply.body as { id?: unknown } | undefined)?.id;
  if (reply.status !== 201 || typeof id !== 'string') return;
  const now = traceNow();
  traceFlow(id, 'received', now - seconds * 1000);
  traceFlow(id, 'answered', now);
}

/** The service's request handler, independent of the server that reads the requests. */
export function createHttpHandler(deps: HttpDeps, inflight: InFlight): (ex: Exchange) => void {
  return (ex) => {
    const { method, path, rawQuery, headers, ip } = ex;
    const given = headers['x-request-id'];
    const request_id = given && REQUEST_ID_RE.test(given) ? given : randomUUID();
    const rq: InProgress = {
      ex,
      info: { method, path, headers, ip, request_id },
      rawQuery,
      started: process.hrtime.bigint(),
      routeLabel: 'unmatched',
      params: {},
      eager: false,
      query: {},
      aborted: false,
      done: false,
    };
    ex.onAborted(() => {
      rq.aborted = true;
    });
    inflight.enter();
    const answer = (reply: Reply) => send(rq, reply, deps, inflight);
    const fail = (err: unknown) => answer(errorReply(err, deps.log, rq.info, deps.down));
    try {
      if (!deps.accepting()) {
        throw new ApiError('shutting_down', { headers: { 'retry-after': '5', connection: 'close' } });
      }
      if (method === 'OPTIONS') {
        Promise.resolve(preflight(rq, deps)).then(answer, fail);
        return;
      }
      const route = findRoute(rq, deps.router);
      limitBody(rq, route, deps.maxBodyBytes);
      // jobs published while serving the request carry its id (their log lines too)
      withRequestId(request_id, () => authenticatedSteps(rq, route, deps)).then(answer, fail);
    } catch (err) {
      fail(err);
    }
  };
}
