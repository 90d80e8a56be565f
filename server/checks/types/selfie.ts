import { faceSimilarity } from '../../../identity/face/index.js';
import type { IdentityInputs, ReadUpload } from '../../identity/identity-inputs.js';
import type { CheckOutcome, CheckTypeDef } from '../check-type.js';
import { runSubChecks, type SubCheckDef, type SubCheckResult } from '../sub-checks.js';
import { inputsMissing } from './document.js';
import {
  type ChallengeEvidence,
  challengeEvidence,
  challengeResult,
  LIVENESS_REASON_CODES,
} from './liveness-challenge.js';

export interface SelfiePolicy {
  /** similarity (0..1, identity/face faceSimilarity) at or above which the selfie and the portrait match */
  face_match_threshold: number;
  /** advisory liveness score below which the flow goes to review (never a rejection on its own) */
  liveness_review_threshold: number;
}

/** The selfie check (docs/decisions.md, "Identity verification"): the selfie's face against the document portrait. */
export const selfieType: CheckTypeDef = {
  type: 'selfie',
  needs_upload: true,
  reason_codes: {
    biometric_consent_missing: {
      description: 'The applicant has not given consent.biometric: no face was compared',
      decide: () => 'MANUAL_REVIEW',
    },
    selfie_no_face: { description: 'No face was found on the selfie', decide: () => 'MANUAL_REVIEW' },
    selfie_multiple_faces: {
      description: 'More than one face is on the selfie',
      decide: () => 'MANUAL_REVIEW',
    },
    selfie_no_document_face: {
      description: 'The document has no usable portrait to compare the selfie with',
      decide: () => 'MANUAL_REVIEW',
    },
    selfie_face_mismatch: {
      description:
        "The selfie's face does not match the document portrait (score below face_match_threshold)",
      decide: () => 'REJECTED',
    },
    selfie_liveness_low: {
      description:
        'The advisory liveness / anti-spoofing score is below liveness_review_threshold (never rejects on its own)',
      decide: () => 'MANUAL_REVIEW',
    },
    ...LIVENESS_REASON_CODES,
  },
  async run(_deps, input) {
    if (!input.uploads) return inputsMissing('selfie');
    return selfieCheck(input.uploads.identity, input.uploads.biometric_consent, input.policy);
  },
};

/** The portrait the selfie is matched against: a verified chip's DG2 portrait (the state's own photo, unaltered),
 * else the printed one. */
export const portraitSource = (inputs: IdentityInputs): 'chip' | 'document' =>
  inputs.chip?.verified && inputs.chip.embeddings.length ? 'chip' : 'document';

/** The portrait's embedding: the chip's (portraitSource), else the largest face on the document (a card may carry
 * a second, ghost image). */
function portraitEmbedding(inputs: IdentityInputs): number[] | undefined {
  if (portraitSource(inputs) === 'chip') return inputs.chip?.embeddings[0];
  const doc = portraitOf(inputs);
  if (!doc?.faces.length) return undefined;
  let best = 0;
  doc.faces.forEach((f, i) => {
    const b = doc.faces[best];
    if (b && f.box.width * f.box.height > b.box.width * b.box.height) best = i;
  });
  return doc.embeddings[best];
}

/** The upload holding the portrait: a two-sided document's front, else the document. */
const portraitOf = (inputs: IdentityInputs) => inputs.portrait ?? inputs.document;

/** What the selfie check's sub-checks look at. */
export interface SelfieContext {
  inputs: IdentityInputs;
  consent: boolean;
  policy: SelfiePolicy;
  selfie: ReadUpload | undefined;
  /** the liveness challenge's frames as judged (null: the selfie came without a challenge) */
  challenge: ChallengeEvidence | null;
}

/** A sub-check that needs consent and a read selfie (skipped otherwise). */
const onSelfie =
  (run: (c: SelfieContext, selfie: ReadUpload) => SubCheckResult) =>
  (c: SelfieContext): SubCheckResult | null =>
    c.consent && c.selfie ? run(c, c.selfie) : null;

/** The selfie's face embedding when it has exactly one face. */
const selfieFace = (s: ReadUpload) => (s.face_count === 1 ? s.embeddings[0] : undefined);

/** The selfie's face against the document portrait, null when either is missing. */
function faceMatchScore(inputs: IdentityInputs, selfie: ReadUpload): number | null {
  const portrait = portraitEmbedding(inputs);
  const face = selfieFace(selfie);
  return portrait && face ? round(faceSimilarity(face, portrait)) : null;
}

