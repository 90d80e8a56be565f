// Head poses of the selfie liveness challenge: which poses exist, and whether a measured head pose shows the one
// asked. One definition, read by the selfie check on the server and free for a capture page's live guidance (no
// Node imports). Angles are human's face-mesh Euler angles in degrees (identity/face: DetectedFace.pose), measured
// on the frame as the camera saw it, not mirrored:
//   yaw   > 0: the face turns towards the image's left, i.e. the applicant's own right;
//   pitch > 0: the chin goes down.
// A mirrored frame (a selfie preview drawn flipped) swaps left and right.

import type { ChallengePose } from '../../schemas/liveness-poses.js';

export { CHALLENGE_POSES, type ChallengePose, TURN_POSES } from '../../schemas/liveness-poses.js';

export interface HeadPose {
  yaw: number;
  pitch: number;
  roll: number;
}

/**
 * Measured with bench/identity-poses.ts on the photos of ../shared/data/faces/deepface (bench/RESULTS.md):
 * - the 51 frontal portraits have |yaw| ≤ 8.1°; the five faces seen turned (couple.jpg, selfie-many-people.jpg,
 *   img61.jpg) have |yaw| 13.7–23.1°, their mirror images 9.0–22.7°: a head is turned at |yaw| ≥ 11°, between
 *   frontal and turned (the mirror of img61's slight turn, 9.0°, is the one turned view it misses);
 * - frontal pitch lies between −4.7° and 13.6° (median 5.5°: human reads a level head slightly chin-down), and two
 *   frontal photos of one person differ by up to 11.0° (median 4.2°, p90 8.0°, 97 pairs), taken with different
 *   cameras on different days. Pitch depends on where the camera is, so up and down are measured against the same
 *   challenge's front frame and must move it by at least 8°, the p90 of those differences (within one capture
 *   session, with one camera, a head held still varies less);
 * - a flat photo tilted by up to 50° about either axis still reads frontal (|yaw| ≤ 6.4°): tilting a print does not
 *   turn its head.
 */
export const POSE_THRESHOLDS = Object.freeze({
  /** |yaw| at or above: turned left or right; below: facing the camera */
  yaw_turned: 11,
  /** up / down: pitch at least this far from the front frame's */
  pitch_moved: 8,
  /** front: pitch within pitch_level ± pitch_band */
  pitch_level: 5.5,
  pitch_band: 15,
});

/** Whether `pose` shows `asked`. `front` is the challenge's front frame's pose (up and down are measured from it);
 *  null when that frame has no face, and then up and down are not seen. */
export function poseShown(asked: ChallengePose, pose: HeadPose, front: HeadPose | null): boolean {
  const t = POSE_THRESHOLDS;
  switch (asked) {
    case 'front':
      return Math.abs(pose.yaw) < t.yaw_turned && Math.abs(pose.pitch - t.pitch_level) <= t.pitch_band;
    case 'left':
      return pose.yaw <= -t.yaw_turned;
    case 'right':
      return pose.yaw >= t.yaw_turned;
    case 'up':
      return front !== null && pose.pitch <= front.pitch - t.pitch_moved;
    case 'down':
      return front !== null && pose.pitch >= front.pitch + t.pitch_moved;
  }
}
