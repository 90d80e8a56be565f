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

/** What a capture is looked at for, by what its side must show: its data (an MRZ band only — a passport has no
 * barcode —, an MRZ band or a PDF417 barcode, or none) and its faces. What is not looked for costs nothing and is
 * reported as null. */
export interface QualityLook {
  data: 'mrz' | 'any' | null;
  faces: boolean;
}

export interface CaptureQuality {
  width: number;
  height: number;
  blur: number;
  glare: number;
  /** size, blur and glare problems (QUALITY_THRESHOLDS) */
  problems: QualityProblem[];
  /** null: not looked for */
  mrz_found: boolean | null;
  barcode_found: boolean | null;
  /** faces the detector found; null: not looked for */
  faces: number | null;
  took_ms: number;
  /** the file could not be decoded (`<code>: <message>`) */
  error?: string;
}

export interface CaptureOptions {
  look: QualityLook;
  /** counts the faces on the encoded image */
  countFaces(image: Uint8Array): Promise<{ faces: number; error?: string }>;
  limits?: ImageLimits;
}

export async function captureQuality(image: Uint8Array, options: CaptureOptions): Promise<CaptureQuality> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  // the faces are counted while the image is decoded, measured and searched for its data: a counter on a thread
  // of its own (face/count-thread.ts) makes the verdict wait for the longer of the two
  const counting = options.look.faces ? options.countFaces(image) : null;
  // an image that cannot be decoded answers with its error, whatever the count
  counting?.catch(() => {});
  let decoded: Awaited<ReturnType<typeof decode>>;
  try {
    decoded = await decode(image, options.limits ?? DEFAULT_LIMITS);
  } catch (err) {
    const code = err instanceof ImageError ? err.code : 'corrupt_image';
    const empty = { width: 0, height: 0, blur: 0, glare: 0, problems: [], faces: null };
    return {
      ...empty,
      mrz_found: null,
      barcode_found: null,
      took_ms: took(),
      error: `${code}: ${(err as Error).message}`,
    };
  }
  const { blur, glare } = await measureQuality(decoded.gray);
  const data = await findData(decoded.gray, options.look.data);
  const faces = counting ? (await counting).faces : null;
  return {
    width: decoded.width,
    height: decoded.height,
    blur,
    glare,
    problems: qualityProblems(decoded.width, decoded.height, blur, glare),
    mrz_found: data.mrz,
    barcode_found: data.barcode,
    faces,
    took_ms: took(),
  };
}

/** Whether the image shows an MRZ band, or a PDF417 barcode or an MRZ band (the barcode first: a licence's back has
 * no MRZ); null for what was not looked for. */
async function findData(
  gray: Gray,
  data: QualityLook['data'],
): Promise<{ mrz: boolean | null; barcode: boolean | null }> {
  if (data === null) return { mrz: null, barcode: null };
  if (data === 'mrz') return { mrz: (await findMrzBand(gray)) !== null, barcode: null };
  if ((await readBarcode(gray)) !== null) return { mrz: null, barcode: true };
  return { mrz: (await findMrzBand(gray)) !== null, barcode: false };
}
