import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { HealthOut } from '../../schemas/health.js';
import { type Reply, route } from '../http/router.js';
import type { Metrics } from '../metrics.js';

export interface Readiness {
  /** ready: the core (not draining, database, matcher); all: every dependency too (Redis, NATS) */
  check(): Promise<{ ready: boolean; all: boolean; components: Record<string, string> }>;
}

function serialise(doc: unknown): { text: string; etag: string } {
  const text = JSON.stringify(doc);
  return { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
}

const ReadyQuery = Type.Object(
  {
    strict: Type.Optional(
      Type.Boolean({
        description:
          'true: ready only when every dependency is (Redis and NATS too), e.g. for a worker or a deployment check',
      }),
    ),
  },
  { additionalProperties: false },
);

export function healthRoutes(readiness: Readiness, metrics: Metrics, openapi: () => unknown) {
  let served: { text: string; etag: string } | undefined;
  return [
    route({
      method: 'GET',
      path: '/livez',
      operationId: 'livez',
      summary: 'Liveness: the process answers (no dependency checks)',
      tag: 'health',
      auth: 'none',
      responses: { 200: { description: 'Alive', schema: HealthOut } },
      handler: () => ({ status: 200, body: { status: 'ok' } }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      operationId: 'readyz',
      summary:
        'Readiness: Postgres answers and the matcher has a dataset version loaded (Redis or NATS down: 200 ' +
        '"degraded"; with strict=true every dependency is required)',
      tag: 'health',
      auth: 'none',
      query: ReadyQuery,
      responses: {
        200: { description: 'Ready (status ok, or degraded: Redis or NATS is down)', schema: HealthOut },
        503: { description: 'Not ready; the failing components say why', schema: HealthOut },
      },
      handler: async ({ query }) => {
        const r = await readiness.check();
        const ready = query.strict ? r.all : r.ready;
        const status = !ready ? 'unavailable' : r.all ? 'ok' : 'degraded';
        return { status: ready ? 200 : 503, body: { status, ...r.components } };
      },
    }),
    route({
      method: 'GET',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format)',
      tag: 'health',
      auth: 'none',
      responses: {
        200: { description: 'Metrics in Prometheus text format', content: { 'text/plain': Type.String() } },
      },
      handler: async () => ({
        status: 200,
        headers: { 'content-type': metrics.registry.contentType },
        text: await metrics.registry.metrics(),
      }),
    }),
    route({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'openapi',
      summary: 'This OpenAPI 3.1 document',
      tag: 'health',
      auth: 'none',
      responses: {
        200: { description: 'OpenAPI document', schema: Type.Object({}, { additionalProperties: true }) },
        304: { description: 'Not modified: If-None-Match carried the current ETag' },
      },
      handler: ({ req }): Reply => {
        // serialised once per process (~300 KB), with a strong ETag so clients can revalidate for free
        served ??= serialise(openapi());
        if (req.headers['if-none-match'] === served.etag) {
          return { status: 304, headers: { etag: served.etag, 'cache-control': 'no-cache' } };
        }
        return {
          status: 200,
          text: served.text,
          headers: { 'content-type': 'application/json', etag: served.etag, 'cache-control': 'no-cache' },
        };
      },
    }),
  ];
}
