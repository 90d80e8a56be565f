import type { Principal } from '../auth/principal.js';
import type { CompiledRoute } from './router.js';

/** CORS for publishable keys (the only credential meant for browsers), on the routes they may call (auth 'tenant').
 * Never `*`: an answer names the exact origin. A preflight carries no credential, so it is answered for origins
 * that some active tenant allows; the actual request is then held to the allowlist of the key's own tenant (403
 * origin_not_allowed otherwise, and no Access-Control-Allow-Origin, so the browser hides the answer). */

/** Request headers a browser may send (Authorization carries the publishable key). */
export const CORS_ALLOW_HEADERS = 'authorization, content-type, idempotency-key, x-request-id';
/** Response headers a page may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = 'ratelimit, ratelimit-policy, retry-after, x-request-id';
/** Seconds a browser may cache a preflight answer. */
export const CORS_MAX_AGE_S = 600;

export const corsRoute = (route: CompiledRoute): boolean => route.spec.auth === 'tenant';

/** The CORS headers of an answer that allows no origin (one object for all of them: read, never changed). */
const VARY_ONLY: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });

/** Headers of an actual (non-preflight) answer on a CORS route. */
export function corsHeaders(
  origin: string | undefined,
  principal: Principal | undefined,
): Readonly<Record<string, string>> {
  // only publishable keys are meant for browsers: a secret key or a session never gets a cross-origin answer
  if (!origin || principal?.kind !== 'publishable') return VARY_ONLY;
  if (!principal.allowed_origins.includes(origin)) return VARY_ONLY;
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-expose-headers': CORS_EXPOSE_HEADERS,
  };
}

/** Headers of a successful preflight answer. */
export function preflightHeaders(origin: string, methods: string[]): Record<string, string> {
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': CORS_ALLOW_HEADERS,
    'access-control-max-age': String(CORS_MAX_AGE_S),
  };
}

/** Caches "does some active tenant allow this origin" for a few seconds (like key lookups). */
export function knownOrigins(lookup: (origin: string) => Promise<boolean>, ttlMs = 5_000) {
  const cache = new Map<string, { known: boolean; at: number }>();
  return async (origin: string): Promise<boolean> => {
    const hit = cache.get(origin);
    if (hit && Date.now() - hit.at < ttlMs) return hit.known;
    const known = await lookup(origin);
    if (cache.size >= 10_000) cache.clear();
    cache.set(origin, { known, at: Date.now() });
    return known;
  };
}
