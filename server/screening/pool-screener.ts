import type { Screener } from '../checks/check-type.js';
import type { Metrics } from '../metrics.js';
import type { MatcherPool } from './matcher-pool.js';

/** Screens on the matcher pool, with the screen metrics (latency, count, matcher busy time) per dataset version. */
export function poolScreener(pool: MatcherPool, metrics: Metrics): Screener {
  return async (subject, options) => {
    const started = performance.now();
    const res = await pool.screen(subject, options);
    metrics.screenDuration.observe({ version: res.dataset_version }, (performance.now() - started) / 1000);
    metrics.screensTotal.inc({ version: res.dataset_version });
    if (res.screen_ms !== undefined) metrics.matcherBusySeconds.inc(res.screen_ms / 1000);
    return res;
  };
}
