// Piscina worker for identity checks (server/identity/identity-pool.ts): the models are loaded once per thread, when
// the thread starts, and serve every image the thread is given. `workerData.role` says what the thread is for:
// `analysis` (document reading and faces: OCR, barcode and face models) or `quality` (the capture-quality verdict:
// the barcode reader and the face detector only, so that a verdict never waits behind a document being read).
import { workerData } from 'node:worker_threads';
import { loadBarcodeReader } from './barcode/pdf417.js';
import { createDocumentReader, type DocumentReading } from './document/index.js';
import { createFaceAnalyzer, type FaceAnalysis } from './face/index.js';
import { type CaptureQuality, captureQuality } from './quality.js';

export type IdentityRole = 'analysis' | 'quality';

export type IdentityTask =
  | {
      /** document: MRZ reading + the faces on it (the portrait); selfie: faces only */
      kind: 'document' | 'selfie';
      image: Uint8Array;
    }
  | {
      /** the capture-quality verdict's measures (`selfie`: no MRZ or barcode looked for) */
      kind: 'quality';
      image: Uint8Array;
      selfie: boolean;
    };

export interface IdentityResult {
  kind: 'document' | 'selfie';
  reading: DocumentReading | null;
  faces: FaceAnalysis;
  took_ms: number;
}

export type IdentityOutput = IdentityResult | { kind: 'quality'; quality: CaptureQuality };

const role: IdentityRole = (workerData as { role?: IdentityRole } | undefined)?.role ?? 'analysis';
const reader = role === 'analysis' ? createDocumentReader() : null;
const analyzer = createFaceAnalyzer(role === 'quality' ? { liveness: false } : {});
const barcodes = loadBarcodeReader();
// a load failure is reported by the first task that needs the model, not as an unhandled rejection
reader?.catch(() => {});
analyzer.catch(() => {});
barcodes.catch(() => {});

export default async function analyze(task: IdentityTask): Promise<IdentityOutput> {
  const started = performance.now();
  const image = task.image;
  if (task.kind === 'quality') {
    const faces = await analyzer;
    await barcodes;
    const quality = await captureQuality(image, {
      selfie: task.selfie,
      countFaces: (bytes) => faces.count(bytes),
    });
    return { kind: 'quality', quality };
  }
  if (!reader) throw new Error(`an identity thread of role ${role} does not read ${task.kind} images`);
  // each library gets its own bytes: either may hand them on to a worker of its own (and detach them)
  const [faces, reading] = await Promise.all([
    analyzer.then((a) => a.analyze(image)),
    task.kind === 'document' ? reader.then((r) => r.read(image.slice())) : Promise.resolve(null),
  ]);
  return { kind: task.kind, reading, faces, took_ms: performance.now() - started };
}
