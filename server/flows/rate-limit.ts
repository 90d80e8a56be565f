import type { Redis } from 'ioredis';
import { ApiError } from '../errors.js';

export interface RateLimitConfig {
  /** requests allowed per window */
  limit: number;
  window_s: number;
}

// Sliding-window log in one round trip: drop entries older than the window, count, and add this request only
// when under the limit (refused requests do not extend the wait). Returns {allowed, count, oldest_ms}.
const SCRIPT = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2] or now
return {allowed, count, tonumber(oldest)}
`;

let seq = 0;

/** Per publishable key and client IP. Headers follow the IETF RateLimit header fields draft
 * (RateLimit-Policy / RateLimit), plus Retry-After on 429. */
export async function hitRateLimit(
  redis: Redis,
  cfg: RateLimitConfig,
  keyId: string,
  clientIp: string,
): Promise<Record<string, string>> {
  const now = Date.now();
  const windowMs = cfg.window_s * 1000;
  const member = `${now}:${process.pid}:${seq++}`;
  const [allowed, count, oldest] = (await redis.eval(
    SCRIPT,
    1,
    `vs:rl:pk:${keyId}:${clientIp}`,
    now,
    windowMs,
    cfg.limit,
    member,
  )) as [number, number, number];
  const remaining = Math.max(0, cfg.limit - count);
  const reset = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  const headers = {
    'ratelimit-policy': `"publishable";q=${cfg.limit};w=${cfg.window_s}`,
    ratelimit: `"publishable";r=${remaining};t=${reset}`,
  };
  if (allowed !== 1) {
    throw new ApiError('rate_limited', {
      message: `Rate limit of ${cfg.limit} requests per ${cfg.window_s} s for this key and client IP exceeded`,
      details: { limit: cfg.limit, window_seconds: cfg.window_s, retry_after: reset },
      headers: { ...headers, 'retry-after': String(reset) },
    });
  }
  return headers;
}
