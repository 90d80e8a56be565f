// Finding the machine-readable zone by image analysis, before any OCR (in the manner of PassportEye's MRZ box
// locator): dark thin strokes (black-hat) → binarised → characters smeared into line blobs → connected components
// → the two or three long, equal, aligned, evenly spaced lines that an MRZ is. Pure array work on a grey image;
// the caller scales it (LOCATE_WIDTH) and deskews it.
import type { Gray } from './image.js';

/** The width the locator expects its image to be scaled to. */
export const LOCATE_WIDTH = 1000;

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface LocatedBand extends Box {
  /** median height of the band's lines, in the image's pixels */
  lineHeight: number;
  lines: number;
}

/** Max (dilate) or min (erode) over a window of `k` samples along a line of `n` samples starting at `off`, `step`
 * apart, from `src` into `dst` (van Herk / Gil–Werman: three passes whatever `k`). `pre` and `suf` are scratch
 * arrays of at least `n` samples. */
function line1d(
  src: Uint8Array,
  dst: Uint8Array,
  off: number,
  step: number,
  n: number,
  k: number,
  max: boolean,
  pre: Uint8Array,
  suf: Uint8Array,
) {
  // the two cases written out: a comparison inline is several times faster than Math.max through a variable;
  // no read outside the arrays (a block's first sample starts its prefix, its last its suffix)
  const last = off + (n - 1) * step;
  pre[0] = src[off] as number;
  suf[n - 1] = src[last] as number;
  if (max) {
    for (let i = 1, p = off + step; i < n; i++, p += step) {
      const v = src[p] as number;
      const q = pre[i - 1] as number;
      pre[i] = i % k === 0 || v > q ? v : q;
    }
    for (let i = n - 2, p = last - step; i >= 0; i--, p -= step) {
      const v = src[p] as number;
      const q = suf[i + 1] as number;
      suf[i] = i % k === k - 1 || v > q ? v : q;
    }
  } else {
    for (let i = 1, p = off + step; i < n; i++, p += step) {
      const v = src[p] as number;
      const q = pre[i - 1] as number;
      pre[i] = i % k === 0 || v < q ? v : q;
    }
    for (let i = n - 2, p = last - step; i >= 0; i--, p -= step) {
      const v = src[p] as number;
      const q = suf[i + 1] as number;
      suf[i] = i % k === k - 1 || v < q ? v : q;
    }
  }
  const r = k >> 1;
  for (let i = 0, p = off; i < n; i++, p += step) {
    const a = Math.max(0, i - r);
    const b = Math.min(n - 1, i + r);
    // [a, b] spans at most two blocks of k: the suffix of a's block and the prefix of b's
    const x = suf[a] as number;
    const y = pre[b] as number;
    dst[p] = max ? Math.max(x, y) : Math.min(x, y);
  }
}

/** `acc`'s row at `row` := the max (min) of `src`'s row there and `acc`'s row at `from`, `width` samples. */
function accumulate(
  src: Uint8Array,
  acc: Uint8Array,
  row: number,
  from: number,
  width: number,
  max: boolean,
) {
  if (max) {
    for (let x = 0; x < width; x++) {
      const v = src[row + x] as number;
      const q = acc[from + x] as number;
      // biome-ignore lint/complexity/useMathMinMax: inline, several times faster than Math.max here (see line1d)
      acc[row + x] = v > q ? v : q;
    }
  } else {
    for (let x = 0; x < width; x++) {
      const v = src[row + x] as number;
      const q = acc[from + x] as number;
      // biome-ignore lint/complexity/useMathMinMax: inline, several times faster than Math.min here (see line1d)
      acc[row + x] = v < q ? v : q;
    }
  }
}

/** The same as line1d over every column of a `width` × `height` image at once, row by row: each step reads and
 * writes whole rows (contiguous memory) instead of one sample a row apart, which cost most of the locator's
 * time. `pre` and `suf` are scratch images of the same size. */
