// Image handling for MRZ reading with sharp: decoding with a pixel limit, quality measures, skew estimation,
// rotation, cropping and thresholding. Grey images travel as raw 8-bit single-channel buffers.
import sharp, { type Metadata } from 'sharp';
import { measureGray, QUALITY_MEASURE } from '../quality-thresholds.js';

export interface Gray {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface ImageLimits {
  /** Refuse files larger than this many bytes before decoding. */
  maxBytes: number;
  /** Refuse images with more pixels than this (checked from the header, before decoding). */
  maxPixels: number;
}

export const DEFAULT_LIMITS: ImageLimits = { maxBytes: 20 * 2 ** 20, maxPixels: 40_000_000 };

/** Working resolution: larger images are scaled down to this long side before anything else. */
const MAX_WORKING_SIDE = 2400;

export class ImageError extends Error {
  constructor(
    readonly code: 'file_too_large' | 'image_too_large' | 'unsupported_format' | 'corrupt_image',
    message: string,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

export interface Decoded {
  gray: Gray;
  /** Size of the image as stored (after EXIF orientation), before any scaling. */
  width: number;
  height: number;
}

/** Decodes an image (EXIF orientation applied) to grey, scaled down to the working resolution. Throws
 * ImageError for files that are too large, unsupported or corrupt. */
export async function decode(input: Uint8Array, limits: ImageLimits): Promise<Decoded> {
  if (input.byteLength > limits.maxBytes) {
    throw new ImageError('file_too_large', `file has ${input.byteLength} bytes, limit ${limits.maxBytes}`);
  }
  const options = { limitInputPixels: limits.maxPixels, failOn: 'error' as const, sequentialRead: true };
  let meta: Metadata;
  try {
    meta = await sharp(input, options).metadata();
  } catch (err) {
    const msg = (err as Error).message;
    const code = /unsupported image format/i.test(msg)
      ? 'unsupported_format'
      : /exceeds pixel limit/i.test(msg)
        ? 'image_too_large'
        : 'corrupt_image';
    throw new ImageError(code, msg.split('\n')[0] ?? msg);
  }
  if (!meta.width || !meta.height) throw new ImageError('corrupt_image', 'image has no dimensions');
  if (meta.width * meta.height > limits.maxPixels) {
    throw new ImageError(
      'image_too_large',
      `image has ${meta.width}×${meta.height} pixels, limit ${limits.maxPixels} pixels`,
    );
  }
  if (!['jpeg', 'png', 'webp', 'tiff', 'gif', 'heif', 'avif'].includes(meta.format ?? '')) {
    throw new ImageError('unsupported_format', `unsupported image format ${meta.format ?? 'unknown'}`);
  }
  const swap = (meta.orientation ?? 1) >= 5;
  const width = swap ? meta.height : meta.width;
  const height = swap ? meta.width : meta.height;
  const scale = Math.min(1, MAX_WORKING_SIDE / Math.max(width, height));
  try {
    const { data, info } = await sharp(input, options)
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), {
        kernel: 'lanczos3',
      })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { gray: single(data, info.width, info.height, info.channels), width, height };
  } catch (err) {
    const msg = (err as Error).message;
    throw new ImageError('corrupt_image', msg.split('\n')[0] ?? msg);
  }
}

function single(data: Buffer, width: number, height: number, channels: number): Gray {
  if (channels === 1)
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width, height };
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = data[i * channels] ?? 0;
  return { data: out, width, height };
}

/** Resizes a grey image (lanczos3). */
export async function resize(g: Gray, width: number, height: number): Promise<Gray> {
  const { data, info } = await sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } })
    .resize(Math.max(1, Math.round(width)), Math.max(1, Math.round(height)), { kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return single(data, info.width, info.height, info.channels);
}

/** Rotates a grey image by `degrees` clockwise, filling the corners with the image's median grey: a white fill on
 * a grey photograph makes a global threshold (tesseract's own, Otsu) split the fill from the paper instead of the
 * ink from the paper, and the band that holds a corner of it is read as nothing. */
export async function rotate(g: Gray, degrees: number): Promise<Gray> {
  const d = ((degrees % 360) + 360) % 360;
  if (d === 0) return g;
  const v = median(g);
  const { data, info } = await sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } })
    .rotate(d, { background: { r: v, g: v, b: v } })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return single(data, info.width, info.height, info.channels);
}

