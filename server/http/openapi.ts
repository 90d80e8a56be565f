import type { TSchema } from '@sinclair/typebox';
import { AllowanceExhausted, ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { EVENT_CATALOGUE, EVENT_TYPES, eventEnvelope } from '../../schemas/events.js';
import { APPLICANT_COOKIE } from '../auth/applicant-sessions.js';
import type { AuthMode } from '../auth/principal.js';
import { SESSION_COOKIE } from '../auth/sessions.js';
import { ERRORS, type ErrorCode } from '../errors.js';
import type { CompiledRoute, ResponseDoc, ResponseHeader, RouteSpec } from './router.js';

const JSON_TYPE = 'application/json';

/** Who may call an operation, per auth mode (server/auth/authenticate.ts): alternatives, any one suffices. */
const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  none: [],
  admin: [{ adminToken: [] }],
  secret: [{ secretKey: [] }, { operatorSession: [] }],
  bearer: [{ secretKey: [] }],
  tenant: [{ secretKey: [] }, { publishableKey: [] }, { operatorSession: [] }],
  session: [{ operatorSession: [] }],
  applicant: [{ applicantSession: [] }, { applicantToken: [] }],
  secret_or_applicant: [
    { secretKey: [] },
    { operatorSession: [] },
    { applicantSession: [] },
    { applicantToken: [] },
  ],
};

const SECURITY_SCHEMES = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Tenant secret key `tnk_…`: the full tenant API',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Publishable key `pk_…`: only sync checks-only flows (POST /v1/flows), from an allowed Origin, rate limited',
  },
  operatorSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'Dashboard operator session (POST /v1/sessions sets it): the secret-key API within the operator role; writes ' +
      'need an Origin header matching an allowed origin',
  },
  adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'Deployment admin token' },
  applicantSession: {
    type: 'apiKey',
    in: 'cookie',
    name: APPLICANT_COOKIE,
    description:
      'Applicant session opened by a verification link (the hosted page): one flow, only the operations of ' +
      "docs/journey.md; writes need the page's own Origin",
  },
  applicantToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "Applicant session token `aps_…` from POST /v1/applicant_sessions (a native app or the tenant's front " +
      'end): the same scope and lifetime as the cookie',
  },
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Veriscreen-Signature',
    description:
      'Sent by Veriscreen to webhook endpoints: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with ' +
      "the endpoint's signing secret (docs/webhooks.md)",
  },
};

const TAGS: Record<string, string> = {
  health: 'Liveness, readiness, Prometheus metrics and this document; no credential',
  admin: 'Deployment administration with X-Admin-Token: tenants, dataset versions and feeds, FATF listings',
  datasets: 'The sanctions/PEP dataset versions a tenant is screened against (read only)',
  flows: 'Verification flows of an applicant: create (sync or async), process, decide, rerun the AML screen',
  checks: 'The checks flows ran (AML screens, document and face checks) and their matches',
  flow_templates: 'Per-tenant flow templates: required checks, documents and intake fields',
  check_policy: 'The tenant check policy: AML match thresholds, FATF and VPN handling',
  alerts: 'AML alerts raised by screenings, and their review workflow (assign, dispose, escalate, four-eyes)',
  applicants: 'People verified by flows: read, update, erase',
  documents: 'Identity documents and selfies: presigned uploads, completion, verification and preview',
  operators: 'Dashboard operators of a tenant and their roles',
  sessions: 'Operator sign-in and the current session (cookie)',
  'native-apps': 'Registered iOS and Android apps allowed to run flows',
  audit: 'The tenant audit log',
  webhooks: 'Webhook endpoints, their signing secrets and deliveries (the events are in `webhooks`)',
  batches: 'Check batches: screen many subjects asynchronously',
  monitors: 'Ongoing monitoring: rescreen subjects when the lists change',
  journey:
    "The applicant's journey: verification links, applicant sessions (cookie or aps_ token) and what they may do " +
    '(docs/journey.md)',
};

