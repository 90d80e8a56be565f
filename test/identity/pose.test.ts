// The liveness challenge's pose rules (identity/face/pose.ts): the thresholds on numbers, then a table of real photos
// (and views derived from them, test/helpers/challenge-frames.ts) → the pose human's face mesh reads on them.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFaceAnalyzer,
  FACE_MATCH_THRESHOLD,
  type FaceAnalyzer,
  faceSimilarity,
  type HeadPose,
  primaryFace,
} from '../../identity/face/index.js';
import { CHALLENGE_POSES, type ChallengePose, POSE_THRESHOLDS, poseShown } from '../../identity/face/pose.js';
import { challengeFrames, type PoseFrames } from '../helpers/challenge-frames.js';
import { face, HAS_IDENTITY_DATA } from '../helpers/identity-images.js';

const pose = (yaw: number, pitch: number): HeadPose => ({ yaw, pitch, roll: 0 });
const shownAs = (p: HeadPose, front: HeadPose | null) =>
  CHALLENGE_POSES.filter((a) => poseShown(a, p, front));

describe('poseShown', () => {
  const level = pose(0, POSE_THRESHOLDS.pitch_level);
  it.each([
    { p: pose(0, 5), front: null, shown: ['front'] },
    { p: pose(10.9, 5), front: null, shown: ['front'] },
    { p: pose(11, 5), front: null, shown: ['right'] },
    { p: pose(-11, 5), front: null, shown: ['left'] },
    { p: pose(-30, 5), front: null, shown: ['left'] },
    // up and down need the front frame: nothing is up or down without one
    { p: pose(0, -20), front: null, shown: [] },
    { p: pose(0, -2.5), front: level, shown: ['front', 'up'] },
    { p: pose(0, -2.4), front: level, shown: ['front'] },
    { p: pose(0, 13.5), front: level, shown: ['front', 'down'] },
    { p: pose(0, 30), front: level, shown: ['down'] },
    // a front frame looking down already: up is measured from it
    { p: pose(0, 10), front: pose(0, 19), shown: ['front', 'up'] },
    { p: pose(15, 25), front: level, shown: ['right', 'down'] },
  ])('$p with front $front → $shown', ({ p, front, shown }) => {
    expect(shownAs(p, front)).toEqual(shown);
  });
});

/** A flat photo seen at an angle (a print held tilted): a pinhole camera's view of the image plane rotated by
 *  `degrees` about its vertical ('y') or horizontal ('x') centre line. */
async function tiltedFlat(photo: Buffer, degrees: number, axis: 'x' | 'y'): Promise<Buffer> {
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const out = Buffer.alloc(data.length, 255);
  const f = Math.max(w, h);
  const s = Math.sin((degrees * Math.PI) / 180);
  const c = Math.cos((degrees * Math.PI) / 180);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [u, v] = axis === 'y' ? [x - w / 2, y - h / 2] : [y - h / 2, x - w / 2];
      const a = (u * f) / (f * c - u * s);
      const b = (v * (f + a * s)) / f;
      const [sx, sy] = axis === 'y' ? [a + w / 2, b + h / 2] : [b + w / 2, a + h / 2];
      const i = Math.round(sy) * w + Math.round(sx);
      if (sx < 0 || sy < 0 || sx >= w - 0.5 || sy >= h - 0.5) continue;
      data.copy(out, (y * w + x) * 3, i * 3, i * 3 + 3);
    }
  }
  return sharp(out, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

describe.skipIf(!HAS_IDENTITY_DATA)('head poses read on real photos', () => {
  let analyzer: FaceAnalyzer;
  let frames: PoseFrames;
  let front: HeadPose;
  let frontEmbedding: number[];
  const measure = async (image: Buffer) => {
    const r = await analyzer.analyze(image);
    expect(r.faces, 'one face').toHaveLength(1);
    const f = primaryFace(r)!;
    expect(f.pose).not.toBeNull();
    return { pose: f.pose!, similarity: faceSimilarity(f.embedding, frontEmbedding) };
  };
  beforeAll(async () => {
    analyzer = await createFaceAnalyzer();
    frames = await challengeFrames();
    const f = primaryFace(await analyzer.analyze(frames.front))!;
    front = f.pose!;
    frontEmbedding = f.embedding;
  }, 180_000);
  afterAll(async () => {
    await analyzer?.close();
  });

  it('reads each challenge frame as its pose and never as the opposite one, still the same person', async () => {
    expect(shownAs(front, front)).toEqual(['front']);
    const opposite = { left: 'right', right: 'left', up: 'down', down: 'up' } as const;
    for (const asked of ['left', 'right', 'up', 'down'] as const) {
      const m = await measure(frames[asked]);
      const shown = shownAs(m.pose, front);
      expect(shown, `${asked}: ${JSON.stringify(m.pose)}`).toContain(asked);
      expect(shown).not.toContain(opposite[asked]);
      expect(m.similarity, asked).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
    }
  });

  it.each<{ file: string; expected: ChallengePose[] }>([
    { file: 'img16.jpg', expected: ['front'] },
    { file: 'img20.jpg', expected: ['front'] },
    { file: 'img61.jpg', expected: ['right'] },
  ])('$file reads as $expected', async ({ file, expected }) => {
    const r = await analyzer.analyze(readFileSync(face(file)));
    expect(shownAs(primaryFace(r)!.pose!, null)).toEqual(expected);
  });

  it("a turned stranger reads as turned, but is not the front frame's person", async () => {
    const m = await measure(frames.stranger_left);
    expect(shownAs(m.pose, front)).toEqual(['left']);
    expect(m.similarity).toBeLessThan(FACE_MATCH_THRESHOLD);
  });

  it.each([
    { degrees: 40, axis: 'y' as const },
    { degrees: -40, axis: 'y' as const },
    { degrees: 40, axis: 'x' as const },
    { degrees: -40, axis: 'x' as const },
  ])('a flat photo tilted $degrees° about $axis still faces the camera', async ({ degrees, axis }) => {
    const m = await measure(await tiltedFlat(frames.front, degrees, axis));
    expect(shownAs(m.pose, front)).toEqual(['front']);
  });
});
