import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../schemas/common.js';
import { ApiError } from '../errors.js';
import { type RouteSpec, route } from './router.js';

/**
 * A page built by Vite (index.html + content-hashed text assets) served by the service itself: the operator
 * dashboard (server/dashboard) and the applicant's hosted page (server/applicant-page).
 *
 * Files are looked up by exact name in a table read from `<dir>/assets`, never joined from the request path: path
 * traversal is impossible by construction. Only text assets are built and served (Vite inlines the rest).
 */

const TEXT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

interface Asset {
  body: string;
  type: string;
  /** compressed once when the bundle is read: on a phone's network the bytes are most of the page's wait */
  br: Buffer;
  gzip: Buffer;
}
export interface Bundle {
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
      const body = readFileSync(join(assetDir, entry.name), 'utf8');
      assets.set(entry.name, { body, type, ...compressed(body) });
    }
  }
  return { index: readFileSync(indexPath, 'utf8'), assets };
}

function compressed(body: string): { br: Buffer; gzip: Buffer } {
  return {
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: gzipSync(body, { level: 9 }),
  };
}

/** The encoding to send an asset in: brotli, else gzip, when the client accepts it (q=0 refuses). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase().split(';'))
      .filter(([, q]) => !/^\s*q\s*=\s*0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return undefined;
}

/** The bundle in `dir`, read once it exists; until then every call looks again (a build after start is picked
 * up) and answers 404 with `notBuilt` as its message. */
export function staticBundle(dir: string, notBuilt: string): () => Bundle {
  let bundle: Bundle | undefined;
  return () => {
    bundle ??= loadBundle(dir);
    if (!bundle) throw new ApiError('not_found', { message: notBuilt });
    return bundle;
  };
}

export const NotBuilt = {
  description: 'The page is not built (run `npm run build`) or the asset does not exist',
  schema: ErrorEnvelope,
};

/** GET `<prefix>/assets/{file}`: a built asset (hashed name: cached for a year, immutable) or 404 JSON. */
export function assetRoute(opts: {
  prefix: string;
  operationId: string;
  tag: string;
  bundle: () => Bundle;
}): RouteSpec<TSchema, TSchema, TSchema> {
  return route({
    method: 'GET',
    path: `${opts.prefix}/assets/{file}`,
    operationId: opts.operationId,
    summary: 'A built asset of the page (content-hashed name)',
    tag: opts.tag,
    auth: 'none',
    params: Type.Object({ file: Type.String({ minLength: 1, maxLength: 200 }) }),
    responses: { 200: { description: 'The asset' }, 404: NotBuilt },
    handler: ({ params, req }) => {
      const asset = opts.bundle().assets.get(params.file);
      if (!asset) throw new ApiError('not_found', { message: 'No such asset' });
      const encoding = pickEncoding(req.headers['accept-encoding']);
      const headers = {
        ...COMMON_HEADERS,
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
        vary: 'accept-encoding',
      };
      if (!encoding) return { status: 200, text: asset.body, headers };
      return { status: 200, bytes: asset[encoding], headers: { ...headers, 'content-encoding': encoding } };
    },
  });
}
