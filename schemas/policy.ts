import { type Static, Type } from '@sinclair/typebox';
import { AML_DATASET_VALUES, AmlDataset, StringEnum } from './common.js';

const Score = Type.Number({ minimum: 0, maximum: 1 });
const UseCaseKey = Type.String({ pattern: '^[a-z0-9_]{1,64}$' });
const SourceName = Type.String({ minLength: 1, maxLength: 100 });

/** Feature names the matcher weighs (matcher/features.ts combine()). */
export const FEATURE_NAMES = [
  'name',
  'dob',
  'nationality',
  'identifier',
  'entity_type',
  'weak_alias',
] as const;

export const AmlMatchPolicyIn = Type.Object(
  {
    algorithm: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    review_threshold: Type.Optional(Score),
    fail_threshold: Type.Optional(Score),
    dataset_thresholds: Type.Optional(
      Type.Record(Type.String(), Score, {
        propertyNames: { enum: [...AML_DATASET_VALUES] },
        description: 'AML dataset → review threshold for matches in that dataset',
      }),
    ),
    use_case_thresholds: Type.Optional(
      Type.Record(UseCaseKey, Score, { maxProperties: 50, description: 'use case → review threshold' }),
    ),
    feature_weights: Type.Optional(
      Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 10 }), {
        propertyNames: { enum: [...FEATURE_NAMES] },
        description: 'feature → weight multiplier (1 = as calibrated)',
      }),
    ),
    include_sources: Type.Optional(Type.Array(SourceName, { maxItems: 100, uniqueItems: true })),
    exclude_sources: Type.Optional(Type.Array(SourceName, { maxItems: 100, uniqueItems: true })),
    include_weak_aliases: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'AmlMatchPolicyIn' },
);

export const AmlMatchPolicyOut = Type.Object(
  {
    algorithm: Type.String(),
    review_threshold: Type.Number(),
    fail_threshold: Type.Number(),
    dataset_thresholds: Type.Record(Type.String(), Type.Number()),
    use_case_thresholds: Type.Record(Type.String(), Type.Number()),
    feature_weights: Type.Record(Type.String(), Type.Number()),
    include_sources: Type.Array(Type.String()),
    exclude_sources: Type.Array(Type.String()),
    include_weak_aliases: Type.Boolean(),
  },
  { title: 'AmlMatchPolicy' },
);

export const FatfBlackHandling = StringEnum(['flag', 'block'] as const);
export const FatfGreyHandling = StringEnum(['ignore', 'flag'] as const);
export const VpnPolicy = StringEnum(['allow', 'review', 'block'] as const);

export const CheckPolicyIn = Type.Object(
  {
    aml_match_policy: Type.Optional(AmlMatchPolicyIn),
    blocked_countries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z]{2}$' }), { maxItems: 300, uniqueItems: true }),
    ),
    default_datasets: Type.Array(AmlDataset, { minItems: 1, uniqueItems: true }),
    device_velocity_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    fatf_black_handling: Type.Optional(FatfBlackHandling),
    fatf_grey_handling: Type.Optional(FatfGreyHandling),
    four_eyes_required: Type.Optional(Type.Boolean()),
    vpn_policy: Type.Optional(VpnPolicy),
    face_match_threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'selfie check: face similarity (0..1) at or above which selfie and document portrait match',
      }),
    ),
    liveness_review_threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'selfie check: an advisory liveness score below this sends the flow to review (never rejects)',
      }),
    ),
  },
  { additionalProperties: false, title: 'CheckPolicyIn' },
);
export type CheckPolicyIn = Static<typeof CheckPolicyIn>;

export const CheckPolicyOut = Type.Object(
  {
    aml_match_policy: AmlMatchPolicyOut,
    blocked_countries: Type.Array(Type.String()),
    default_datasets: Type.Array(AmlDataset),
    device_velocity_threshold: Type.Integer(),
    fatf_black_handling: FatfBlackHandling,
    fatf_grey_handling: FatfGreyHandling,
    four_eyes_required: Type.Boolean(),
    vpn_policy: VpnPolicy,
    face_match_threshold: Type.Number(),
    liveness_review_threshold: Type.Number(),
    policy_version: Type.String(),
  },
  { title: 'CheckPolicy' },
);
export type CheckPolicyOut = Static<typeof CheckPolicyOut>;
