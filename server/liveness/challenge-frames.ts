// The frames of a selfie liveness challenge: which upload may be one (at registration), and when a challenge has
// all of its frames (the flow's selfie input, docs/journey.md "Selfie liveness challenge").
import type { ChallengePose } from '../../schemas/liveness.js';
import type { Sql } from '../db/sql.js';
import { InvalidContent, StateConflict } from '../domain-errors.js';
import { invalid } from '../errors.js';

export interface FrameInput {
  doc_type: string;
  liveness_challenge_id?: string | undefined;
  pose?: ChallengePose | undefined;
}

export interface Frame {
  liveness_challenge_id: string;
  pose: ChallengePose;
}

const FRAME_ONLY_SELFIE = 'only a selfie (doc_type "selfie") can be a frame of a liveness challenge';

/** The challenge frame an upload registers, or null for an upload that is none. A frame names a challenge of this
 * flow that has not expired, one of its poses, and a pose that has no frame yet (one frame per pose). */
export async function challengeFrame(
  sql: Sql,
  tenantId: string,
  flowId: string,
  input: FrameInput,
): Promise<Frame | null> {
  const { liveness_challenge_id: id, pose } = input;
  if (id === undefined && pose === undefined) return null;
  if (input.doc_type !== 'selfie') throw invalid(['body', 'doc_type'], FRAME_ONLY_SELFIE, 'not_allowed');
  if (id === undefined)
    throw invalid(['body', 'liveness_challenge_id'], 'a frame names its liveness challenge');
  if (pose === undefined) throw invalid(['body', 'pose'], 'a frame of a liveness challenge names its pose');
  const [c] = await sql<{ poses: ChallengePose[]; expires_at: Date; expired: boolean; taken: boolean }[]>`
    select c.poses, c.expires_at, c.expires_at <= now() as expired,
      exists(select 1 from documents d where d.liveness_challenge_id = c.id and d.pose = ${pose}) as taken
    from liveness_challenges c
    where c.id = ${id} and c.tenant_id = ${tenantId} and c.flow_id = ${flowId}`;
  if (!c) throw new InvalidContent('liveness_challenge_unknown');
  if (c.expired) {
    throw new InvalidContent('liveness_challenge_expired', undefined, {
      expires_at: c.expires_at.toISOString(),
    });
  }
  if (!c.poses.includes(pose)) {
    throw invalid(
      ['body', 'pose'],
      `"${pose}" is not a pose of this challenge (${c.poses.join(', ')})`,
      'not_allowed',
    );
  }
  if (c.taken) throw new StateConflict('liveness_challenge_used', undefined, { pose });
  return { liveness_challenge_id: id, pose };
}

/** A rejection handler for the frame's insert: two registrations of one pose at once meet the unique index, and
 * the second is answered as if it had come after the first. */
export function frameTaken(frame: Frame | null) {
  return (err: unknown): never => {
    const e = err as { code?: string; constraint_name?: string };
    if (frame && e.code === '23505' && e.constraint_name === 'documents_one_frame_per_pose') {
      throw new StateConflict('liveness_challenge_used', undefined, { pose: frame.pose });
    }
    throw err;
  };
}

/** An upload as far as challenges are concerned; `challenge_poses` is its challenge's sequence (null for none). */
export interface FrameRow {
  doc_type: string;
  liveness_challenge_id: string | null;
  pose: string | null;
  challenge_poses: string[] | null;
}

/** The frames of the newest challenge that has a frame for each of its poses, keyed by pose; `rows` are the flow's
 * usable uploads, newest first. Undefined when no challenge is complete. */
export function completeChallenge<T extends Partial<FrameRow> & { doc_type: string }>(
  rows: readonly T[],
): Map<string, T> | undefined {
  const byChallenge = new Map<string, Map<string, T>>();
  for (const r of rows) {
    if (r.doc_type !== 'selfie' || !r.liveness_challenge_id || !r.pose) continue;
    const frames = byChallenge.get(r.liveness_challenge_id) ?? new Map<string, T>();
    if (!frames.has(r.pose)) frames.set(r.pose, r);
    byChallenge.set(r.liveness_challenge_id, frames);
  }
  // Map keeps insertion order: the challenge of the newest frame comes first
  for (const frames of byChallenge.values()) {
    const poses = [...frames.values()][0]?.challenge_poses ?? [];
    if (poses.length && poses.every((p) => frames.has(p))) return frames;
  }
  return undefined;
}

/** A flow's selfie input is there when a plain selfie is (one that is no challenge frame), or every frame of a
 * challenge; the challenge's `front` frame is then the selfie. */
export function selfieInputReady(rows: readonly (Partial<FrameRow> & { doc_type: string })[]): boolean {
  return rows.some((r) => r.doc_type === 'selfie' && !r.liveness_challenge_id) || !!completeChallenge(rows);
}
