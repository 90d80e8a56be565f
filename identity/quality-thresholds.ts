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

/** How blur and glare are measured (identity/document/image.ts measureQuality; the page measures the same way). */
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
