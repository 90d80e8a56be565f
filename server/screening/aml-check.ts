import type { Match, MatchPolicy, ScreenSubject } from '../../matcher/types.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { Metrics } from '../metrics.js';
import type { MatcherPool } from './matcher-pool.js';

export interface AmlCheckOutcome {
  result: 'clear' | 'hit';
  decision: 'AUTO_APPROVED' | 'MANUAL_REVIEW';
  reason_codes: string[];
  dataset_version: string;
  latency_ms: number;
  evidence: {
    subject: ScreenSubject;
    algorithm: string;
    review_threshold: number;
    matches: Match[];
    candidates: number;
  };
}

/** Runs one aml_screen on the matcher pool and turns its matches into a check outcome.
 * A match at or above its (dataset- or use-case-adjusted) threshold routes the flow to manual review. */
export async function runAmlScreen(
  pool: MatcherPool,
  metrics: Metrics,
  subject: ScreenSubject,
  datasets: readonly AmlDataset[],
  policy: MatchPolicy,
  use_case?: string,
): Promise<AmlCheckOutcome> {
  const started = performance.now();
  const res = await pool.screen(subject, { datasets, policy, ...(use_case ? { use_case } : {}), limit: 10 });
  const latency_ms = Math.round((performance.now() - started) * 1000) / 1000;
  metrics.screenDuration.observe({ version: res.dataset_version }, latency_ms / 1000);
  metrics.screensTotal.inc({ version: res.dataset_version });
  if (res.screen_ms !== undefined) metrics.matcherBusySeconds.inc(res.screen_ms / 1000);
  const hits = res.matches.filter((m) => m.score >= m.evidence.threshold);
  const codes = new Set<string>();
  for (const m of hits) for (const d of m.datasets) if (datasets.includes(d)) codes.add(`aml_${d}_match`);
  return {
    result: hits.length ? 'hit' : 'clear',
    decision: hits.length ? 'MANUAL_REVIEW' : 'AUTO_APPROVED',
    reason_codes: [...codes].sort(),
    dataset_version: res.dataset_version,
    latency_ms,
    evidence: {
      subject,
      algorithm: policy.algorithm,
      review_threshold: policy.review_threshold,
      matches: res.matches,
      candidates: res.candidates,
    },
  };
}
