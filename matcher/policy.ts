import type { MatchPolicy } from './types.js';

export const ALGORITHMS: readonly string[] = ['veriscreen-v1'];

/** Thresholds calibrated on the nomenklatura development cases (see test/matcher/dev-quality.ts). */
export const DEFAULT_POLICY: MatchPolicy = Object.freeze({
  algorithm: 'veriscreen-v1',
  review_threshold: 0.85,
  fail_threshold: 0.95,
  dataset_thresholds: Object.freeze({}) as Record<string, number>,
  use_case_thresholds: Object.freeze({}) as Record<string, number>,
  feature_weights: Object.freeze({}) as Record<string, number>,
  include_sources: Object.freeze([]) as unknown as string[],
  exclude_sources: Object.freeze([]) as unknown as string[],
  include_weak_aliases: false,
}) as MatchPolicy;

export function resolvePolicy(partial?: Partial<MatchPolicy>): MatchPolicy {
  const p = partial ?? {};
  const algorithm = p.algorithm ?? DEFAULT_POLICY.algorithm;
  if (!ALGORITHMS.includes(algorithm)) throw new Error(`unknown matching algorithm: ${algorithm}`);
  return {
    algorithm,
    review_threshold: p.review_threshold ?? DEFAULT_POLICY.review_threshold,
    fail_threshold: p.fail_threshold ?? DEFAULT_POLICY.fail_threshold,
    dataset_thresholds: { ...(p.dataset_thresholds ?? {}) },
    use_case_thresholds: { ...(p.use_case_thresholds ?? {}) },
    feature_weights: { ...(p.feature_weights ?? {}) },
    include_sources: [...(p.include_sources ?? [])],
    exclude_sources: [...(p.exclude_sources ?? [])],
    include_weak_aliases: p.include_weak_aliases ?? DEFAULT_POLICY.include_weak_aliases,
  };
}

/**
 * The review threshold a match is judged against: a dataset override wins for that dataset, otherwise the
 * use-case threshold, otherwise the policy's review threshold. With several datasets the lowest (most
 * cautious) applies.
 */
export function effectiveThreshold(
  policy: MatchPolicy,
  datasets: readonly string[],
  use_case?: string,
): number {
  const base =
    (use_case !== undefined ? policy.use_case_thresholds[use_case] : undefined) ?? policy.review_threshold;
  if (datasets.length === 0) return base;
  let t = Number.POSITIVE_INFINITY;
  for (const d of datasets) {
    const v = policy.dataset_thresholds[d] ?? base;
    if (v < t) t = v;
  }
  return t;
}
