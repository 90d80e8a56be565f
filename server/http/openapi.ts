import type { TSchema } from '@sinclair/typebox';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { EVENT_CATALOGUE, EVENT_TYPES, eventEnvelope } from '../../schemas/events.js';
import type { CompiledRoute } from './router.js';

/** Strips TypeBox's symbol keys by a JSON round trip; JSON Schema 2020-12 is OpenAPI 3.1's dialect. */
const plain = (s: TSchema): unknown => JSON.parse(JSON.stringify(s));

const SECURITY: Record<string, Record<string, string[]>[]> = {
  none: [],
  admin: [{ adminToken: [] }],
  secret: [{ secretKey: [] }],
  bearer: [{ secretKey: [] }],
  tenant: [{ secretKey: [] }, { publishableKey: [] }],
};

/** What a subscribed endpoint receives, one entry per event of the catalogue (schemas/events.ts). */
function webhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: EVENT_CATALOGUE[type].description,
          description:
            'Signed with `Veriscreen-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (docs/webhooks.md).',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: plain(eventEnvelope(type)) } },
          },
          responses: { '2XX': { description: 'Received; anything else (or no answer in time) is retried' } },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document of exactly the routes registered, and of the webhooks it sends. */
export function buildOpenApi(routes: CompiledRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    const parameters: Record<string, unknown>[] = [];
    for (const [where, schema] of [
      ['path', spec.params],
      ['query', spec.query],
    ] as const) {
      if (!schema) continue;
      const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
      const required = new Set((schema as { required?: string[] }).required ?? []);
      for (const [name, s] of Object.entries(props)) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          schema: plain(s),
        });
      }
    }
    for (const [name, description] of Object.entries(spec.headers ?? {})) {
      parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(spec.responses)) {
      responses[status] = {
        description: doc.description,
        ...(doc.schema ? { content: { 'application/json': { schema: plain(doc.schema) } } } : {}),
      };
    }
    // answers every operation can give, whether or not its route lists them: a 422 (the query string and the text
    // rule apply everywhere) and any other error in the one envelope
    responses['422'] ??= {
      description: 'Validation error',
      content: { 'application/json': { schema: plain(ValidationFailure) } },
    };
    responses.default ??= {
      description: 'Error (error.code from the catalogue)',
      content: { 'application/json': { schema: plain(ErrorEnvelope) } },
    };
    const op: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      security: SECURITY[spec.auth],
      responses,
    };
    if (parameters.length) op.parameters = parameters;
    if (spec.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: plain(spec.body) } } };
    }
    paths[spec.path] ??= {};
    (paths[spec.path] as Record<string, unknown>)[spec.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Veriscreen',
      version,
      description: 'Identity verification (KYC) and AML sanctions/PEP screening, tenant-scoped HTTP/JSON API',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((r) => r.spec.tag))].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'Tenant secret key tnk_…' },
        publishableKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Publishable key pk_… (sync checks-only flows)',
        },
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token' },
      },
    },
  };
}
