// Face detection, embedding and advisory liveness for the selfie check, offline.
// Detection + recognition: @vladmandic/face-api (SSD MobileNet v1, 68-point landmarks, ResNet-34 128-d descriptor).
// Liveness: @vladmandic/human's anti-spoof and liveness models, advisory only (docs/decisions.md).
// Both run on TensorFlow.js's WebAssembly backend with models read from their npm packages on disk.
// Pure module: imports nothing from server/, safe to load in a worker_thread (models load once per thread).
import sharp from 'sharp';
import { acquireModels, type LoadedModels, releaseModels } from './models.js';
import type { HeadPose } from './pose.js';

export type { HeadPose } from './pose.js';

export interface DetectedFace {
  box: { x: number; y: number; width: number; height: number };
  score: number;
  /** never leaves the server through the API */
  embedding: number[];
  /** advisory liveness score 0..1 (human's liveness model; higher = more likely a live capture), null when no
   *  liveness model ran on this face. Weak evidence: a low score routes to review, never rejects on its own. */
  liveness: number | null;
  /** human's anti-spoof model, 0..1, kept beside `liveness` as evidence; weaker still (bench/history, identity-faces) */
  antispoof: number | null;
  /** which detector found the face: face-api's SSD, or human's detector where the SSD saw nothing there */
  detector: 'face-api' | 'human';
  /** head pose from human's face mesh in degrees (identity/face/pose.ts says which way is which); null when human
   *  did not see this face */
  pose: HeadPose | null;
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
  /** Faces found by the SSD detector alone on a copy at most `maxSide` px long (no landmarks, descriptors or
   * liveness): the fast look of the capture-quality verdict. */
  count(image: Uint8Array, maxSide?: number): Promise<{ faces: number; error?: string }>;
  close(): Promise<void>;
}

export interface FaceAnalyzerOptions {
  /** run human's detector, face mesh and anti-spoof/liveness models (default true). Without them there is no
   *  liveness score, no second detector for faces face-api misses, and no upright description of tilted faces. */
  liveness?: boolean;
  /** the image is scaled down so that its longer side is at most this many pixels before detection */
  maxSide?: number;
  /** refuse to decode images with more pixels than this (decompression bombs) */
  maxInputPixels?: number;
  /** face-api SSD detection confidence */
  minDetectionScore?: number;
}

/** Same person when faceSimilarity(a, b) >= this. Measured on deepface's pair lists (bench:identity:faces): the 107
 *  same-person pairs score ≥ 0.447 and the 254 different-person pairs ≤ 0.433; 0.44 sits in that gap, i.e. a
 *  descriptor distance of 0.56, stricter than dlib's customary 0.6 (a false match costs more than a review). */
export const FACE_MATCH_THRESHOLD = 0.44;

export const DEFAULT_MAX_SIDE = 1600;
/** The longer side of the copy `count` looks at: a portrait on a card photographed whole is still ~80 px. */
export const QUICK_MAX_SIDE = 640;
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

const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif', 'tiff', 'gif']);

