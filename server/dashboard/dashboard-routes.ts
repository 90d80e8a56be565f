import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { type Reply, route } from '../http/router.js';
import { assetRoute, COMMON_HEADERS, NotBuilt, staticBundle } from '../http/static-bundle.js';
import { ROOT } from '../paths.js';

/**
 * The operator dashboard (dashboard/src, built by Vite into dist/dashboard) served by the service itself:
 *   GET /dashboard                    → index.html
 *   GET /dashboard/assets/{file}      → a built asset (hashed name: cached for a year, immutable) or 404 JSON
 *   GET /dashboard/{a}[/{b}[/{c}]]    → index.html (client-side routes, e.g. /dashboard/alerts/<id>)
 *
 * Files come from server/http/static-bundle.ts (exact names, no path joins). Routes carry tag 'dashboard' and are
 * left out of /openapi.json (server/app.ts).
 */

export const DASHBOARD_TAG = 'dashboard';
export const DEFAULT_DASHBOARD_DIR = join(ROOT, 'dist', 'dashboard');

/** Same-origin everything; no inline script; the API is on the same origin. Images may also come from the object
 * store (presigned previews of identity documents and selfies). */
const csp = (imageOrigins: string[]) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self' data:", ...imageOrigins].join(' '),
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

const Html = { description: 'The dashboard page (text/html)' };

export function dashboardRoutes(opts: { dir?: string; imageOrigins?: string[] } = {}) {
  const CSP = csp(opts.imageOrigins ?? []);
  const bundle = staticBundle(
    opts.dir ?? DEFAULT_DASHBOARD_DIR,
    'The dashboard is not built: run `npm run build` (or `npm run build:dashboard`)',
  );

  const page = (): Reply => ({
    status: 200,
    text: bundle().index,
    headers: {
      ...COMMON_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': CSP,
      'x-frame-options': 'DENY',
    },
  });

  const PageQuery = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 2000 }));
  const pageRoute = (path: string, operationId: string, params?: string[]) =>
    route({
      method: 'GET',
      path,
      operationId,
      summary: 'Operator dashboard page (client-side route)',
      tag: DASHBOARD_TAG,
      auth: 'none',
      // the page's own query (e.g. /dashboard/login?tenant=…), read by the page, never by the server
      query: PageQuery,
      ...(params
        ? {
            params: Type.Object(Object.fromEntries(params.map((p) => [p, Type.String({ maxLength: 200 })]))),
          }
        : {}),
      responses: { 200: Html, 404: NotBuilt },
      handler: page,
    });

  return [
    assetRoute({ prefix: '/dashboard', operationId: 'dashboardAsset', tag: DASHBOARD_TAG, bundle }),
    pageRoute('/dashboard', 'dashboardIndex'),
    pageRoute('/dashboard/{a}', 'dashboardRoute1', ['a']),
    pageRoute('/dashboard/{a}/{b}', 'dashboardRoute2', ['a', 'b']),
    pageRoute('/dashboard/{a}/{b}/{c}', 'dashboardRoute3', ['a', 'b', 'c']),
  ];
}