/** Keywords that describe a schema without constraining it: a use may add them next to a `$ref`. */
const ANNOTATIONS = new Set(['description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Named schemas: every (sub)schema with a `title` (schemas/*.ts name theirs) becomes
 * `components.schemas[<title>]` and a `$ref` wherever it is used, so that generators emit named types.
 * Two different schemas with one title are a programming error and refused.
 */
class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  private readonly texts = new Map<string, string>();

  /** The schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), its named parts replaced by `$ref`s. */
  use(schema: TSchema): unknown {
    // the JSON round trip strips TypeBox's symbol keys
    return this.walk(JSON.parse(JSON.stringify(schema)));
  }

  private walk(s: unknown): unknown {
    if (!isObj(s)) return s;
    const out: Json = { ...s };
    for (const k of ['properties', 'patternProperties', '$defs', 'dependentSchemas'] as const) {
      if (isObj(out[k])) {
        out[k] = Object.fromEntries(Object.entries(out[k] as Json).map(([n, v]) => [n, this.walk(v)]));
      }
    }
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map((v) => this.walk(v));
    }
    for (const k of [
      'items',
      'additionalProperties',
      'not',
      'contains',
      'propertyNames',
      'if',
      'then',
      'else',
    ]) {
      if (isObj(out[k])) out[k] = this.walk(out[k]);
    }
    if (typeof out.title !== 'string') return out;
    const name = componentName(out.title);
    const ref = { $ref: `#/components/schemas/${name}` };
    const text = JSON.stringify(out);
    const known = this.texts.get(name);
    if (known === undefined) {
      this.schemas[name] = out;
      this.texts.set(name, text);
      return ref;
    }
    if (known === text) return ref;
    // the same schema with other annotations (a use-site description): the $ref with its own annotations
    const registered = this.schemas[name] as Json;
    const bare = (o: Json) => JSON.stringify(Object.entries(o).filter(([k]) => !ANNOTATIONS.has(k)));
    if (bare(registered) === bare(out)) {
      const own = Object.entries(out).filter(([k, v]) => ANNOTATIONS.has(k) && registered[k] !== v);
      return { ...ref, ...Object.fromEntries(own) };
    }
    throw new Error(`OpenAPI: two different schemas are titled ${out.title}`);
  }
}

/** A component name (^[A-Za-z0-9._-]+$) from a title: as is when valid, else PascalCase of its words. */
function componentName(title: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(title)) return title;
  return title
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');
}

/**
 * The catalogue codes (server/errors.ts) an operation can meet whatever its handler does, from its route metadata:
 * the auth mode (authenticate.ts, authorize.ts), path parameters, body, guard and headers. Handler-specific answers
 * (402, 409, …) are in the route's own `responses`.
 */
function metadataErrors(spec: RouteSpec<TSchema, TSchema, TSchema>): ErrorCode[] {
  // any request: another method on its path, an outage of a backing service or shutting down, the query text rule
  const codes: ErrorCode[] = [
    'method_not_allowed',
    'service_unavailable',
    'shutting_down',
    'validation_failed',
  ];
  const a = spec.auth;
  if (a !== 'none') codes.push('unauthorized');
  const keyed =
    a === 'secret' || a === 'bearer' || a === 'tenant' || a === 'session' || a === 'secret_or_applicant';
  if (keyed || a === 'applicant') codes.push('tenant_pending_verification', 'tenant_suspended');
  // a publishable key on a secret-key route, a key on a session route
  if (keyed && a !== 'tenant') codes.push('forbidden');
  if (a === 'secret' || a === 'tenant' || a === 'session' || a === 'secret_or_applicant') {
    codes.push('csrf_origin_mismatch', 'insufficient_role');
  }
  // an applicant session: its own flow only (and its purpose); cookie writes from the page's origin only
  if (a === 'applicant') codes.push('csrf_origin_mismatch');
  if (a === 'applicant' || a === 'secret_or_applicant') codes.push('applicant_session_forbidden');
  if (spec.auth === 'tenant') codes.push('origin_not_allowed');
  if (spec.params) codes.push('not_found');
  if (spec.body) codes.push('payload_too_large', 'unsupported_media_type');
  if (spec.guard) codes.push('rate_limited');
  if (Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === 'idempotency-key')) {
    codes.push('idempotency_in_flight', 'idempotency_key_reused');
  }
  return codes;
}

const ERROR_SCHEMA: Record<number, TSchema> = { 402: AllowanceExhausted, 422: ValidationFailure };

/** Every answer of an operation: the route's own, then one per status of the errors its metadata implies. */
function answers(spec: RouteSpec<TSchema, TSchema, TSchema>): [string, ResponseDoc][] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of metadataErrors(spec)) {
    const { status } = ERRORS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const all = new Map<number, ResponseDoc>(Object.entries(spec.responses).map(([s, d]) => [Number(s), d]));
  for (const [status, codes] of byStatus) {
    const list = codes.map((c) => `\`${c}\` (${ERRORS[c].message.replace(/\.$/, '')})`).join('; ');
    const own = all.get(status);
    // a route's own 403 (its handler's rule) comes with the refusals of authentication and roles
    if (own && status === 403) all.set(status, { ...own, description: `${own.description}; or ${list}` });
    if (own) continue;
    all.set(status, {
      description: status === 422 ? `Validation error: detail[] names each offending input` : list,
      schema: ERROR_SCHEMA[status] ?? ErrorEnvelope,
    });
  }
  const sorted = [...all].sort(([a], [b]) => a - b).map(([s, d]): [string, ResponseDoc] => [String(s), d]);
  return [
    ...sorted,
    ['default', { description: '`internal_error`: an unexpected error', schema: ErrorEnvelope }],
  ];
}