function columns1d(
  src: Uint8Array,
  dst: Uint8Array,
  width: number,
  height: number,
  k: number,
  max: boolean,
  pre: Uint8Array,
  suf: Uint8Array,
) {
  pre.set(src.subarray(0, width), 0);
  for (let y = 1; y < height; y++) {
    const row = y * width;
    if (y % k === 0) pre.set(src.subarray(row, row + width), row);
    else accumulate(src, pre, row, row - width, width, max);
  }
  const last = (height - 1) * width;
  suf.set(src.subarray(last, last + width), last);
  for (let y = height - 2; y >= 0; y--) {
    const row = y * width;
    if (y % k === k - 1) suf.set(src.subarray(row, row + width), row);
    else accumulate(src, suf, row, row + width, width, max);
  }
  const r = k >> 1;
  for (let y = 0; y < height; y++) {
    // [a, b] spans at most two blocks of k: the suffix of a's block and the prefix of b's
    const a = Math.max(0, y - r) * width;
    const b = Math.min(height - 1, y + r) * width;
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const u = suf[a + x] as number;
      const v = pre[b + x] as number;
      dst[row + x] = max === u > v ? u : v;
    }
  }
}

/** Max (dilate) or min (erode) over a k × k window. */
function rankFilter(g: Gray, k: number, max: boolean): Gray {
  const { width, height, data } = g;
  const pre = new Uint8Array(data.length);
  const suf = new Uint8Array(data.length);
  const tmp = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) line1d(data, tmp, y * width, 1, width, k, max, pre, suf);
  const out = new Uint8Array(data.length);
  columns1d(tmp, out, width, height, k, max, pre, suf);
  return { data: out, width, height };
}

/** Black-hat (closing minus the image): dark details narrower than the kernel come out bright. */
export function blackHat(g: Gray, k: number): Gray {
  const closed = rankFilter(rankFilter(g, k, true), k, false);
  const out = new Uint8Array(g.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (closed.data[i] ?? 0) - (g.data[i] ?? 0);
  return { data: out, width: g.width, height: g.height };
}

/** Ink mask (1 = stroke) of a black-hat image: above Otsu's level of its non-zero values and at least `floor`. */
function inkMask(bh: Gray, floor: number): Uint8Array {
  const hist = new Array<number>(256).fill(0);
  for (const v of bh.data) if (v > 0) hist[v] = (hist[v] ?? 0) + 1;
  let total = 0;
  let sum = 0;
  for (let v = 1; v < 256; v++) {
    total += hist[v] ?? 0;
    sum += v * (hist[v] ?? 0);
  }
  let wB = 0;
  let sB = 0;
  let best = -1;
  let level = floor;
  for (let t = 1; t < 256; t++) {
    wB += hist[t] ?? 0;
    if (!wB || wB === total) continue;
    sB += t * (hist[t] ?? 0);
    const mB = sB / wB;
    const mF = (sum - sB) / (total - wB);
    const between = wB * (total - wB) * (mB - mF) ** 2;
    if (between > best) {
      best = between;
      level = t;
    }
  }
  const cut = Math.max(floor, level);
  const mask = new Uint8Array(bh.data.length);
  for (let i = 0; i < mask.length; i++) mask[i] = (bh.data[i] ?? 0) > cut ? 1 : 0;
  return mask;
}

/** Fills horizontal gaps of at most `gap` pixels between ink (run-length smoothing): a line's characters merge. */
function smear(mask: Uint8Array, width: number, height: number, gap: number): void {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (!mask[row + x]) continue;
      if (last >= 0 && x - last - 1 <= gap) for (let i = last + 1; i < x; i++) mask[row + i] = 1;
      last = x;
    }
  }
}

interface Blob extends Box {
  pixels: number;
}

