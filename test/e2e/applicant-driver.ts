import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import {
  MARKER,
  type MarkerColour,
  nearestMarker,
  PASSPORT_BOX,
  PASSPORT_GUIDE,
  scene,
  writeScenes,
} from '../helpers/camera-video.js';
import { challengeFrames, IMG4_FACE } from '../helpers/challenge-frames.js';
import { turnedView } from '../helpers/head-turn.js';
import { face, type SyntheticPassport, syntheticPassport } from '../helpers/identity-images.js';

/**
 * Drives the applicant page as an applicant would, for the journey's Chromium test and bench:journey. The camera is
 * Chromium's fake device playing a y4m rendered here: a passport on a table, then the applicant's face in each pose
 * of the liveness challenge, one second each, in a loop. To "hold up" a scene, the driver waits until the camera
 * shows it, takes the photo, and retakes it when the still it got is of another scene (the loop moved on).
 */

export type Pose = 'front' | 'left' | 'right' | 'up' | 'down';
export const PASSPORT_SCENE: MarkerColour = 'red';
export const POSE_SCENE: Record<Pose, MarkerColour> = {
  front: 'green',
  left: 'blue',
  right: 'yellow',
  up: 'magenta',
  down: 'cyan',
};

/** the applicant of the journey: the passport's holder (deepface's photos of one person: test/helpers/challenge-frames.ts) */
export const HOLDER = {
  legal_name_first: 'ANNA MARIA',
  legal_name_last: 'ERIKSSON',
  dob: '1974-08-12',
};

export function holderPassport(): SyntheticPassport {
  return {
    surname: HOLDER.legal_name_last,
    given_names: HOLDER.legal_name_first,
    birth_date: HOLDER.dob,
    expiry_date: `${new Date().getUTCFullYear() + 5}-06-30`,
    sex: 'F',
    document_number: 'X73192648',
  };
}

/** How far the holder nods for up and down in the video: more than challenge-frames.ts's 25°, as a frame loses some
 * of its pitch through the camera video's scaling and chroma subsampling. Read through a simulated video frame
 * (the scene, its I420 planes, back to RGB, JPEG), the front frame's pitch is 8.0° and these views' 23.0° (down) and
 * −7.6° (up): 15° from the front where the rule asks 8° (identity/face/pose.ts). */
const VIDEO_NOD_DEGREES = 35;

/** The y4m at `path`: the holder's passport (img4 as its portrait), then the holder's face in each pose. */
export async function renderJourneyVideo(path: string): Promise<void> {
  const passport = await syntheticPassport(holderPassport(), face('img4.jpg'), IMG4_FACE);
  const scenes = [await scene(passport, PASSPORT_SCENE, PASSPORT_BOX)];
  const frames = await challengeFrames();
  frames.up = await turnedView(frames.front, { yaw: 0, pitch: -VIDEO_NOD_DEGREES });
  frames.down = await turnedView(frames.front, { yaw: 0, pitch: VIDEO_NOD_DEGREES });
  for (const pose of Object.keys(POSE_SCENE) as Pose[])
    scenes.push(await scene(frames[pose], POSE_SCENE[pose]));
  await writeScenes(path, scenes);
}

/** A page script: the RGB at (x, y) of the element `selector` (a video's current frame or a decoded image). */
const sampleScript = (selector: string, x: number, y: number) => `(async () => {
  const el = document.querySelector(${JSON.stringify(selector)});
  if (!el) return null;
  if (el.decode) await el.decode().catch(() => {});
  const w = el.videoWidth || el.naturalWidth, h = el.videoHeight || el.naturalHeight;
  if (!w || !h) return null;
  const c = document.createElement('canvas');
  c.width = w; c.height = h;
  const ctx = c.getContext('2d');
  ctx.drawImage(el, 0, 0);
  return Array.from(ctx.getImageData(${x}, ${y}, 1, 1).data.slice(0, 3));
})()`;

async function sceneIn(page: Page, selector: string, x: number, y: number): Promise<MarkerColour | null> {
  const rgb = (await page.evaluate(sampleScript(selector, x, y))) as number[] | null;
  return rgb ? nearestMarker(rgb) : null;
}

const centre = { x: MARKER.left + MARKER.size / 2, y: MARKER.top + MARKER.size / 2 };

/** Takes the photo of `colour`'s scene on the current capture screen and uses it. A document's still is the guide
 * frame's crop, a selfie's the whole frame: the marker's place in the still differs. */
export async function captureScene(
  page: Page,
  colour: MarkerColour,
  kind: 'document' | 'selfie',
): Promise<void> {
  const inStill =
    kind === 'document' ? { x: centre.x - PASSPORT_GUIDE.x, y: centre.y - PASSPORT_GUIDE.y } : centre;
  for (let attempt = 0; attempt < 20; attempt++) {
    const capture = page.locator('[data-action="capture"]');
    await capture.waitFor();
    for (
      let i = 0;
      i < 200 && (await sceneIn(page, '.viewfinder video', centre.x, centre.y)) !== colour;
      i++
    ) {
      await page.waitForTimeout(50);
    }
    await capture.click();
    await page.locator('img.preview').waitFor();
    if ((await sceneIn(page, 'img.preview', inStill.x, inStill.y)) === colour) {
      await page.locator('[data-action="next"]').click();
      return;
    }
    await page.locator('[data-action="retake"]').click();
  }
  throw new Error(`the camera never showed the ${colour} scene long enough to take it`);
}

/** The poses of the challenge the page asks for next (read from its request), to be awaited before the selfie
 * step appears. */
export function nextChallenge(page: Page): Promise<Pose[]> {
  return page
    .waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/liveness_challenges'), {
      // it comes after the document's capture, its upload and its quality verdict: slow on a loaded machine
      timeout: 180_000,
    })
    .then(async (r) => ((await r.json()) as { poses: Pose[] }).poses);
}

/** Every pose of the challenge, one photo each. */
export async function captureChallenge(page: Page, poses: Pose[]): Promise<void> {
  for (const pose of poses) {
    await page.locator('[data-step="selfie"] [data-action="capture"]').waitFor();
    await captureScene(page, POSE_SCENE[pose], 'selfie');
  }
}

/** The tenant's own site: where the page redirects to (`/done`), and a page that embeds the journey in an iframe
 * (`/embed?src=…`) and keeps the messages it receives in `window.received`. */
export class TenantSite {
  private server: Server;
  origin = '';
  readonly visits: string[] = [];
  constructor() {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.visits.push(req.url ?? '');
      if (url.pathname === '/embed') {
        const src = url.searchParams.get('src') ?? '';
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html lang="en"><title>Acme</title><h1>Acme onboarding</h1>
<iframe id="journey" title="Identity verification" allow="camera" width="360" height="700" src="${src.replace(/"/g, '&quot;')}"></iframe>
<script>window.received = []; addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));</script>`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><title>Acme</title><h1>Welcome back to Acme</h1>');
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
