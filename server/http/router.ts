import { type Static, type TSchema, type TUnknown, Type } from '@sinclair/typebox';
import type { AuthMode, Principal, TenantMode, TenantPrincipal } from '../auth/principal.js';
import type { Logger } from '../log.js';
import type { Reply, RequestInfo } from './request.js';
import { compileValidator, type Validator } from './validation.js';

export type { Reply, RequestInfo } from './request.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The tenant a route acts for: every 'secret' and 'tenant' route has one (an operator session is seen as the
 * tenant's secret key, see asTenantPrincipal in server/auth/authorize.ts); other routes have none. */
export type TenantOf<A extends AuthMode> = A extends TenantMode ? TenantPrincipal : undefined;

export interface Ctx<B = unknown, Q = unknown, P = unknown, A extends AuthMode = AuthMode> {
  req: RequestInfo;
  body: B;
  query: Q;
  params: P;
  principal: Principal;
  tenant: TenantOf<A>;
  log: Logger;
  /** a header for whatever this request's answer turns out to be, errors included (e.g. rate-limit state) */
  setHeader(name: string, value: string): void;
}

export interface ResponseDoc {
  description: string;
  /** the JSON body */
  schema?: TSchema;
  /** instead of schema: the body by media type, when an answer has more than one (e.g. one per credential) */
  content?: Record<string, TSchema>;
  /** response headers this route sets beyond the HTTP layer's own (names from components.headers in openapi.ts) */
  headers?: ResponseHeader[];
}

/** Response headers a route may name in its ResponseDoc (each documented once in server/http/openapi.ts). */
export type ResponseHeader = 'RateLimit' | 'RateLimit-Policy';

export interface RouteSpec<
  TB extends TSchema = TUnknown,
  TQ extends TSchema = TUnknown,
  TP extends TSchema = TUnknown,
  A extends AuthMode = AuthMode,
> {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. /v1/flows/{flow_id} */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: A;
  body?: TB;
  query?: TQ;
  params?: TP;
  responses: Record<number, ResponseDoc>;
  /** a larger (or smaller) body cap than MAX_BODY_BYTES for this route */
  maxBodyBytes?: number;
  /** extra request headers to document */
  headers?: Record<string, string>;
  /** `body` documents the body; the handler validates it against a narrower schema of its own (one that depends on
   * stored settings), so that every issue comes in one 422 */
  bodyCheckedByHandler?: boolean;
  /** runs after authentication and before the body is read and validated (e.g. rate limits, so that invalid
   * requests are counted and answered with the limit's headers too) */
  guard?: (
    ctx: Pick<Ctx<unknown, unknown, unknown, A>, 'req' | 'principal' | 'tenant' | 'setHeader'>,
  ) => Promise<void>;
  handler: (ctx: Ctx<Static<TB>, Static<TQ>, Static<TP>, A>) => Promise<Reply> | Reply;
}

export interface CompiledRoute {
  spec: RouteSpec<TSchema, TSchema, TSchema>;
  segments: string[];
  paramNames: (string | null)[];
  validateBody?: Validator;
  validateQuery: Validator;
  validateParams?: Validator;
}

/** Typed helper so that a route's handler sees the static types of its schemas. */
export function route<
  TB extends TSchema = TUnknown,
  TQ extends TSchema = TUnknown,
  TP extends TSchema = TUnknown,
  A extends AuthMode = AuthMode,
>(spec: RouteSpec<TB, TQ, TP, A>): RouteSpec<TSchema, TSchema, TSchema> {
  return spec as unknown as RouteSpec<TSchema, TSchema, TSchema>;
}

/** The query of a route that declares none. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

export type Match =
  | { kind: 'found'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/** Whether route `a` matches every path that route `b` matches (segment by segment: a parameter matches anything,
 * a static segment only itself). */
function covers(
  a: Pick<CompiledRoute, 'segments' | 'paramNames'>,
  b: Pick<CompiledRoute, 'segments' | 'paramNames'>,
) {
  return (
    a.segments.length === b.segments.length &&
    a.segments.every(
      (seg, i) => a.paramNames[i] !== null || (b.paramNames[i] === null && b.segments[i] === seg),
    )
  );
}

