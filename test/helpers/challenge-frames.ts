// One person's frames for every pose of a liveness challenge, from ../shared/data/faces/deepface (deepface's
// Angelina Jolie photos), and how each was obtained:
// - front: img2.jpg as it is (a frontal portrait: yaw 2.9°, pitch 7.9°);
// - left: her face in couple.jpg, cropped (a real photo of her turned to her left: yaw −14.1°);
// - right: that crop's mirror image (yaw +14.9°);
// - up / down: img2.jpg with its face mesh turned 25° in 3D (test/helpers/head-turn.ts; pitch −2.1° / 20.0°);
// - portrait: img4.jpg (another photo of her) for the passport;
// - stranger: Brad Pitt's face in couple.jpg, turned to his left (yaw −13.4°): a frame of another person.
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { ChallengePose } from '../../identity/face/pose.js';
import { turnedView } from './head-turn.js';
import { face } from './identity-images.js';

/** where her face is in img4.jpg (the passport portrait's crop) */
export const IMG4_FACE = { left: 400, top: 150, width: 975, height: 1300 };
const HER_IN_COUPLE = { left: 150, top: 350, width: 950, height: 1150 };
const HIM_IN_COUPLE = { left: 1150, top: 150, width: 1100, height: 1300 };
/** degrees the face mesh is turned for up and down */
export const NOD_DEGREES = 25;

export type PoseFrames = Record<ChallengePose, Buffer> & { stranger_left: Buffer };

export async function challengeFrames(): Promise<PoseFrames> {
  const front = await readFile(face('img2.jpg'));
  const couple = await readFile(face('couple.jpg'));
  const left = await sharp(couple).extract(HER_IN_COUPLE).jpeg({ quality: 92 }).toBuffer();
  return {
    front,
    left,
    right: await sharp(left).flop().jpeg({ quality: 92 }).toBuffer(),
    up: await turnedView(front, { yaw: 0, pitch: -NOD_DEGREES }),
    down: await turnedView(front, { yaw: 0, pitch: NOD_DEGREES }),
    stranger_left: await sharp(couple).extract(HIM_IN_COUPLE).jpeg({ quality: 92 }).toBuffer(),
  };
}
