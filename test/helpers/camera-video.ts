import sharp from 'sharp';
import { writeY4m } from './y4m.js';

/**
 * Scenes for Chromium's fake camera (written as .y4m by test/helpers/y4m.ts), rendered at test time: still scenes,
 * each held for a second, played in a loop. Each scene carries a coloured marker square at
 * the same place (inside the document guide frame, outside the document), so that a test can tell which scene a
 * captured still was taken from and retake it when the loop had moved on.
 */

export const VIDEO = { width: 1920, height: 1080 };
/** the marker square, in video pixels: inside the passport guide (applicant/src/camera.ts guideRect), above the
 * passport of PASSPORT_BOX */
export const MARKER = { left: 352, top: 113, size: 20 };
/** the passport guide's origin for a 1920 × 1080 video (camera.ts guideRect: 80 % of the height, ID-3 shape) */
export const PASSPORT_GUIDE = { x: 346, y: 108 };
/** the passport's size in the video: as large as the guide (1227 × 864) takes it below the marker */
export const PASSPORT_BOX = { width: 1220, height: 805 };

export const MARKER_COLOURS = {
  red: [230, 30, 30],
  green: [30, 200, 30],
  blue: [30, 60, 230],
  yellow: [240, 220, 20],
  magenta: [220, 30, 220],
  cyan: [20, 210, 230],
} as const;
export type MarkerColour = keyof typeof MARKER_COLOURS;

/** The colour of MARKER_COLOURS nearest to an RGB sample. */
export function nearestMarker(rgb: readonly number[]): MarkerColour {
  let best: MarkerColour = 'red';
  let bestD = Number.POSITIVE_INFINITY;
  for (const [name, c] of Object.entries(MARKER_COLOURS) as [MarkerColour, readonly number[]][]) {
    const d = c.reduce((s, v, i) => s + (v - (rgb[i] ?? 0)) ** 2, 0);
    if (d < bestD) {
      bestD = d;
      best = name;
    }
  }
  return best;
}

/** One scene, a still of VIDEO's size with its marker: `image` fitted inside `box` (default: the whole frame) on a
 * dark grey surface. */
export async function scene(
  image: Buffer,
  marker: MarkerColour,
  box: { width: number; height: number } = VIDEO,
): Promise<Buffer> {
  const fitted = await sharp(image)
    .rotate()
    .resize(box.width, box.height, { fit: 'inside' })
    .toBuffer({ resolveWithObject: true });
  const [r, g, b] = MARKER_COLOURS[marker];
  const square = await sharp({
    create: { width: MARKER.size, height: MARKER.size, channels: 3, background: { r, g, b } },
  })
    .png()
    .toBuffer();
  return sharp({ create: { ...VIDEO, channels: 3, background: { r: 48, g: 50, b: 54 } } })
    .composite([
      {
        input: fitted.data,
        left: Math.round((VIDEO.width - fitted.info.width) / 2),
        top: Math.round((VIDEO.height - fitted.info.height) / 2),
      },
      { input: square, left: MARKER.left, top: MARKER.top },
    ])
    .png()
    .toBuffer();
}

/** Writes `scenes` (stills of VIDEO's size) as a y4m file, one second each (test/helpers/y4m.ts). */
export async function writeScenes(path: string, scenes: Buffer[]): Promise<void> {
  await writeY4m(
    path,
    scenes.map((image) => ({ image, seconds: 1 })),
    { ...VIDEO, fps: 1, fit: 'contain' },
  );
}