/** Bounding boxes of the 4-connected components of a mask. */
function components(mask: Uint8Array, width: number, height: number): Blob[] {
  const seen = new Uint8Array(mask.length);
  const out: Blob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    const b: Blob = { x0: width, y0: height, x1: 0, y1: 0, pixels: 0 };
    while (stack.length) {
      const i = stack.pop() as number;
      const x = i % width;
      const y = (i - x) / width;
      b.pixels++;
      if (x < b.x0) b.x0 = x;
      if (x + 1 > b.x1) b.x1 = x + 1;
      if (y < b.y0) b.y0 = y;
      if (y + 1 > b.y1) b.y1 = y + 1;
      // the four neighbours, each taken once
      if (x > 0 && mask[i - 1] && !seen[i - 1]) {
        seen[i - 1] = 1;
        stack.push(i - 1);
      }
      if (x < width - 1 && mask[i + 1] && !seen[i + 1]) {
        seen[i + 1] = 1;
        stack.push(i + 1);
      }
      if (y > 0 && mask[i - width] && !seen[i - width]) {
        seen[i - width] = 1;
        stack.push(i - width);
      }
      if (y < height - 1 && mask[i + width] && !seen[i + width]) {
        seen[i + width] = 1;
        stack.push(i + width);
      }
    }
    out.push(b);
  }
  return out;
}

const w = (b: Box) => b.x1 - b.x0;
const h = (b: Box) => b.y1 - b.y0;

/** A blob that can be a line of an MRZ: long, thin, dense. */
export function isLineBlob(b: Blob, imageWidth: number): boolean {
  return w(b) >= imageWidth * 0.25 && h(b) >= 4 && w(b) >= h(b) * 10 && b.pixels >= w(b) * h(b) * 0.45;
}

/** Whether `b` continues the group ending in `a`: same length, same left edge, same height, the next line. */
function nextLine(a: Box, b: Box): boolean {
  const width = Math.max(w(a), w(b));
  const height = Math.max(h(a), h(b));
  return (
    Math.abs(w(a) - w(b)) <= width * 0.12 &&
    Math.abs(a.x0 - b.x0) <= width * 0.06 &&
    Math.abs(h(a) - h(b)) <= height * 0.5 &&
    b.y0 >= a.y1 - height * 0.2 &&
    b.y0 - a.y1 <= height * 1.6
  );
}

/** The MRZ lines among the line blobs: the run of two or three consecutive matching lines that are longest (an
 * MRZ spans its document; a third line of the same length counts a little: a TD1 card). */
export function groupLines(lines: Box[]): Box[] | null {
  const sorted = [...lines].sort((a, b) => a.y0 - b.y0);
  let best: Box[] | null = null;
  const score = (g: Box[]) => (g.reduce((s, b) => s + w(b), 0) / g.length) * (1 + 0.1 * (g.length - 2));
  for (let i = 0; i < sorted.length; i++) {
    const group = [sorted[i] as Box];
    for (let j = i + 1; j < sorted.length && group.length < 3; j++) {
      const cand = sorted[j] as Box;
      if (nextLine(group[group.length - 1] as Box, cand)) group.push(cand);
      else if (cand.y0 > (group[group.length - 1] as Box).y1 + h(cand) * 2) break;
    }
    if (group.length < 2) continue;
    if (!best || score(group) > score(best)) best = group;
  }
  return best;
}

/** The MRZ band of an upright grey image (scaled to about LOCATE_WIDTH wide), with margins, or null. */
export function locateMrz(g: Gray): LocatedBand | null {
  const k = Math.max(7, Math.round(g.width / 70)) | 1;
  const mask = inkMask(blackHat(g, k), 12);
  smear(mask, g.width, g.height, Math.round(g.width / 60));
  const lines = components(mask, g.width, g.height).filter((b) => isLineBlob(b, g.width));
  const group = groupLines(lines);
  if (!group) return null;
  const heights = group.map(h).sort((a, b) => a - b);
  const lineHeight = heights[heights.length >> 1] ?? 8;
  const x0 = Math.min(...group.map((b) => b.x0));
  const x1 = Math.max(...group.map((b) => b.x1));
  const y0 = Math.min(...group.map((b) => b.y0));
  const y1 = Math.max(...group.map((b) => b.y1));
  const mx = (x1 - x0) * 0.04 + lineHeight;
  const my = lineHeight * 0.8;
  return {
    x0: Math.max(0, x0 - mx),
    y0: Math.max(0, y0 - my),
    x1: Math.min(g.width, x1 + mx),
    y1: Math.min(g.height, y1 + my),
    lineHeight,
    lines: group.length,
  };
}
