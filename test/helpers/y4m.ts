// Videos for Chromium's fake camera (`--use-fake-device-for-media-stream --use-file-for-fake-video-capture=<file>`):
// a sequence of stills written as a YUV4MPEG2 (.y4m) file at test time, each held for a number of frames; Chromium
// plays the file in a loop. `challengeVideo` lays out the poses of a liveness challenge, one still per pose, as the
// camera would see them (not mirrored), so that a page capturing the selfie challenge can be fed every pose.
import { open } from 'node:fs/promises';
import sharp from 'sharp';

export interface VideoSize {
  width: number;
  height: number;
}

/** One still of the video: an image fitted to the frame, held for `seconds`. */
export interface Still {
  image: Uint8Array;
  seconds: number;
}

export interface Y4mOptions extends VideoSize {
  /** frames a second (default 5) */
  fps?: number;
  /** how an image fills the frame (default 'cover': cropped to fill it, like a camera's view) */
  fit?: 'cover' | 'contain';
}

/** An image as raw RGB of exactly the frame's size (EXIF orientation applied; `contain` pads with dark grey). */
export async function rgbFrame(image: Uint8Array, o: Y4mOptions): Promise<Buffer> {
  return sharp(image)
    .rotate()
    .resize(o.width, o.height, { fit: o.fit ?? 'cover', background: { r: 48, g: 50, b: 54 } })
    .removeAlpha()
    .raw()
    .toBuffer();
}

const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/** Raw RGB to the three planes of I420, BT.601 full range (what the header's `C420jpeg` declares); each chroma
 *  sample is the mean of its 2 × 2 pixels. Width and height must be even. */
export function i420(rgb: Buffer, width: number, height: number): Buffer {
  const ySize = width * height;
  const cw = width / 2;
  const cSize = cw * (height / 2);
  const out = Buffer.alloc(ySize + 2 * cSize);
  for (let i = 0; i < ySize; i++) {
    out[i] = clamp(0.299 * (rgb[i * 3] ?? 0) + 0.587 * (rgb[i * 3 + 1] ?? 0) + 0.114 * (rgb[i * 3 + 2] ?? 0));
  }
  for (let y = 0; y < height / 2; y++) {
    for (let x = 0; x < cw; x++) {
      let [r, g, b] = [0, 0, 0];
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const p = ((y * 2 + dy) * width + x * 2 + dx) * 3;
        r += (rgb[p] ?? 0) / 4;
        g += (rgb[p + 1] ?? 0) / 4;
        b += (rgb[p + 2] ?? 0) / 4;
      }
      out[ySize + y * cw + x] = clamp(-0.168736 * r - 0.331264 * g + 0.5 * b + 128);
      out[ySize + cSize + y * cw + x] = clamp(0.5 * r - 0.418688 * g - 0.081312 * b + 128);
    }
  }
  return out;
}

/** Writes `stills` as a .y4m file at `path` (frame by frame: a long video never sits in memory). Returns the number
 *  of frames written. */
export async function writeY4m(path: string, stills: readonly Still[], o: Y4mOptions): Promise<number> {
  if (o.width % 2 || o.height % 2) throw new Error('y4m: width and height must be even (4:2:0 chroma)');
  const fps = o.fps ?? 5;
  const file = await open(path, 'w');
  let frames = 0;
  try {
    await file.write(`YUV4MPEG2 W${o.width} H${o.height} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (const s of stills) {
      const planes = i420(await rgbFrame(s.image, o), o.width, o.height);
      for (let n = Math.max(1, Math.round(s.seconds * fps)); n > 0; n--, frames++) {
        await file.write('FRAME\n');
        await file.write(planes);
      }
    }
  } finally {
    await file.close();
  }
  return frames;
}

/** When each pose is on screen in a challenge video, in seconds from the start of a loop. */
export interface PoseSpan {
  pose: string;
  from_s: number;
  to_s: number;
}

/**
 * A liveness challenge as a camera video: the still of each of `poses`, in order, each held `secondsPerPose`
 * (default 2), from `images` (a pose → its frame, e.g. test/helpers/challenge-frames.ts). The timeline says when each
 * pose shows; the video loops, so a page that captures too late gets the next pose and should retake.
 */
export async function challengeVideo(
  path: string,
  poses: readonly string[],
  images: Readonly<Record<string, Uint8Array>>,
  o: Y4mOptions & { secondsPerPose?: number },
): Promise<{ path: string; frames: number; timeline: PoseSpan[] }> {
  const seconds = o.secondsPerPose ?? 2;
  const stills = poses.map((pose) => {
    const image = images[pose];
    if (!image) throw new Error(`challengeVideo: no frame for pose "${pose}"`);
    return { image, seconds };
  });
  const frames = await writeY4m(path, stills, o);
  const timeline = poses.map((pose, i) => ({ pose, from_s: i * seconds, to_s: (i + 1) * seconds }));
  return { path, frames, timeline };
}
