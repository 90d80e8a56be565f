// The capture-quality look at one image, fast enough for an applicant waiting at the camera: size, blur and glare
// (identity/quality-thresholds.ts), whether an MRZ band (image analysis, no OCR) or a PDF417 barcode is on it, and
// how many faces. Pure: imports nothing from server/.
import { readPdf417 } from './barcode/pdf417.js';
import {
  DEFAULT_LIMITS,
  decode,
  estimateSkew,
  type Gray,
  ImageError,
  type ImageLimits,
  measureQuality,
  resize,
  rotate,
} from './document/image.js';
import { LOCATE_WIDTH, locateMrz } from './document/locate.js';
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

/** An MRZ band found by image analysis, as fractions of the width and height of the image turned by `rotation`
 * (clockwise degrees), so that it maps onto that image at any resolution. */
export interface FoundBand {
  rotation: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** line height as a fraction of the turned image's height */
  lineHeight: number;
  lines: number;
}

/** The MRZ band of a grey image by image analysis, on a copy LOCATE_WIDTH long: as it is (most captures are
 * upright), then deskewed, then a quarter turn more (a card photographed sideways); null when none shows one. */
export async function findMrzBand(gray: Gray): Promise<FoundBand | null> {
  const k = LOCATE_WIDTH / Math.max(gray.width, gray.height);
  const small = k < 1 ? await resize(gray, gray.width * k, gray.height * k) : gray;
  const tried = new Set<number>();
  const attempt = async (rotation: number): Promise<FoundBand | null> => {
    const r = Math.round(rotation * 100) / 100;
    if (tried.has(r)) return null;
    tried.add(r);
    const turned = await rotate(small, r);
    const fit =
      Math.abs(turned.width - LOCATE_WIDTH) > 8
        ? await resize(turned, LOCATE_WIDTH, (turned.height * LOCATE_WIDTH) / turned.width)
        : turned;
    const b = locateMrz(fit);
    if (!b) return null;
    const fx = (v: number) => v / fit.width;
    const fy = (v: number) => v / fit.height;
    return {
      rotation: r,
      x0: fx(b.x0),
      x1: fx(b.x1),
      y0: fy(b.y0),
      y1: fy(b.y1),
      lineHeight: fy(b.lineHeight),
      lines: b.lines,
    };
  };
  const upright = await attempt(0);
  if (upright) return upright;
  const skew = await estimateSkew(small);
  const base = Math.abs(skew) < 0.75 ? 0 : skew;
  return (await attempt(base)) ?? (await attempt(base + 90));
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
  const barcode = (await readPdf417(gray)).length > 0;
  if (barcode) return { mrz: false, barcode };
  return { mrz: (await findMrzBand(gray)) !== null, barcode };
}
