// test/helpers/y4m.ts: the .y4m file's layout and colours, and Chromium's fake camera playing a liveness challenge's
// video: a still captured with getUserMedia shows one of the poses, and human's face mesh reads that pose on it.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaceAnalyzer, primaryFace } from '../../identity/face/index.js';
import { type ChallengePose, poseShown } from '../../identity/face/pose.js';
import { challengeFrames, type PoseFrames } from '../helpers/challenge-frames.js';
import { HAS_IDENTITY_DATA } from '../helpers/identity-images.js';
import { challengeVideo, rgbFrame, writeY4m } from '../helpers/y4m.js';
import { HAVE_CHROMIUM, launchBrowser } from './applicant-browser.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vs-y4m-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

describe('writeY4m', () => {
  it('writes the header, one FRAME per frame held, and BT.601 full-range planes', async () => {
    const path = join(dir, 'two.y4m');
    const size = { width: 16, height: 8, fps: 4 };
    const frames = await writeY4m(
      path,
      [
        { image: await solid(255, 0, 0), seconds: 0.5 },
        { image: await solid(255, 255, 255), seconds: 1 },
      ],
      size,
    );
    expect(frames).toBe(6);
    const bytes = await readFile(path);
    const header = 'YUV4MPEG2 W16 H8 F4:1 Ip A1:1 C420jpeg\n';
    expect(bytes.subarray(0, header.length).toString()).toBe(header);
    const frameBytes = 'FRAME\n'.length + 16 * 8 * 1.5;
    expect(bytes.length).toBe(header.length + 6 * frameBytes);
    const plane = (n: number) =>
      bytes.subarray(header.length + n * frameBytes + 6, header.length + (n + 1) * frameBytes);
    // red: Y 76, U 85, V 255; white: Y 255, U = V = 128
    expect([plane(0)[0], plane(0)[128], plane(0)[160]]).toEqual([76, 85, 255]);
    expect([plane(5)[0], plane(5)[128], plane(5)[160]]).toEqual([255, 128, 128]);
    await expect(writeY4m(join(dir, 'odd.y4m'), [], { width: 15, height: 8 })).rejects.toThrow(/even/);
  });
});

/** Run in the page: one still from the camera, as a JPEG data URL (a string: the page's types are not Node's). */
const CAPTURE = `(async () => {
  const stream = await navigator.mediaDevices.getUserMedia({ video: true });
  const v = document.createElement('video');
  v.muted = true;
  v.srcObject = stream;
  await v.play();
  while (!v.videoWidth) await new Promise((r) => setTimeout(r, 50));
  const c = document.createElement('canvas');
  c.width = v.videoWidth;
  c.height = v.videoHeight;
  c.getContext('2d').drawImage(v, 0, 0);
  return c.toDataURL('image/jpeg', 0.92);
})()`;

/** A small page on loopback (a secure context for getUserMedia). */
function servePage(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>camera</title>');
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/` });
    });
  });
}

/** The pose whose still `captured` is closest to (mean absolute difference on a 40 × 30 grey thumbnail). */
async function nearestPose(captured: Buffer, stills: Map<string, Buffer>): Promise<string> {
  const thumb = (b: Buffer) => sharp(b).resize(30, 40, { fit: 'fill' }).greyscale().raw().toBuffer();
  const c = await thumb(captured);
  let best = '';
  let bestD = Number.POSITIVE_INFINITY;
  for (const [pose, still] of stills) {
    const s = await thumb(still);
    const d = c.reduce((sum, v, i) => sum + Math.abs(v - (s[i] ?? 0)), 0);
    if (d < bestD) [best, bestD] = [pose, d];
  }
  return best;
}

describe.skipIf(!HAVE_CHROMIUM || !HAS_IDENTITY_DATA)("a challenge video on Chromium's fake camera", () => {
  let frames: PoseFrames;
  beforeAll(async () => {
    frames = await challengeFrames();
  }, 120_000);

  it('gives getUserMedia stills that read as the pose on screen', async () => {
    const size = { width: 480, height: 640, fps: 5 };
    const poses: ChallengePose[] = ['front', 'left', 'right', 'up', 'down'];
    const video = await challengeVideo(join(dir, 'challenge.y4m'), poses, frames, {
      ...size,
      secondsPerPose: 1,
    });
    expect(video.frames).toBe(25);
    expect(video.timeline.map((s) => [s.pose, s.from_s])).toEqual(poses.map((p, i) => [p, i]));
    const stills = new Map<string, Buffer>();
    for (const p of poses) {
      const rgb = await rgbFrame(frames[p], size);
      stills.set(
        p,
        await sharp(rgb, { raw: { ...size, channels: 3 } })
          .png()
          .toBuffer(),
      );
    }
    const { server, url } = await servePage();
    const browser = await launchBrowser({ video: video.path });
    const analyzer = await createFaceAnalyzer();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      const dataUrl = (await page.evaluate(CAPTURE)) as string;
      const captured = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
      expect(await sharp(captured).metadata()).toMatchObject({ width: 480, height: 640 });
      const pose = (await nearestPose(captured, stills)) as ChallengePose;
      const front = primaryFace(await analyzer.analyze(stills.get('front') as Buffer))?.pose ?? null;
      const seen = primaryFace(await analyzer.analyze(captured))?.pose;
      expect(seen, `a face on the captured still (${pose})`).toBeTruthy();
      expect(poseShown(pose, seen!, front), `${pose}: ${JSON.stringify(seen)}`).toBe(true);
    } finally {
      await analyzer.close();
      await browser.close();
      server.close();
    }
  });
});
