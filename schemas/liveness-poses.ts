/** The head poses of a selfie liveness challenge (docs/journey.md, "Selfie liveness challenge"): `front`, then
 *  turns as the applicant sees them (their own left and right). Plain data, no TypeBox, so that identity/face and a
 *  capture page can take it as it is. */
export const CHALLENGE_POSES = ['front', 'left', 'right', 'up', 'down'] as const;
export type ChallengePose = (typeof CHALLENGE_POSES)[number];
/** the poses a challenge draws from after its `front` */
export const TURN_POSES = ['left', 'right', 'up', 'down'] as const satisfies readonly ChallengePose[];