async function decode(image: Uint8Array, maxSide: number, maxInputPixels: number): Promise<Decoded> {
  const input = sharp(image, { limitInputPixels: maxInputPixels, failOn: 'error' });
  const meta = await input.metadata();
  // photographs only: no vector or document formats (an SVG can reference other files), no raw camera dumps
  if (!RASTER_FORMATS.has(meta.format ?? ''))
    throw new Error(`unsupported image format: ${meta.format ?? 'unknown'}`);
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

/** human's detector may find a face face-api's SSD misses (a portrait under a stamp or hologram); such a face is
 *  kept only when human is confident about it, and described by face-api's landmarks + descriptor on human's box. */
const FALLBACK_MIN_BOX_SCORE = 0.6;
const FALLBACK_MIN_FACE_SCORE = 0.8;

/** face-api's descriptor does not de-rotate faces: a head tilted 30° already falls below the threshold against an
 *  upright photo of the same person. A face whose roll (from human's face mesh) exceeds this is described again on
 *  the image rotated upright around the face's centre. Human's roll is reliable to about ±90°; upside-down faces
 *  are not recognised as such. */
const DEROTATE_MIN_ROLL = (12 * Math.PI) / 180;

const DEGREES = 180 / Math.PI;

/** human's Euler angles from its face mesh (radians) in degrees; null without a mesh. */
function headPose(h: { rotation?: { angle: HeadPose } | null }): HeadPose | null {
  const a = h.rotation?.angle;
  if (!a) return null;
  return { yaw: round(a.yaw * DEGREES), pitch: round(a.pitch * DEGREES), roll: round(a.roll * DEGREES) };
}

type Tensor3D = ReturnType<LoadedModels['tf']['tensor3d']>;

/** face-api's 68 landmarks + 128-d descriptor for the face in `box` (pixels of `image`), or null. */
async function describeAt(
  m: LoadedModels,
  image: Tensor3D,
  box: { x: number; y: number; width: number; height: number },
  score: number,
): Promise<{ descriptor: Float32Array; landmarks: { x: number; y: number }[] } | null> {
  const { faceapi } = m;
  const [height, width] = image.shape as [number, number, number];
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  const w = Math.min(box.width, width - x);
  const h = Math.min(box.height, height - y);
  if (w < 8 || h < 8) return null;
  const detection = new faceapi.FaceDetection(
    score,
    new faceapi.Rect(x / width, y / height, w / width, h / height),
    {
      width,
      height,
    },
  );
  const [described] = await new faceapi.DetectAllFaceLandmarksTask(
    Promise.resolve([{ detection }]),
    image,
    false,
  ).withFaceDescriptors();
  return described ? { descriptor: described.descriptor, landmarks: described.landmarks.positions } : null;
}

/** The descriptor of a face rolled by `roll` radians (clockwise positive), computed on the image rotated back
 *  around the face's centre: the face stays where it was and only its content turns upright. */
async function uprightDescriptor(
  m: LoadedModels,
  image: Tensor3D,
  box: { x: number; y: number; width: number; height: number },
  roll: number,
): Promise<Float32Array | null> {
  const { tf } = m;
  const [height, width] = image.shape as [number, number, number];
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const side = Math.max(box.width, box.height);
  const upright = tf.tidy(() => {
    const batch = tf.cast(tf.expandDims(image, 0), 'float32') as unknown as Parameters<
      typeof tf.image.rotateWithOffset
    >[0];
    // rotateWithOffset turns counter-clockwise: by +roll undoes a clockwise roll
    const rotated = tf.image.rotateWithOffset(batch, roll, 128, [cx / width, cy / height]);
    return tf.cast(tf.squeeze(rotated, [0]), 'int32') as Tensor3D;
  });
  try {
    const described = await describeAt(
      m,
      upright,
      { x: cx - side / 2, y: cy - side / 2, width: side, height: side },
      1,
    );
    return described?.descriptor ?? null;
  } finally {
    upright.dispose();
  }
}

async function runModels(m: LoadedModels, img: Decoded, minScore: number): Promise<DetectedFace[]> {
  const { faceapi, tf, human } = m;
  const scale = img.origWidth / img.width;
  const scaled = (b: { x: number; y: number; width: number; height: number }) => ({
    x: round(b.x * scale),
    y: round(b.y * scale),
    width: round(b.width * scale),
    height: round(b.height * scale),
  });
  const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
  try {
    const found = await faceapi
      .detectAllFaces(tensor, new faceapi.SsdMobilenetv1Options({ minConfidence: minScore, maxResults: 50 }))
      .withFaceLandmarks()
      .withFaceDescriptors();
    // boxes in the scaled image's pixels, kept for the second passes below
    const pixelBoxes = found.map((f) => ({
      x: f.detection.box.x,
      y: f.detection.box.y,
      width: f.detection.box.width,
      height: f.detection.box.height,
    }));
    const faces: DetectedFace[] = found.map((f) => ({
      box: scaled(f.detection.box),
      score: round(f.detection.score, 4),
      embedding: Array.from(f.descriptor),
      liveness: null,
      antispoof: null,
      detector: 'face-api',
      pose: null,
    }));
    if (!human) return faces;
    const batched = tf.tidy(() => tf.cast(tf.expandDims(tensor, 0), 'float32'));
    let humanFaces: Awaited<ReturnType<typeof human.detect>>['face'];
    try {
      humanFaces = (await human.detect(batched as unknown as Parameters<typeof human.detect>[0])).face;
    } finally {
      batched.dispose();
    }
    const humanPixels = (h: (typeof humanFaces)[number]) => ({
      x: h.box[0],
      y: h.box[1],
      width: h.box[2],
      height: h.box[3],
    });
    const rollOf = (h: (typeof humanFaces)[number]) => h.rotation?.angle.roll ?? 0;
    // human's faces are paired with face-api's by nearest centre; a face only face-api found keeps null
    const paired = new Set<number>();
    for (const [k, face] of faces.entries()) {
      let bestIndex = -1;
      let bestDistance = 0.5;
      for (const [i, h] of humanFaces.entries()) {
        const distance = centreDistance(pixelBoxes[k]!, humanPixels(h));
        if (distance <= bestDistance) {
          bestIndex = i;
          bestDistance = distance;
        }
      }
      const h = humanFaces[bestIndex];
      if (!h) continue;
      paired.add(bestIndex);
      face.liveness = typeof h.live === 'number' ? round(h.live, 3) : null;
      face.antispoof = typeof h.real === 'number' ? round(h.real, 3) : null;
      face.pose = headPose(h);
      if (Math.abs(rollOf(h)) > DEROTATE_MIN_ROLL) {
        const upright = await uprightDescriptor(m, tensor, pixelBoxes[k]!, rollOf(h));
        if (upright) face.embedding = Array.from(upright);
      }
    }
    for (const [i, h] of humanFaces.entries()) {
      if (paired.has(i) || h.boxScore < FALLBACK_MIN_BOX_SCORE || h.faceScore < FALLBACK_MIN_FACE_SCORE)
        continue;
      const hb = humanPixels(h);
      if (pixelBoxes.some((b) => centreDistance(b, hb) <= 0.5)) continue;
      const described = await describeAt(m, tensor, hb, h.boxScore);
      if (!described) continue;
      // the landmarks' extent is a tighter box than human's square crop, comparable to face-api's boxes
      const xs = described.landmarks.map((p) => p.x);
      const ys = described.landmarks.map((p) => p.y);
      const left = Math.max(0, Math.min(...xs));
      const top = Math.max(0, Math.min(...ys));
      const upright =
        Math.abs(rollOf(h)) > DEROTATE_MIN_ROLL ? await uprightDescriptor(m, tensor, hb, rollOf(h)) : null;
      faces.push({
        box: scaled({ x: left, y: top, width: Math.max(...xs) - left, height: Math.max(...ys) - top }),
        score: round(h.boxScore, 4),
        embedding: Array.from(upright ?? described.descriptor),
        liveness: typeof h.live === 'number' ? round(h.live, 3) : null,
        antispoof: typeof h.real === 'number' ? round(h.real, 3) : null,
        detector: 'human',
        pose: headPose(h),
      });
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
        try {
          const faces = await runModels(m, img, minScore);
          return { faces, width: img.origWidth, height: img.origHeight, took_ms: took() };
        } catch (err) {
          // a model failing on an odd input is that image's error, not the caller's exception
          return {
            faces: [],
            width: img.origWidth,
            height: img.origHeight,
            took_ms: took(),
            error: `analysis failed: ${(err as Error).message}`,
          };
        }
      });
    },
    count(image: Uint8Array, side = QUICK_MAX_SIDE): Promise<{ faces: number; error?: string }> {
      if (closed) return Promise.reject(new Error('face analyzer is closed'));
      return oneAtATime(async () => {
        let img: Decoded;
        try {
          if (!image || image.byteLength === 0) throw new Error('empty file');
          img = await decode(image, side, maxInputPixels);
        } catch (err) {
          return { faces: 0, error: (err as Error).message };
        }
        const { faceapi, tf } = models;
        const tensor = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
        try {
          const options = new faceapi.SsdMobilenetv1Options({ minConfidence: minScore, maxResults: 10 });
          return { faces: (await faceapi.detectAllFaces(tensor, options)).length };
        } catch (err) {
          return { faces: 0, error: `analysis failed: ${(err as Error).message}` };
        } finally {
          tensor.dispose();
        }
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await releaseModels();
    },
  };
}
