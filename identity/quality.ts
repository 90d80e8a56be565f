// The capture-quality look at one image, fast enough for an applicant waiting at the camera: size, blur and glare
// (identity/quality-thresholds.ts), whether an MRZ band (image analysis, no OCR) or a PDF417 barcode is on it, and
// how many faces. Pure: imports nothing from server/.

import { findMrzBand } from './document/band.js';
import { readBarcode } from './document/card.js';
import {
  DEFAULT_LIMITS,
  decode,
  type Gray,
  ImageError,
  type ImageLimits,
  measureQuality,
} from './document/image.js';
import { type QualityProblem, qualityProblems } from './quality-thresholds.js';

export interface CaptureQuality {
  width: number;
  height: number;
  blur: number;
  glare: number;
  /** size, blur and glare problems (QUALITY_THRESHOLDS) */
  problems: QualityProblem[];
  mrz_found: boolean;
  barcode_found: boolean;
  /** faces the detector found */
  faces: number;
  took_ms: number;
  /** the file could not be decoded (`<code>: <message>`) */
  error?: string;
}

export interface CaptureOptions {
  /** a selfie: no MRZ or barcode is looked for */
  selfie: boolean;
  /** counts the faces on the encoded image */
  countFaces(image: Uint8Array): Promise<{ faces: number; error?: string }>;
  limits?: ImageLimits;
}

export async function captureQuality(image: Uint8Array, options: CaptureOptions): Promise<CaptureQuality> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  let decoded: Awaited<ReturnType<typeof decode>>;
  try {
    decoded = await decode(image, options.limits ?? DEFAULT_LIMITS);
  } catch (err) {
    const code = err instanceof ImageError ? err.code : 'corrupt_image';
    const empty = { width: 0, height: 0, blur: 0, glare: 0, problems: [], faces: 0 };
    return {
      ...empty,
      mrz_found: false,
      barcode_found: false,
      took_ms: took(),
      error: `${code}: ${(err as Error).message}`,
    };
  }
  const { blur, glare } = await measureQuality(decoded.gray);
  const faces = await options.countFaces(image);
  const data = options.selfie ? null : await findData(decoded.gray);
  return {
    width: decoded.width,
    height: decoded.height,
    blur,
    glare,
    problems: qualityProblems(decoded.width, decoded.height, blur, glare),
    mrz_found: data?.mrz ?? false,
    barcode_found: data?.barcode ?? false,
    faces: faces.faces,
    took_ms: took(),
  };
}

/** Whether the image shows a PDF417 barcode or an MRZ band; the barcode first (a licence's back has no MRZ). */
async function findData(gray: Gray): Promise<{ mrz: boolean; barcode: boolean }> {
  const barcode = (await readBarcode(gray)) !== null;
  if (barcode) return { mrz: false, barcode };
  return { mrz: (await findMrzBand(gray)) !== null, barcode };
}
