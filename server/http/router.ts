import type { Static, TSchema, TUnknown } from '@sinclair/typebox';
import type { Logger } from '../log.js';
import { compileValidator, type Validator } from './validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route: none; admin (X-Admin-Token); secret (tenant secret key); tenant (secret or publishable). */
export type AuthMode = 'none' | 'admin' | 'secret' | 'tenant';

export interface TenantPrincipal {
  kind: 'secret' | 'publishable';
  tenant_id: string;
  key_id: string;
  plan: 'self_serve' | 'contract';
  allowed_origins: string[];
}
export type OperatorRole = 'analyst' | 'supervisor' | 'admin';
/** An operator signed in to the dashboard with a session cookie (see server/auth/sessions.ts). */
export interface OperatorPrincipal {
  kind: 'operator';
  tenant_id: string;
  operator_id: string;
  role: OperatorRole;
  session_id: string;
  plan: 'self_serve' | 'contract';
  allowed_origins: string[];
}
export type Principal = { kind: 'anonymous' } | { kind: 'admin' } | TenantPrincipal | OperatorPrincipal;

export interface RequestInfo {
  method: string;
  path: string;
  headers: Record<string, string>;
  ip: string;
  request_id: string;
}

export interface Ctx<B = unknown, Q = unknown, P = unknown> {
  req: RequestInfo;
  body: B;
  query: Q;
  params: P;
  principal: Principal;
  log: Logger;
}

export interface Reply {
  status: number;
  /** serialised as JSON */
  body?: unknown;
  /** sent as is (with its own content-type header) instead of a JSON body */
  text?: string;
  headers?: Record<string, string>;
  /** set by handlers that wrote their own audit row (in their transaction); others get the central one */
  audited?: boolean;
}

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
}

export interface RouteSpec<
  TB extends TSchema = TUnknown,
  TQ extends TSchema = TUnknown,
  TP extends TSchema = TUnknown,
> {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. /v1/flows/{flow_id} */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: AuthMode;
  body?: TB;
  query?: TQ;
  params?: TP;
  responses: Record<number, ResponseDoc>;
  /** a larger (or smaller) body cap than MAX_BODY_BYTES for this route */
  maxBodyBytes?: number;
  /** extra request headers to document */
  headers?: Record<string, string>;
  handler: (ctx: Ctx<Static<TB>, Static<TQ>, Static<TP>>) => Promise<Reply> | Reply;
}

export interface CompiledRoute {
  spec: RouteSpec<TSchema, TSchema, TSchema>;
  segments: string[];
  paramNames: (string | null)[];
  validateBody?: Validator;
  validateQuery?: Validator;
  validateParams?: Validator;
}

/** Typed helper so that a route's handler sees the static types of its schemas. */
export function route<
  TB extends TSchema = TUnknown,
  TQ extends TSchema = TUnknown,
  TP extends TSchema = TUnknown,
>(spec: RouteSpec<TB, TQ, TP>): RouteSpec<TSchema, TSchema, TSchema> {
  return spec as unknown as RouteSpec<TSchema, TSchema, TSchema>;
}

export type Match =
  | { kind: 'found'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

export class Router {
  readonly routes: CompiledRoute[] = [];

  add(spec: RouteSpec<TSchema, TSchema, TSchema>): void {
    const segments = spec.path.split('/').slice(1);
    const compiled: CompiledRoute = {
      spec,
      segments,
      paramNames: segments.map((s) => (s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : null)),
    };
    if (spec.body) compiled.validateBody = compileValidator(spec.body, 'body');
    if (spec.query) compiled.validateQuery = compileValidator(spec.query, 'query');
    if (spec.params) compiled.validateParams = compileValidator(spec.params, 'path');
    this.routes.push(compiled);
  }

  match(method: string, path: string): Match {
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
