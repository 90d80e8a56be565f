import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { type Reply, type RequestInfo, route } from '../http/router.js';
import { assetRoute, COMMON_HEADERS, NotBuilt, staticBundle } from '../http/static-bundle.js';
import { ROOT } from '../paths.js';

/**
 * The applicant's hosted page (applicant/src, built by Vite into dist/applicant; docs/journey.md "The hosted
 * page"), served by the API process:
 *   GET /applicant/                → index.html (`?link=used|expired|revoked|unknown` is read by the page)
 *   GET /applicant/assets/{file}   → a built asset
 *
 * Embeddable by the tenant of the applicant session the request carries (its cookie, or `?session=` naming a bearer
 * session whose token the page has in its fragment), and by nobody else: `frame-ancestors` lists that tenant's
 * `allowed_origins` ('none' without a session), and the same list is written into the page
 * (meta `veriscreen-embed-origins`) so that the page posts its completion message to those origins only.
 */

export const APPLICANT_PAGE_TAG = 'applicant-page';
export const DEFAULT_APPLICANT_DIR = join(ROOT, 'dist', 'applicant');
const ORIGINS_PLACEHOLDER = '__EMBED_ORIGINS__';
/** an origin as the tenant settings store it (scheme://host[:port]); anything else never reaches a header */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** No inline script or style; the API on the same origin; uploads go to the object store's presigned URLs; the
 * camera's stream is shown from memory and captured stills are previewed as blob: images. */
const csp = (uploadOrigins: string[], frameAncestors: string[]) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:",
    ["connect-src 'self'", ...uploadOrigins].join(' '),
    "font-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors.length ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');

export interface ApplicantPageDeps {
  dir?: string;
  /** origins the page PUTs its captures to (the object store's presigned URLs) */
  uploadOrigins?: string[];
}

export interface ApplicantPageRouteDeps {
  /** the page, rendered for the origins that may frame it (the same renderer answers an opened link) */
  render: ApplicantPageRenderer;
  /** the `allowed_origins` of the tenant whose applicant session this request carries, or that `?session=` names
   * ([] without one) */
  embedOrigins: (req: RequestInfo, sessionId?: string) => Promise<string[]>;
}

/** Renders the page for a request whose embedding origins are known: the opened link's answer and GET /applicant/. */
export type ApplicantPageRenderer = ((origins: string[]) => Reply) & {
  bundle: ReturnType<typeof staticBundle>;
};

export function applicantPageRenderer(deps: ApplicantPageDeps = {}) {
  const bundle = staticBundle(
    deps.dir ?? DEFAULT_APPLICANT_DIR,
    'The applicant page is not built: run `npm run build` (or `npm run build:applicant`)',
  );
  const uploadOrigins = deps.uploadOrigins ?? [];
  const render = (embedOrigins: string[]): Reply => {
    const index = bundle().index;
    const origins = embedOrigins.filter((o) => ORIGIN.test(o));
    return {
      status: 200,
      text: index.replace(ORIGINS_PLACEHOLDER, origins.join(' ')),
      headers: {
        ...COMMON_HEADERS,
        // the page is the same for everyone but its embedding rights: never cached, never a referrer
        'referrer-policy': 'no-referrer',
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': csp(uploadOrigins, origins),
        'permissions-policy': 'camera=(self), microphone=(), geolocation=()',
        ...(origins.length ? {} : { 'x-frame-options': 'DENY' }),
      },
    };
  };
  return Object.assign(render, { bundle });
}

export function applicantPageRoutes({ render, embedOrigins }: ApplicantPageRouteDeps) {
  const bundle = render.bundle;
  const page = async ({ req, query }: { req: RequestInfo; query: { session?: string } }): Promise<Reply> =>
    render(await embedOrigins(req, query.session));

  return [
    assetRoute({ prefix: '/applicant', operationId: 'applicantPageAsset', tag: APPLICANT_PAGE_TAG, bundle }),
    route({
      method: 'GET',
      path: '/applicant',
      operationId: 'applicantPage',
      summary: "The applicant's hosted verification page",
      tag: APPLICANT_PAGE_TAG,
      auth: 'none',
      query: Type.Object({
        link: Type.Optional(Type.String({ maxLength: 20 })),
        session: Type.Optional(
          Type.String({
            format: 'uuid',
            description:
              "a bearer session's id (its POST /v1/applicant_sessions page_url): the page may be framed by its tenant's allowed origins",
          }),
        ),
      }),
      responses: { 200: { description: 'The page (text/html)' }, 404: NotBuilt },
      handler: page,
    }),
  ];
}