/**
 * The selfie check's sub-checks, in the order they are recorded: consent (without it nothing is compared:
 * biometric_consent_missing → review); exactly one face on the selfie (several → selfie_multiple_faces); the
 * document's portrait; that face against the portrait (score and threshold from the policy; below →
 * selfie_face_mismatch); the advisory liveness score (below liveness_review_threshold → selfie_liveness_low:
 * review only); the liveness challenge whose front frame the selfie is (liveness_challenge_failed / _expired:
 * review only; `passed: null` when the selfie came without one).
 */
export const SELFIE_SUB_CHECKS: SubCheckDef<SelfieContext>[] = [
  {
    name: 'biometric_consent',
    reason_code: 'biometric_consent_missing',
    run: ({ consent }) => ({ passed: consent, value: consent }),
  },
  {
    name: 'one_face',
    reason_code: 'selfie_no_face',
    run: ({ consent, selfie }) => {
      if (!consent) return null;
      if (!selfie) return { passed: false, value: null };
      return {
        passed: selfie.face_count === 1,
        value: selfie.face_count,
        expected: 1,
        reason_code: selfie.face_count === 0 ? 'selfie_no_face' : 'selfie_multiple_faces',
      };
    },
  },
  {
    name: 'document_portrait',
    reason_code: 'selfie_no_document_face',
    run: onSelfie(({ inputs }) => ({
      passed: !!portraitEmbedding(inputs),
      value:
        portraitSource(inputs) === 'chip'
          ? (inputs.chip?.face_count ?? 0)
          : (portraitOf(inputs)?.face_count ?? 0),
    })),
  },
  {
    name: 'face_match',
    reason_code: 'selfie_face_mismatch',
    run: onSelfie(({ inputs, policy }, selfie) => {
      const score = faceMatchScore(inputs, selfie);
      return {
        passed: score === null ? null : score >= policy.face_match_threshold,
        value: score,
        expected: `>= ${policy.face_match_threshold}`,
      };
    }),
  },
  {
    name: 'liveness_advisory',
    reason_code: 'selfie_liveness_low',
    run: onSelfie(({ policy }, selfie) => {
      const liveness = selfie.face_count === 1 ? (selfie.faces[0]?.liveness ?? null) : null;
      return {
        passed: liveness === null ? null : liveness >= policy.liveness_review_threshold,
        value: liveness === null ? null : round(liveness),
        expected: `>= ${policy.liveness_review_threshold}`,
      };
    }),
  },
  {
    name: 'liveness_challenge',
    reason_code: 'liveness_challenge_failed',
    run: onSelfie(({ challenge }) =>
      challenge ? challengeResult(challenge) : { passed: null, value: null },
    ),
  },
];

/** The flow's liveness challenge judged, when the selfie is its front frame and the applicant consented. */
function judgedChallenge(
  inputs: IdentityInputs,
  consent: boolean,
  policy: SelfiePolicy,
): ChallengeEvidence | null {
  const selfie = inputs.selfie;
  if (!consent || !inputs.challenge || !selfie) return null;
  const score = faceMatchScore(inputs, selfie);
  const portraitMatch = score === null ? null : score >= policy.face_match_threshold;
  return challengeEvidence(inputs.challenge, portraitMatch, policy.face_match_threshold);
}

/** The selfie check: every sub-check of SELFIE_SUB_CHECKS recorded with its value, the reason codes of the
 * failures raised. */
export function selfieCheck(
  inputs: IdentityInputs,
  biometricConsent: boolean,
  policy: SelfiePolicy,
): CheckOutcome {
  const started = performance.now();
  const selfie = inputs.selfie;
  const challenge = judgedChallenge(inputs, biometricConsent, policy);
  const { subs, signals } = runSubChecks(SELFIE_SUB_CHECKS, {
    inputs,
    consent: biometricConsent,
    policy,
    selfie,
    challenge,
  });
  const match = subs.find((s) => s.name === 'face_match');
  return {
    check_type: 'selfie',
    status: 'completed',
    result: signals.length ? 'hit' : 'clear',
    signals,
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    dataset_versions: [],
    datasets: [],
    evidence: {
      selfie_document_id: selfie?.document_id ?? null,
      document_id: inputs.document?.document_id ?? null,
      portrait_document_id: portraitOf(inputs)?.document_id ?? null,
      face_match_score: match?.value ?? null,
      portrait_source: portraitSource(inputs),
      face_match_threshold: policy.face_match_threshold,
      liveness_review_threshold: policy.liveness_review_threshold,
      sub_checks: subs,
      faces: selfie?.faces ?? [],
      image: selfie ? { width: selfie.image_width, height: selfie.image_height } : null,
      read_error: selfie?.error ?? null,
      liveness_challenge: challenge,
    },
    error: null,
    alerts: [],
  };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
