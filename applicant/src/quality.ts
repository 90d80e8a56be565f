import { measureGray, type QualityProblem, qualityProblems } from '../../identity/quality-thresholds.js';

/**
 * Live feedback on a camera frame: measured by the server's own measure and judged by its own rule
 * (identity/quality-thresholds.ts measureGray and qualityProblems, which the document reader and the quality
 * verdict use), on the guide frame's crop converted to grey here.
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

/** Judges a grey frame already scaled to QUALITY_MEASURE.width; `source` is the size of the image that would be
 * uploaded (before scaling). */
export function judgeFrame(
  g: Uint8Array,
  width: number,
  height: number,
  source: { width: number; height: number },
): FrameQuality {
  const { blur, glare } = measureGray(g, width, height);
  return { blur, glare, reasons: qualityProblems(source.width, source.height, blur, glare) };
}
