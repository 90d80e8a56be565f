// Candidate bounding: how a name's score (or its bound) enters its entity's score under the policy's weights, and
// the floor under which no feature can lift an entity to the threshold (docs/matching.md §3, step 5).
import type { ScreenOptions } from './types.js';
import { FEATURES, featureWeight, maxFeatureBonus } from './weights.js';

/** Added to a name-score bound before it is tested (floating-point rounding of the two sums). */
export const BOUND_MARGIN = 1e-9;

/** How a name enters its entity's score (combine in features.ts): its name score times the name weight, less, for a
 * weak alias, the weak-alias discount times its weight. bestNames keeps per entity the name with the largest such
 * term (the other features are the entity's, the same for each of its names), so the choice and the bounds follow
 * the weights in force: with a fixed penalty in name-score units a weak alias could be preferred to (or dropped for)
 * a name that gives a higher score, or an entity dropped below the floor that would have passed it. */
export interface NameTerms {
  wName: number;
  /** the weighted discount of a weak alias, as a penalty (≥ 0 for weights ≥ 0) */
  weakPenalty: number;
}

export function nameTerms(options: ScreenOptions): NameTerms {
  const weights = options.policy.feature_weights;
  return {
    wName: featureWeight(weights, 'name'),
    weakPenalty: -FEATURES.weak_alias.weak * featureWeight(weights, 'weak_alias'),
  };
}

/** The term a name with `nameScore` adds to its entity's score. */
export function nameTerm(t: NameTerms, nameScore: number, weak: boolean): number {
  const v = nameScore * t.wName;
  return weak ? v - t.weakPenalty : v;
}

/** A name-score bound (nameSimilarityBound) as a bound of the name's term (nameTerm): the margin covers rounding
 * (the bound and the score add the same terms in another order); with the name weight ≥ 0 (nameWeightMonotone)
 * every operation after it is monotone, so the term of a score below the bound stays below the bound's. */
export function scoreBound(t: NameTerms, bound: number, weak: boolean): number {
  return nameTerm(t, bound + BOUND_MARGIN, weak);
}

/** The test, for one screen's policy and threshold, of whether an entity whose best name's term (nameTerm) is `term`
 * cannot reach `minThreshold` even with the largest bonus the features give (an exact date of birth and a matching
 * country): it is not a match unless an identifier reached it. It is non-increasing in `term`: it holds for every
 * term below a bound it holds for. */
export function belowFloor(options: ScreenOptions, minThreshold: number): (term: number) => boolean {
  const { maxBonus } = floorTerms(options);
  return (term) => term + maxBonus < minThreshold;
}

/** The name weight and the largest bonus the features give (belowFloor's terms). */
function floorTerms(options: ScreenOptions): { wName: number; maxBonus: number } {
  const weights = options.policy.feature_weights;
  return { wName: featureWeight(weights, 'name'), maxBonus: maxFeatureBonus(weights) };
}

/** About the name score belowFloor starts to let through (from where a bound is worth tightening: any value would
 * keep the bound admissible, this one saves the most work). */
export function nameFloor(options: ScreenOptions, minThreshold: number): number {
  const { wName, maxBonus } = floorTerms(options);
  return wName > 0 ? (minThreshold - maxBonus) / wName : Number.POSITIVE_INFINITY;
}
export const nameWeightMonotone = (options: ScreenOptions): boolean =>
  featureWeight(options.policy.feature_weights, 'name') >= 0;
