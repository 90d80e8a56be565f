// Face detection, embedding and advisory liveness for the selfie check, offline.
// Detection + recognition: @vladmandic/face-api (SSD MobileNet v1, 68-point landmarks, ResNet-34 128-d descriptor).
// Liveness: @vladmandic/human's anti-spoof and liveness models, advisory only (docs/decisions.md).
// Both run on TensorFlow.js's WebAssembly backend with models read from their npm packages on disk.
// Pure module: imports nothing from server/, safe to load in a worker_thread (models load once per thread).
import sharp from 'sharp';
import { acquireModels, type LoadedModels, releaseModels } from './models.js';

export interface DetectedFace {
  box: { x: number; y: number; width: number; height: number };
  score: number;
  /** never leaves the server through the API */
  embedding: number[];
  /** advisory liveness score 0..1 (human's liveness model; higher = more likely a live capture), null when no
   *  liveness model ran on this face. Weak evidence: a low score routes to review, never rejects on its own. */
  liveness: number | null;
  /** human's anti-spoof model, 0..1, kept beside `liveness` as evidence; weaker still (bench/RESULTS.md) */
  antispoof: number | null;
}

export interface FaceAnalysis {
  faces: DetectedFace[];
  /** the image's size after EXIF orientation (boxes are in these pixels) */
  width: number;
  height: number;
  took_ms: number;
  /** corrupt or unsupported image: faces empty, never a throw */
  error?: string;
}

export interface FaceAnalyzer {
  analyze(image: Uint8Array): Promise<FaceAnalysis>;
  close(): Promise<void>;
}

export interface FaceAnalyzerOptions {
  /** run human's anti-spoof/liveness models (default true) */
  liveness?: boolean;
  /** the image is scaled down so that its longer side is at most this many pixels before detection */
  maxSide?: number;
  /** refuse to decode images with more pixels than this (decompression bombs) */
  maxInputPixels?: number;
  /** face-api SSD detection confidence */
  minDetectionScore?: number;
}

/** Same person when faceSimilarity(a, b) >= this. Measured on deepface's pair lists (bench/RESULTS.md): the 107
 *  same-person pairs score ≥ 0.447 and the 254 different-person pairs ≤ 0.433; 0.44 sits in that gap, i.e. a
 *  descriptor distance of 0.56, stricter than dlib's customary 0.6 (a false match costs more than a review). */
export const FACE_MATCH_THRESHOLD = 0.44;

export const DEFAULT_MAX_SIDE = 1600;
export const DEFAULT_MAX_INPUT_PIXELS = 50_000_000;

/** 0..1, higher = same person: 1 − Euclidean distance of the two 128-d descriptors, clamped.
 *  Descriptors of different lengths (another model) or empty ones score 0. */
export function faceSimilarity(a: number[], b: number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    sum += d * d;
  }
  const s = 1 - Math.sqrt(sum);
  return Math.round(Math.min(1, Math.max(0, s)) * 1e4) / 1e4;
}

/** The thread's TensorFlow.js wasm heap: it grows to what the largest analysis needed (~360 MB measured with the
 *  default maxSide) and never shrinks; 0 before the models are loaded in this thread. */
export { wasmHeapBytes } from './models.js';

/** The face an image is about: the largest one (a document's main portrait rather than its ghost image). */
export function primaryFace(analysis: FaceAnalysis): DetectedFace | null {
  let best: DetectedFace | null = null;
  for (const f of analysis.faces) {
    if (!best || f.box.width * f.box.height > best.box.width * best.box.height) best = f;
  }
  return best;
}

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
  /** oriented size of the original image */
  origWidth: number;
  origHeight: number;
}

