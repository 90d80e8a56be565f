/**
 * Capture quality: one definition, read by the server's document reader (identity/document/reader.ts), the
 * capture-quality verdict (identity/quality.ts) and the hosted page's live camera feedback
 * (applicant/src/quality.ts). Pure data and pure functions, no imports: it is bundled into the browser page as is.
 */

/** Thresholds, measured on the PassportEye specimen set (docs/decisions.md "Document reading"). */
export const QUALITY_THRESHOLDS = {
  /** the shorter side of the image, in pixels: below it a card's MRZ characters are ~6 px wide */
  minShortSide: 300,
  /** variance of the Laplacian at `QUALITY_MEASURE.width` px wide: the set's sharp images give 42–4,130; a
   * Gaussian blur of σ = 2 px brings full-resolution pages to 37–160 */
  minBlur: 40,
  /** fraction of saturated pixels on a non-white page: the set's readable images give at most 0.14 */
  maxGlare: 0.2,
};

/** How blur and glare are measured (measureGray below, for the server and the page alike). */
export const QUALITY_MEASURE = {
  /** the image is scaled to this width before the Laplacian */
  width: 1000,
  /** a grey level at or above it is saturated */
  saturated: 250,
  /** glare is measured only when the paper (the 75th percentile inside the document) is darker than this */
  whitePaper: 245,
};

/** Why an image is of low quality. */
export type QualityProblem = 'resolution_low' | 'image_blurred' | 'glare_high';

/** The problems of an image whose shorter side is `min(width, height)` pixels, with the measured `blur` and
 * `glare` (empty: good enough). */
export function qualityProblems(
  width: number,
  height: number,
  blur: number,
  glare: number,
): QualityProblem[] {
  const out: QualityProblem[] = [];
  if (Math.min(width, height) < QUALITY_THRESHOLDS.minShortSide) out.push('resolution_low');
  if (blur < QUALITY_THRESHOLDS.minBlur) out.push('image_blurred');
  if (glare > QUALITY_THRESHOLDS.maxGlare) out.push('glare_high');
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

/** Blur and glare of a grey image already scaled to QUALITY_MEASURE.width (one row after another, one byte a
 * pixel). Blur: variance of the 4-neighbour Laplacian (higher = sharper). Glare: fraction of saturated pixels not
 * connected to the image's border, on pages whose paper (75th percentile) is darker than white; 0 on white pages
 * (scans), where highlights cannot be told from paper. */
export function measureGray(g: Uint8Array, width: number, height: number): { blur: number; glare: number } {
  return {
    blur: Math.round(laplacianVariance(g, width, height) * 10) / 10,
    glare: Math.round(glareFraction(g, width, height) * 10_000) / 10_000,
  };
}