/** Crops a rectangle (clamped to the image). */
export function crop(g: Gray, x: number, y: number, w: number, h: number): Gray {
  const x0 = Math.max(0, Math.floor(x));
  const y0 = Math.max(0, Math.floor(y));
  const x1 = Math.min(g.width, Math.ceil(x + w));
  const y1 = Math.min(g.height, Math.ceil(y + h));
  const cw = Math.max(1, x1 - x0);
  const ch = Math.max(1, y1 - y0);
  const out = new Uint8Array(cw * ch);
  for (let r = 0; r < ch && y0 + r < g.height; r++) {
    out.set(g.data.subarray((y0 + r) * g.width + x0, (y0 + r) * g.width + x0 + cw), r * cw);
  }
  return { data: out, width: cw, height: ch };
}

/** PNG encoding for tesseract. */
export function png(g: Gray): Promise<Buffer> {
  return sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** Stretches the grey levels so that the 1st/99th percentiles become 0/255. */
export function normalize(g: Gray): Gray {
  const hist = histogram(g);
  const n = g.data.length;
  let lo = 0;
  let acc = 0;
  while (lo < 255 && acc + (hist[lo] ?? 0) < n * 0.01) acc += hist[lo++] ?? 0;
  let hi = 255;
  acc = 0;
  while (hi > 0 && acc + (hist[hi] ?? 0) < n * 0.01) acc += hist[hi--] ?? 0;
  if (hi - lo < 10) return g;
  const out = new Uint8Array(n);
  const k = 255 / (hi - lo);
  for (let i = 0; i < n; i++) out[i] = Math.max(0, Math.min(255, Math.round(((g.data[i] ?? 0) - lo) * k)));
  return { data: out, width: g.width, height: g.height };
}

/** The median grey level. */
export function median(g: Gray): number {
  const hist = histogram(g);
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v] ?? 0;
    if (acc * 2 >= g.data.length) return v;
  }
  return 255;
}

function histogram(g: Gray): number[] {
  const hist = new Array<number>(256).fill(0);
  for (let i = 0; i < g.data.length; i++) {
    const v = g.data[i] ?? 0;
    hist[v] = (hist[v] ?? 0) + 1;
  }
  return hist;
}

/** Otsu's global threshold. */
export function otsuLevel(g: Gray): number {
  const hist = histogram(g);
  const total = g.data.length;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * (hist[i] ?? 0);
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let level = 127;
  for (let t = 0; t < 256; t++) {
    wB += hist[t] ?? 0;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * (hist[t] ?? 0);
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      level = t;
    }
  }
  return level;
}

export function otsu(g: Gray): Gray {
  const level = otsuLevel(g);
  const out = new Uint8Array(g.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (g.data[i] ?? 0) > level ? 255 : 0;
  return { data: out, width: g.width, height: g.height };
}

/** Sauvola's local threshold (window `w`, k = 0.2, R = 128) with integral images. */
export function sauvola(g: Gray, w: number, k = 0.2): Gray {
  const { width, height, data } = g;
  const W = width + 1;
  const sum = new Float64Array(W * (height + 1));
  const sq = new Float64Array(W * (height + 1));
  for (let y = 0; y < height; y++) {
    let rs = 0;
    let rq = 0;
    for (let x = 0; x < width; x++) {
      const v = data[y * width + x] ?? 0;
      rs += v;
      rq += v * v;
      sum[(y + 1) * W + x + 1] = (sum[y * W + x + 1] ?? 0) + rs;
      sq[(y + 1) * W + x + 1] = (sq[y * W + x + 1] ?? 0) + rq;
    }
  }
  const half = Math.max(1, Math.floor(w / 2));
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - half);
    const y1 = Math.min(height, y + half + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - half);
      const x1 = Math.min(width, x + half + 1);
      const n = (y1 - y0) * (x1 - x0);
      const s =
        (sum[y1 * W + x1] ?? 0) - (sum[y0 * W + x1] ?? 0) - (sum[y1 * W + x0] ?? 0) + (sum[y0 * W + x0] ?? 0);
      const q =
        (sq[y1 * W + x1] ?? 0) - (sq[y0 * W + x1] ?? 0) - (sq[y1 * W + x0] ?? 0) + (sq[y0 * W + x0] ?? 0);
      const mean = s / n;
      const sd = Math.sqrt(Math.max(0, q / n - mean * mean));
      const t = mean * (1 + k * (sd / 128 - 1));
      out[y * width + x] = (data[y * width + x] ?? 0) > t ? 255 : 0;
    }
  }
  return { data: out, width, height };
}

