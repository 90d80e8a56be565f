import { faceSimilarity } from '../../../identity/face/index.js';
import type { IdentityInputs } from '../../identity/identity-inputs.js';
import type { CheckOutcome, CheckTypeDef } from '../check-type.js';
import { inputsMissing, type SubCheck } from './document.js';

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
  },
  async run(_deps, input) {
    if (!input.uploads) return inputsMissing('selfie');
    return selfieCheck(input.uploads.identity, input.uploads.biometric_consent, input.policy);
  },
};

/** Default advisory liveness threshold (docs/decisions.md, "Identity verification"). */
export const LIVENESS_REVIEW_THRESHOLD = 0.4;

/** The portrait's embedding: the largest face on the document (a card may carry a second, ghost image). */
function portraitEmbedding(inputs: IdentityInputs): number[] | undefined {
  const doc = inputs.document;
  if (!doc?.faces.length) return undefined;
  let best = 0;
  doc.faces.forEach((f, i) => {
    const b = doc.faces[best];
    if (b && f.box.width * f.box.height > b.box.width * b.box.height) best = i;
  });
  return doc.embeddings[best];
}

/**
 * The selfie check: exactly one face on the selfie (several → selfie_multiple_faces), that face against the
 * document portrait (score and threshold from the policy; below → selfie_face_mismatch), and the advisory liveness
 * score (below liveness_review_threshold → selfie_liveness_low: review only). Without consent.biometric nothing is
 * compared (biometric_consent_missing → review).
 */
export function selfieCheck(
  inputs: IdentityInputs,
  biometricConsent: boolean,
  policy: SelfiePolicy,
): CheckOutcome {
  const started = performance.now();
  const signals = new Set<string>();
  const subs: SubCheck[] = [];
  const sub = (s: SubCheck) => {
    subs.push(s);
    if (s.passed === false && s.reason_code) signals.add(s.reason_code);
  };
  const selfie = inputs.selfie;
  sub({
    name: 'biometric_consent',
    passed: biometricConsent,
    value: biometricConsent,
    reason_code: 'biometric_consent_missing',
  });
  if (biometricConsent && selfie) {
    sub({
      name: 'one_face',
      passed: selfie.face_count === 1,
      value: selfie.face_count,
      expected: 1,
      reason_code: selfie.face_count === 0 ? 'selfie_no_face' : 'selfie_multiple_faces',
    });
    const portrait = portraitEmbedding(inputs);
    const face = selfie.face_count === 1 ? selfie.embeddings[0] : undefined;
    sub({
      name: 'document_portrait',
      passed: !!portrait,
      value: inputs.document?.face_count ?? 0,
      reason_code: 'selfie_no_document_face',
    });
    const score = portrait && face ? round(faceSimilarity(face, portrait)) : null;
    sub({
      name: 'face_match',
      passed: score === null ? null : score >= policy.face_match_threshold,
      value: score,
      expected: `>= ${policy.face_match_threshold}`,
      reason_code: 'selfie_face_mismatch',
    });
    const liveness = selfie.face_count === 1 ? (selfie.faces[0]?.liveness ?? null) : null;
    sub({
      name: 'liveness_advisory',
      passed: liveness === null ? null : liveness >= policy.liveness_review_threshold,
      value: liveness === null ? null : round(liveness),
      expected: `>= ${policy.liveness_review_threshold}`,
      reason_code: 'selfie_liveness_low',
    });
  } else if (biometricConsent) {
    sub({ name: 'one_face', passed: false, value: null, reason_code: 'selfie_no_face' });
  }
  const match = subs.find((s) => s.name === 'face_match');
  return {
    check_type: 'selfie',
    status: 'completed',
    result: signals.size ? 'hit' : 'clear',
    signals: [...signals],
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    dataset_versions: [],
    datasets: [],
    evidence: {
      selfie_document_id: selfie?.document_id ?? null,
      document_id: inputs.document?.document_id ?? null,
      face_match_score: match?.value ?? null,
      face_match_threshold: policy.face_match_threshold,
      liveness_review_threshold: policy.liveness_review_threshold,
      sub_checks: subs,
      faces: selfie?.faces ?? [],
      image: selfie ? { width: selfie.image_width, height: selfie.image_height } : null,
      read_error: selfie?.error ?? null,
    },
    error: null,
    alerts: [],
  };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
