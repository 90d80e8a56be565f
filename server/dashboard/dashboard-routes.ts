import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../schemas/common.js';
import { ApiError } from '../errors.js';
import { type Reply, route } from '../http/router.js';
import { ROOT } from '../paths.js';

/**
 * The operator dashboard (dashboard/src, built by Vite into dist/dashboard) served by the service itself:
 *   GET /dashboard                    → index.html
 *   GET /dashboard/assets/{file}      → a built asset (hashed name: cached for a year, immutable) or 404 JSON
 *   GET /dashboard/{a}[/{b}[/{c}]]    → index.html (client-side routes, e.g. /dashboard/alerts/<id>)
 *
 * Files are looked up by exact name in a table read from dist/dashboard/assets, never joined from the request
 * path: path traversal is impossible by construction. Only text assets are built and served (Vite inlines the
 * rest). Routes carry tag 'dashboard' and are left out of /openapi.json (server/app.ts).
 */

export const DASHBOARD_TAG = 'dashboard';
export const DEFAULT_DASHBOARD_DIR = join(ROOT, 'dist', 'dashboard');

const TEXT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

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

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

interface Asset {
  body: string;
  type: string;
}
interface Bundle {
  index: string;
  assets: Map<string, Asset>;
}

function loadBundle(dir: string): Bundle | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const entry of readdirSync(assetDir, { withFileTypes: true })) {
      const type = TEXT_TYPES[extname(entry.name).toLowerCase()];
      if (!entry.isFile() || !type) continue;
      assets.set(entry.name, { body: readFileSync(join(assetDir, entry.name), 'utf8'), type });
    }
  }
  return { index: readFileSync(indexPath, 'utf8'), assets };
}

const NotBuilt = {
  description: 'The dashboard is not built (run `npm run build`) or the asset does not exist',
  schema: ErrorEnvelope,
};
const Html = { description: 'The dashboard page (text/html)' };

export function dashboardRoutes(opts: { dir?: string; imageOrigins?: string[] } = {}) {
  const dir = opts.dir ?? DEFAULT_DASHBOARD_DIR;
  const CSP = csp(opts.imageOrigins ?? []);
  // read once the build exists; until then every request looks again (a build after start is picked up)
  let bundle: Bundle | undefined;
  const current = (): Bundle => {
    bundle ??= loadBundle(dir);
    if (!bundle) {
      throw new ApiError('not_found', {
        message: 'The dashboard is not built: run `npm run build` (or `npm run build:dashboard`)',
      });
    }
    return bundle;
  };

  const page = (): Reply => ({
    status: 200,
    text: current().index,
    headers: {
      ...COMMON_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': CSP,
      'x-frame-options': 'DENY',
    },
  });

  const pageRoute = (path: string, operationId: string, params?: string[]) =>
    route({
      method: 'GET',
      path,
      operationId,
      summary: 'Operator dashboard page (client-side route)',
      tag: DASHBOARD_TAG,
      auth: 'none',
      ...(params
        ? {
            params: Type.Object(Object.fromEntries(params.map((p) => [p, Type.String({ maxLength: 200 })]))),
          }
        : {}),
      responses: { 200: Html, 404: NotBuilt },
      handler: page,
    });

  return [
    route({
      method: 'GET',
      path: '/dashboard/assets/{file}',
      operationId: 'dashboardAsset',
      summary: 'A built dashboard asset (content-hashed name)',
      tag: DASHBOARD_TAG,
      auth: 'none',
      params: Type.Object({ file: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: { 200: { description: 'The asset' }, 404: NotBuilt },
      handler: ({ params }) => {
        const asset = current().assets.get(params.file);
        if (!asset) throw new ApiError('not_found', { message: 'No such dashboard asset' });
        return {
          status: 200,
          text: asset.body,
          headers: {
            ...COMMON_HEADERS,
            'content-type': asset.type,
            'cache-control': 'public, max-age=31536000, immutable',
          },
        };
      },
    }),
    pageRoute('/dashboard', 'dashboardIndex'),
    pageRoute('/dashboard/{a}', 'dashboardRoute1', ['a']),
    pageRoute('/dashboard/{a}/{b}', 'dashboardRoute2', ['a', 'b']),
    pageRoute('/dashboard/{a}/{b}/{c}', 'dashboardRoute3', ['a', 'b', 'c']),
  ];
}