/** Skew estimates by image: a read asks for the same image's skew more than once (the barcode's deskewed look,
 * the OCR search), and the estimate costs some 70 rotations of a small copy. Grey images are not changed once
 * made, so an estimate holds for the image's life. */
const skews = new WeakMap<Gray, Promise<number>>();

/** The clockwise rotation in degrees, in [-90, 90), that makes text lines horizontal (upright or upside down),
 * found on a small binarised copy by maximising the sharpness of the horizontal projection profile (Postl). */
export function estimateSkew(g: Gray): Promise<number> {
  let skew = skews.get(g);
  if (!skew) {
    skew = skewOf(g);
    skews.set(g, skew);
  }
  return skew;
}

async function skewOf(g: Gray): Promise<number> {
  const scale = Math.min(1, 400 / Math.max(g.width, g.height));
  const small = scale < 1 ? await resize(g, g.width * scale, g.height * scale) : g;
  const bin = sauvola(small, Math.max(15, Math.round(Math.max(small.width, small.height) / 25)) | 1, 0.3);
  // ink = 255 on black, so that rotation pads with background
  const ink = new Uint8Array(bin.data.length);
  let dark = 0;
  for (let i = 0; i < ink.length; i++) {
    if (bin.data[i] === 0) {
      ink[i] = 255;
      dark++;
    }
  }
  if (dark < 50) return 0;
  const score = (deg: number): number => postlScore(ink, bin.width, bin.height, deg);
  let best = 0;
  let bestScore = -1;
  for (let d = -90; d < 90; d += 3) {
    const sc = score(d);
    if (sc > bestScore) {
      bestScore = sc;
      best = d;
    }
  }
  const coarse = best;
  for (let d = coarse - 2.5; d <= coarse + 2.5; d += 0.5) {
    const sc = score(d);
    if (sc > bestScore) {
      bestScore = sc;
      best = d;
    }
  }
  // `best` is the clockwise rotation that makes the lines horizontal
  return best;
}

/** Postl's criterion of the ink mask `ink` (255 = ink) turned `deg` degrees clockwise about its centre, onto a
 * canvas that holds all of it: per row, the number of ink runs (not ink pixels: a text line crosses many strokes,
 * while a long edge turned horizontal is one run and must not win); the sum of the squared differences of
 * neighbouring rows favours thin, sharp text lines. Each pixel of the turned canvas takes the nearest pixel of the
 * mask (outside it, no ink): computed in place, with no turned copy, as the skew search scores 71 angles. */
export function postlScore(ink: Uint8Array, width: number, height: number, deg: number): number {
  const t = (deg * Math.PI) / 180;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  const outW = Math.ceil(Math.abs(width * cos) + Math.abs(height * sin));
  const outH = Math.ceil(Math.abs(width * sin) + Math.abs(height * cos));
  const cx = width / 2;
  const cy = height / 2;
  const ox = outW / 2;
  const oy = outH / 2;
  let e = 0;
  let prev = 0;
  for (let y = 0; y < outH; y++) {
    // the source point of the canvas pixel (x, y) turned back: x advances it by (cos, -sin)
    const dy = y + 0.5 - oy;
    let sx = cos * (0.5 - ox) + sin * dy + cx;
    let sy = -sin * (0.5 - ox) + cos * dy + cy;
    let runs = 0;
    let inside = false;
    for (let x = 0; x < outW; x++, sx += cos, sy -= sin) {
      const px = Math.floor(sx);
      const py = Math.floor(sy);
      const on = px >= 0 && py >= 0 && px < width && py < height && (ink[py * width + px] as number) > 127;
      if (on && !inside) runs++;
      inside = on;
    }
    const d = runs - prev;
    e += d * d;
    prev = runs;
  }
  return e;
}

export interface Quality {
  blur: number;
  glare: number;
}

/** Blur and glare (identity/quality-thresholds.ts measureGray, the hosted page's own measure) on a copy scaled to
 * QUALITY_MEASURE.width. */
export async function measureQuality(g: Gray): Promise<Quality> {
  const w = QUALITY_MEASURE.width;
  const scale = w / g.width;
  const m = Math.abs(scale - 1) > 0.01 ? await resize(g, w, Math.max(3, g.height * scale)) : g;
  return measureGray(m.data, m.width, m.height);
}