async function decode(image: Uint8Array, maxSide: number, maxInputPixels: number): Promise<Decoded> {
  const input = sharp(image, { limitInputPixels: maxInputPixels, failOn: 'error' });
  const meta = await input.metadata();
  const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const { data, info } = await input
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unsupported image: ${info.channels} channels after conversion`);
  return {
    data,
    width: info.width,
    height: info.height,
    origWidth: oriented.width ?? info.width,
    origHeight: oriented.height ?? info.height,
  };
}

type Box = DetectedFace['box'];

/** How far apart two boxes' centres are, relative to the size of `a`; Infinity when a's centre is outside b.
 *  human crops faces larger and square, so box overlap is a poor association; centres are not. */
function centreDistance(a: Box, b: Box): number {
  const ax = a.x + a.width / 2;
  const ay = a.y + a.height / 2;
  if (ax < b.x || ax > b.x + b.width || ay < b.y || ay > b.y + b.height) return Number.POSITIVE_INFINITY;
  const bx = b.x + b.width / 2;
  const by = b.y + b.height / 2;
  return Math.hypot(ax - bx, ay - by) / Math.max(a.width, a.height);
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

// tfjs on wasm is single-threaded and human keeps per-call state: one analysis at a time per thread
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}

async function runModels(m: LoadedModels, img: Decoded, minScore: number): Promise<DetectedFace[]> {
  const { faceapi, tf, human } = m;
  const scale = img.origWidth / img.width;
  const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
  try {
    const found = await faceapi
      .detectAllFaces(tensor, new faceapi.SsdMobilenetv1Options({ minConfidence: minScore, maxResults: 50 }))
      .withFaceLandmarks()
      .withFaceDescriptors();
    const faces: DetectedFace[] = found.map((f) => ({
      box: {
        x: round(f.detection.box.x * scale),
        y: round(f.detection.box.y * scale),
        width: round(f.detection.box.width * scale),
        height: round(f.detection.box.height * scale),
      },
      score: round(f.detection.score, 4),
      embedding: Array.from(f.descriptor),
      liveness: null,
      antispoof: null,
    }));
    if (human && faces.length > 0) {
      const batched = tf.tidy(() => tf.cast(tf.expandDims(tensor, 0), 'float32'));
      try {
        const result = await human.detect(batched as unknown as Parameters<typeof human.detect>[0]);
        // human's faces are matched to face-api's by nearest centre; a face only face-api found keeps null
        for (const face of faces) {
          let best: { distance: number; real: number | undefined; live: number | undefined } | null = null;
          for (const h of result.face) {
            const hb = {
              x: h.box[0] * scale,
              y: h.box[1] * scale,
              width: h.box[2] * scale,
              height: h.box[3] * scale,
            };
            const distance = centreDistance(face.box, hb);
            if (distance <= 0.5 && (!best || distance < best.distance))
              best = { distance, real: h.real, live: h.live };
          }
          face.liveness = typeof best?.live === 'number' ? round(best.live, 3) : null;
          face.antispoof = typeof best?.real === 'number' ? round(best.real, 3) : null;
        }
      } finally {
        batched.dispose();
      }
    }
    return faces;
  } finally {
    tensor.dispose();
  }
}

export async function createFaceAnalyzer(options: FaceAnalyzerOptions = {}): Promise<FaceAnalyzer> {
  const maxSide = options.maxSide ?? DEFAULT_MAX_SIDE;
  const maxInputPixels = options.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const minScore = options.minDetectionScore ?? 0.5;
  const models = await acquireModels(options.liveness ?? true);
  const withLiveness = options.liveness ?? true;
  let closed = false;
  return {
    analyze(image: Uint8Array): Promise<FaceAnalysis> {
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      if (closed) return Promise.reject(new Error('face analyzer is closed'));
      return oneAtATime(async () => {
        let img: Decoded;
        try {
          if (!image || image.byteLength === 0) throw new Error('empty file');
          img = await decode(image, maxSide, maxInputPixels);
        } catch (err) {
          return { faces: [], width: 0, height: 0, took_ms: took(), error: (err as Error).message };
        }
        const m = withLiveness ? models : { ...models, human: null };
        const faces = await runModels(m, img, minScore);
        return { faces, width: img.origWidth, height: img.origHeight, took_ms: took() };
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await releaseModels();
    },
  };
}