export class Router {
  readonly routes: CompiledRoute[] = [];
  /** `METHOD /path` of the routes without path parameters: one map lookup a request instead of a scan that splits
   * the path and tries every route of its length */
  private readonly exact = new Map<string, CompiledRoute>();

  /** Adds a route. A route that another of its method already answers for every path it matches is refused, so
   * that a mistake in the route tables fails at start rather than leaving a route unreachable: the same path (its
   * parameters named alike or not) twice, or a path shadowed by an earlier one (GET /v1/things/{id} before GET
   * /v1/things/search: the scan finds the earlier first). */
  add(spec: RouteSpec<TSchema, TSchema, TSchema>): void {
    const segments = spec.path.split('/').slice(1);
    const compiled: CompiledRoute = {
      spec,
      segments,
      paramNames: segments.map((s) => (s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : null)),
      // a route without a query schema takes no query parameters: unknown ones are a 422, as in a schema's own
      validateQuery: compileValidator(spec.query ?? NO_QUERY, 'query'),
    };
    const earlier = this.routes.find((r) => r.spec.method === spec.method && covers(r, compiled));
    if (earlier) {
      const how = covers(compiled, earlier) ? 'duplicates' : 'is shadowed by';
      throw new Error(
        `route ${spec.method} ${spec.path} (${spec.operationId}) ${how} ${earlier.spec.method} ${earlier.spec.path} ` +
          `(${earlier.spec.operationId}), added earlier: it could never answer`,
      );
    }
    if (spec.body) compiled.validateBody = compileValidator(spec.body, 'body');
    if (spec.params) compiled.validateParams = compileValidator(spec.params, 'path');
    // a path without parameters: one map lookup a request (no earlier route can match it: add() refused that)
    if (compiled.paramNames.every((n) => n === null)) this.exact.set(`${spec.method} ${spec.path}`, compiled);
    this.routes.push(compiled);
  }

  /** Routes matched by a function when no path template matches a path at all (verification links under any
   * tenant's tenant_path): tried in the order added, for their own method; not in `routes` (nor the OpenAPI
   * document, where a template route describes them). */
  private readonly fallbacks: {
    route: CompiledRoute;
    match: (path: string) => Record<string, string> | undefined;
  }[] = [];

  addFallback(
    spec: RouteSpec<TSchema, TSchema, TSchema>,
    match: (path: string) => Record<string, string> | undefined,
  ): void {
    const route: CompiledRoute = {
      spec,
      segments: [],
      paramNames: [],
      validateQuery: compileValidator(spec.query ?? NO_QUERY, 'query'),
    };
    if (spec.params) route.validateParams = compileValidator(spec.params, 'path');
    this.fallbacks.push({ route, match });
  }

  match(method: string, path: string): Match {
    const route = this.exact.get(`${method} ${path}`);
    if (route) return { kind: 'found', route, params: {} };
    const found = this.scan(method, path);
    if (found.kind !== 'not_found') return found;
    for (const f of this.fallbacks) {
      if (f.route.spec.method !== method) continue;
      const params = f.match(path);
      if (params) return { kind: 'found', route: f.route, params };
    }
    return found;
  }

  /** The first route, in the order added, whose segments match the path and whose method is the request's. */
  private scan(method: string, path: string): Match {
    const parts = path.split('/').slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // tolerate one trailing slash
    const allowed: string[] = [];
    for (const r of this.routes) {
      if (r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const name = r.paramNames[i];
        const part = parts[i] ?? '';
        if (name) {
          if (part === '') {
            ok = false;
            break;
          }
          try {
            params[name] = decodeURIComponent(part);
          } catch {
            ok = false;
            break;
          }
        } else if (r.segments[i] !== part) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (r.spec.method === method) return { kind: 'found', route: r, params };
      allowed.push(r.spec.method);
    }
    return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}
