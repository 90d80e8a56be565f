import { QUALITY_MEASURE, type QualityProblem, qualityProblems } from '../../identity/quality-thresholds.js';

/**
 * Live feedback on a camera frame, measured the way the server's document reader measures an upload
 * (identity/document/image.ts measureQuality) and judged with the same thresholds (identity/quality-thresholds.ts):
 * blur is the variance of the 4-neighbour Laplacian of the grey image scaled to 1000 px wide; glare is the fraction
 * of saturated pixels not connected to the image's border, counted only when the paper is darker than white.
 */

export interface FrameQuality {
  blur: number;
  glare: number;
  reasons: QualityProblem[];
}

/** Rec. 709 luma of an RGBA buffer. */
export function toGray(rgba: Uint8ClampedArray): Uint8Array {
  const out = new Uint8Array(rgba.length / 4);
  for (let i = 0, j = 0; j < out.length; i += 4, j++) {
    out[j] = Math.round(0.2126 * (rgba[i] ?? 0) + 0.7152 * (rgba[i + 1] ?? 0) + 0.0722 * (rgba[i + 2] ?? 0));
  }
  return out;
}

function laplacianVariance(g: Uint8Array, width: number, height: number): number {
  let n = 0;
  let sum = 0;
  let sum2 = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const v =
        (g[i - 1] ?? 0) + (g[i + 1] ?? 0) + (g[i - width] ?? 0) + (g[i + width] ?? 0) - 4 * (g[i] ?? 0);
      sum += v;
      sum2 += v * v;
      n++;
    }
  }
  const mean = n ? sum / n : 0;
  return n ? sum2 / n - mean * mean : 0;
}

/** Saturated pixels connected to the border (a white background around the document), by flood fill. */
function borderSaturated(g: Uint8Array, width: number, height: number): Uint8Array {
  const sat = (i: number) => (g[i] ?? 0) >= QUALITY_MEASURE.saturated;
  const outside = new Uint8Array(width * height);
  const stack: number[] = [];
  const push = (i: number) => {
    if (!outside[i] && sat(i)) {
      outside[i] = 1;
      stack.push(i);
    }
  };
  for (let x = 0; x < width; x++) {
    push(x);
    push((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    push(y * width);
    push(y * width + width - 1);
  }
  while (stack.length) {
    const i = stack.pop() as number;
    const x = i % width;
    if (x > 0) push(i - 1);
    if (x < width - 1) push(i + 1);
    if (i >= width) push(i - width);
    if (i < (height - 1) * width) push(i + width);
  }
  return outside;
}

function glareFraction(g: Uint8Array, width: number, height: number): number {
  const outside = borderSaturated(g, width, height);
  const inside: number[] = [];
  for (let i = 0; i < g.length; i += 7) if (!outside[i]) inside.push(g[i] ?? 0);
  inside.sort((a, b) => a - b);
  const paper = inside[Math.floor(inside.length * 0.75)] ?? 255;
  if (paper >= QUALITY_MEASURE.whitePaper) return 0;
  let bright = 0;
  for (let i = 0; i < g.length; i++) if ((g[i] ?? 0) >= QUALITY_MEASURE.saturated && !outside[i]) bright++;
  return bright / g.length;
}

/** Judges a grey frame already scaled to QUALITY_MEASURE.width; `source` is the size of the image that would be
 * uploaded (before scaling). */
export function judgeFrame(
  g: Uint8Array,
  width: number,
  height: number,
  source: { width: number; height: number },
): FrameQuality {
  const blur = Math.round(laplacianVariance(g, width, height) * 10) / 10;
  const glare = Math.round(glareFraction(g, width, height) * 10_000) / 10_000;
  return { blur, glare, reasons: qualityProblems(source.width, source.height, blur, glare) };
}