/** Response headers the HTTP layer sets (components.headers), and the statuses that carry them. */
const HEADERS = {
  'X-Request-Id': {
    description: "This request's id (the client's own when well-formed); every log line about it carries it",
    schema: { type: 'string' },
  },
  Allow: { description: 'The methods this path answers', schema: { type: 'string' } },
  'Retry-After': {
    description: 'Seconds to wait before trying again (absent on a 503 while no dataset version is loaded)',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimit: {
    description:
      'Publishable keys: what is left of the limit for this key and client IP, e.g. `"publishable";r=59;t=60` ' +
      '(r: requests remaining, t: seconds until the window frees one; IETF RateLimit header fields draft)',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'Publishable keys: the limit, e.g. `"publishable";q=60;w=60` (q requests per w seconds)',
    schema: { type: 'string' },
  },
} satisfies Record<string, { description: string; schema: Json }> & Record<ResponseHeader, unknown>;
const STATUS_HEADERS: Record<string, string[]> = {
  '405': ['Allow'],
  '429': ['Retry-After'],
  '503': ['Retry-After'],
};

function responseObject(status: string, doc: ResponseDoc, c: SchemaComponents): Json {
  const content: Record<string, TSchema> = doc.content ?? (doc.schema ? { [JSON_TYPE]: doc.schema } : {});
  const entries = Object.entries(content);
  const headers = ['X-Request-Id', ...(STATUS_HEADERS[status] ?? []), ...(doc.headers ?? [])];
  return {
    description: doc.description,
    headers: Object.fromEntries(headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])),
    ...(entries.length
      ? { content: Object.fromEntries(entries.map(([type, s]) => [type, { schema: c.use(s) }])) }
      : {}),
  };
}

/** What a subscribed endpoint receives, one entry per event of the catalogue (schemas/events.ts). */
function webhooks(c: SchemaComponents): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${componentName(type).replace(/^./, (x) => x.toLowerCase())}Webhook`,
          summary: EVENT_CATALOGUE[type].description,
          description:
            'Signed with `Veriscreen-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (docs/webhooks.md).',
          tags: ['webhooks'],
          security: [{ webhookSignature: [] }],
          requestBody: {
            required: true,
            content: { [JSON_TYPE]: { schema: c.use(eventEnvelope(type)) } },
          },
          responses: { '2XX': { description: 'Received; anything else (or no answer in time) is retried' } },
        },
      },
    ]),
  );
}

/** A query of any names (a link opened from a mail carries tracking parameters): an object without named
 * properties whose values are strings. */
const isFreeForm = (schema: TSchema): boolean => {
  const s = schema as { properties?: object; patternProperties?: object; additionalProperties?: unknown };
  return !s.properties && (s.patternProperties !== undefined || typeof s.additionalProperties === 'object');
};

/** OpenAPI's way to say "any query parameters": one form-style object parameter, exploded into name=value pairs. */
const FREE_FORM_QUERY: Json = {
  name: 'parameters',
  in: 'query',
  required: false,
  style: 'form',
  explode: true,
  description: 'Any query parameters (for example utm_…); they are ignored',
  schema: { type: 'object', additionalProperties: { type: 'string' } },
};

/** The OpenAPI 3.1 document of exactly the routes registered, and of the webhooks it sends. */
export function buildOpenApi(routes: CompiledRoute[], version: string): Record<string, unknown> {
  const c = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    const parameters: Json[] = [];
    for (const [where, schema] of [
      ['path', spec.params],
      ['query', spec.query],
    ] as const) {
      if (!schema) continue;
      if (where === 'query' && isFreeForm(schema)) {
        parameters.push(FREE_FORM_QUERY);
        continue;
      }
      const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
      const required = new Set((schema as { required?: string[] }).required ?? []);
      for (const [name, s] of Object.entries(props)) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          schema: c.use(s),
        });
      }
    }
    for (const [name, description] of Object.entries(spec.headers ?? {})) {
      parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    }
    const op: Json = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      security: SECURITY[spec.auth],
    };
    if (parameters.length) op.parameters = parameters;
    if (spec.body)
      op.requestBody = { required: true, content: { [JSON_TYPE]: { schema: c.use(spec.body) } } };
    op.responses = Object.fromEntries(
      answers(spec).map(([status, doc]) => [status, responseObject(status, doc, c)]),
    );
    paths[spec.path] ??= {};
    (paths[spec.path] as Json)[spec.method.toLowerCase()] = op;
  }
  const hooks = webhooks(c);
  const tags = [...new Set([...routes.map((r) => r.spec.tag), 'webhooks'])];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Veriscreen',
      version,
      description: 'Identity verification (KYC) and AML sanctions/PEP screening, tenant-scoped HTTP/JSON API',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    tags: tags.map((name) => (TAGS[name] ? { name, description: TAGS[name] } : { name })),
    paths,
    webhooks: hooks,
    components: {
      schemas: Object.fromEntries(Object.entries(c.schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
