// The selfie check's `liveness_challenge` sub-check (docs/decisions.md, "Selfie liveness challenge"): every frame
// shows the pose it was asked for (identity/face/pose.ts), every frame shows the front frame's person, every frame
// was uploaded before the challenge expired, and the front frame matches the document portrait (where the flow has
// one). An advisory
// presentation-attack signal: a failure routes the flow to review and never rejects it alone.
import { faceSimilarity } from '../../../identity/face/index.js';
import { type ChallengePose, type HeadPose, poseShown } from '../../../identity/face/pose.js';
import type { ChallengeInputs, ReadUpload } from '../../identity/identity-inputs.js';
import type { SubCheckResult } from '../sub-checks.js';

export const LIVENESS_REASON_CODES = {
  liveness_challenge_failed: {
    description:
      'The liveness challenge failed: a frame does not show its pose or one face, shows another person than the ' +
      'front frame, or the front frame does not match the document portrait (advisory: review, never a rejection alone)',
    decide: () => 'MANUAL_REVIEW' as const,
  },
  liveness_challenge_expired: {
    description: "A frame of the liveness challenge was uploaded after the challenge's expiry (review)",
    decide: () => 'MANUAL_REVIEW' as const,
  },
};

/** One frame as evidence: the pose asked, what was measured, and each condition. */
export interface FrameEvidence {
  pose: string;
  document_id: string;
  face_count: number;
  yaw: number | null;
  pitch: number | null;
  pose_shown: boolean;
  /** face similarity to the front frame's face (1 for the front frame itself), null without a face */
  similarity: number | null;
  same_person: boolean;
  in_time: boolean;
}

export interface ChallengeEvidence {
  challenge_id: string;
  poses: string[];
  expires_at: string;
  frames: FrameEvidence[];
  front_matches_document: boolean | null;
}

/** The face a frame is about: its only face, or none (no face, or several). */
function onlyFace(frame: ReadUpload): { pose: HeadPose | null; embedding: number[] | undefined } | null {
  if (frame.face_count !== 1) return null;
  return { pose: frame.faces[0]?.pose ?? null, embedding: frame.embeddings[0] };
}

function frameEvidence(
  frame: ReadUpload,
  front: ReturnType<typeof onlyFace>,
  c: ChallengeInputs,
  threshold: number,
): FrameEvidence {
  const face = onlyFace(frame);
  const similarity =
    face?.embedding && front?.embedding ? faceSimilarity(face.embedding, front.embedding) : null;
  const pose = face?.pose ?? null;
  return {
    pose: frame.pose ?? '',
    document_id: frame.document_id,
    face_count: frame.face_count,
    yaw: pose?.yaw ?? null,
    pitch: pose?.pitch ?? null,
    pose_shown: !!pose && poseShown(frame.pose as ChallengePose, pose, front?.pose ?? null),
    similarity,
    same_person: similarity !== null && similarity >= threshold,
    in_time: !!frame.completed_at && frame.completed_at <= c.expires_at,
  };
}

/**
 * The challenge's frames judged: each frame's pose, person and timing. `portraitMatch` is the selfie check's face
 * match of the front frame against the document portrait (null when the flow has no portrait to compare with: a
 * selfie-only template); `threshold` the policy's face_match_threshold, the same bar for "same person" between
 * the frames.
 */
export function challengeEvidence(
  c: ChallengeInputs,
  portraitMatch: boolean | null,
  threshold: number,
): ChallengeEvidence {
  const front = c.frames[0] ? onlyFace(c.frames[0]) : null;
  return {
    challenge_id: c.id,
    poses: c.poses,
    expires_at: c.expires_at.toISOString(),
    frames: c.frames.map((f) => frameEvidence(f, front, c, threshold)),
    front_matches_document: portraitMatch,
  };
}

/** The `liveness_challenge` sub-check from the judged frames: passed when every frame shows its pose and the front
 * frame's person in time, and the front frame does not fail the portrait (a missing portrait is the
 * document_portrait sub-check's finding). A late frame fails it as liveness_challenge_expired. */
export function challengeResult(e: ChallengeEvidence): SubCheckResult {
  const ok = (f: FrameEvidence) => f.pose_shown && f.same_person && f.in_time;
  const late = e.frames.some((f) => !f.in_time);
  return {
    passed: e.frames.every(ok) && e.front_matches_document !== false,
    value: e.frames.filter(ok).length,
    expected: `${e.frames.length} frames, each in its pose, of one person, in time; front frame matches the document`,
    reason_code: late ? 'liveness_challenge_expired' : 'liveness_challenge_failed',
  };
}
