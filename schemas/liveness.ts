import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from './common.js';
import { CHALLENGE_POSES } from './liveness-poses.js';

export { CHALLENGE_POSES, type ChallengePose, TURN_POSES } from './liveness-poses.js';

export const LivenessPose = StringEnum(CHALLENGE_POSES, {
  title: 'LivenessPose',
  description:
    "a head pose of a liveness challenge: front, or a turn in the applicant's own terms (left, right, up, down); " +
    'frames are uploaded as the camera saw them, not mirrored',
});

export const LivenessChallengeOut = Type.Object(
  {
    id: Uuid,
    nonce: Type.String({
      description:
        '128 random bits (base64url) a client may bind into its capture; the server keeps it with the challenge',
    }),
    poses: Type.Array(LivenessPose, {
      minItems: 4,
      maxItems: 4,
      description: 'front, then three distinct turns in random order: one frame each, in this order',
    }),
    expires_at: Timestamp,
  },
  { title: 'LivenessChallenge' },
);
export type LivenessChallengeOut = Static<typeof LivenessChallengeOut>;

export const LivenessChallengeParams = Type.Object({ flow_id: Uuid }, { additionalProperties: false });
