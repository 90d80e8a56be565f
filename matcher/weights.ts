// The numbers scoring runs on, in one place: the name-score parameters that alignment and its bound read, the
// penalties of the name rules, and the features added to the name score, which combine() and the screen's bound
// both read.

export interface ScoreParams {
  minTokenSim: number;
  power: number;
  curve: number;
  queryExtraMulti: number;
  queryExtraSingle: number;
  candExtraMulti: number;
  candExtraSingle: number;
  orgExtra: number;
  extraCap: number;
  joinedMin: number;
  joinedDiscount: number;
  /** weight multiplier of tokens substituted on both sides (a different name part) of two company names */
  substMult: number;
  /** the same for two person names: a name part replaced by another (AKHTAR MOHAMMAD MANSOUR ABDUL
   * MOHAMMED / … SHAH MOHAMMED) names another person more surely than a part left out names the same one */
  personSubstMult: number;
  /** similarity of two different numbers (Fund III / Fund IV, Snow Storm 1 / 2): a series of one name */
  numberSim: number;
}

export const SCORE_PARAMS: ScoreParams = {
  minTokenSim: 0.6,
  power: 2,
  curve: 1,
  queryExtraMulti: 0.06,
  queryExtraSingle: 0.2,
  candExtraMulti: 0.04,
  candExtraSingle: 0.07,
  orgExtra: 0.16,
  extraCap: 0.5,
  joinedMin: 0.85,
  joinedDiscount: 0.97,
  substMult: 1,
  personSubstMult: 1.2,
  numberSim: 0.6,
};

export const FORM_CONFLICT = 0.16;
export const BIN_SWAP = 0.75;
export const ACRONYM_DISCOUNT = 0.95;
/** The least cost of a person name whose given name stands as the other's middle name (givenShifted in alignment.ts). */
export const GIVEN_SHIFTED = 0.16;

/**
 * The features added to the name score and the values each can add (combine() in features.ts adds value × the
 * policy's weight for the feature, `feature_weights[key]`, default 1). The screen's bound reads the same table for
 * the most the features can add (maxFeatureBonus), so a value changed here changes both.
 */
export const FEATURES = {
  /** the subject's date of birth against the entity's (dobFeature) */
  dob: { exact: 0.04, year: 0.02, near: 0.01, partialMismatch: -0.05, mismatch: -0.2 },
  /** any shared country (nationalities and countries), or none */
  nationality: { match: 0.03, mismatch: -0.05 },
  /** a subject of another kind than the entity's schema (typePenalty) */
  entity_type: { otherKind: -0.1 },
  /** the matched name is a weak alias (per name, not per entity) */
  weak_alias: { weak: -0.03 },
  /** an exact identifier lifts the score to at least floor + perName × the name score */
  identifier: { floor: 0.95, perName: 0.05 },
} as const;

/** The entity's features, which add the same value whichever of its names matched, each with the largest value it
 * can add (0 when all its values are penalties: it may also be absent). */
const ENTITY_FEATURE_MAX = (['dob', 'nationality', 'entity_type'] as const).map(
  (f) => [f, Math.max(0, ...Object.values(FEATURES[f]))] as const,
);

/** The weight of a feature (or of the name score, `name`) under a policy's feature_weights. */
export function featureWeight(weights: Readonly<Record<string, number>>, key: string): number {
  return weights[key] ?? 1;
}

/** The most the entity's features can add to a name score under these weights (each at its largest value, or 0
 * when absent): what a name's bound must leave room for. Weights are ≥ 0 (the policy's range). */
export function maxFeatureBonus(weights: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const [f, max] of ENTITY_FEATURE_MAX) total += max * featureWeight(weights, f);
  return total;
}
