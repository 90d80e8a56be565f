// Piscina worker for identity checks (server/identity/identity-pool.ts): the models are loaded once per thread, when
// the thread starts, and serve every image the thread is given. `workerData.role` says what the thread is for:
// `analysis` (document reading and faces: OCR, barcode and face models) or `quality` (the capture-quality verdict:
// the barcode reader and the face detector only, so that a verdict never waits behind a document being read).
import { workerData } from 'node:worker_threads';
import { loadBarcodeReader } from './barcode/pdf417.js';
import {
  type AnchorsByCountry,
  type Certificate,
  type ChipData,
  type ChipReport,
  type Crl,
  lazyAnchors,
  parsePortrait,
  portraitJpeg,
  verifyChip,
} from './chip/index.js';
import { createDocumentReader, type DocumentReading, type ReadSide } from './document/index.js';
import { startFaceCounter } from './face/count-thread.js';
import { createFaceAnalyzer, type FaceAnalysis, type FaceAnalyzer } from './face/index.js';
import { type CaptureQuality, captureQuality, type QualityLook } from './quality.js';

export type IdentityRole = 'analysis' | 'quality';

export type IdentityTask =
  | {
      /** document: barcode or MRZ reading + the faces on it (the portrait); selfie: faces only */
      kind: 'document' | 'selfie';
      image: Uint8Array;
      /** the side the upload shows (a front is read for its printed text only) */
      side?: ReadSide;
      /** the upload's declared type (a passport is not searched for a barcode) */
      docType?: string;
    }
  | {
      /** the capture-quality verdict's measures, of what the upload's side must show */
      kind: 'quality';
      image: Uint8Array;
      look: QualityLook;
    }
  | {
      /** passive (and active) authentication of a chip's data, its DG2 portrait decoded and its face analysed */
      kind: 'chip';
      chip: ChipData;
      anchors: AnchorsByCountry;
    };

export interface IdentityResult {
  kind: 'document' | 'selfie';
  reading: DocumentReading | null;
  faces: FaceAnalysis;
  took_ms: number;
}

export interface ChipResult {
  kind: 'chip';
  report: ChipReport;
  /** the DG2 portrait as JPEG (null when DG2 could not be read or decoded: portrait_error says why) */
  portrait: Uint8Array | null;
  portrait_error: string | null;
  /** the faces on the portrait (null without one) */
  faces: FaceAnalysis | null;
  took_ms: number;
}

export type IdentityOutput = IdentityResult | ChipResult | { kind: 'quality'; quality: CaptureQuality };

const role: IdentityRole = (workerData as { role?: IdentityRole } | undefined)?.role ?? 'analysis';
const reader = role === 'analysis' ? createDocumentReader() : null;
const analyzer = role === 'analysis' ? createFaceAnalyzer() : null;
// a quality thread counts faces on a thread of its own while it looks for the image's data (face/count-thread.ts)
const counter = role === 'quality' ? startFaceCounter() : null;
const barcodes = loadBarcodeReader();
// a load failure is reported by the first task that needs the model, not as an unhandled rejection
reader?.catch(() => {});
analyzer?.catch(() => {});
barcodes.catch(() => {});

/** The trust store's certificates and CRLs this thread has parsed, by fingerprint (see lazyAnchors). */
const anchorCache = new Map<string, Certificate | Crl>();

async function chip(
  task: Extract<IdentityTask, { kind: 'chip' }>,
  analyzer: Promise<FaceAnalyzer>,
  started: number,
): Promise<ChipResult> {
  const report = verifyChip(task.chip, lazyAnchors(task.anchors, anchorCache));
  const dg2 = task.chip.data_groups[2];
  let portrait: Uint8Array | null = null;
  let portrait_error: string | null = null;
  let faces: FaceAnalysis | null = null;
  if (dg2) {
    try {
      portrait = await portraitJpeg(parsePortrait(dg2));
      faces = await (await analyzer).analyze(portrait.slice());
    } catch (err) {
      portrait_error = (err as Error).message;
    }
  }
  return { kind: 'chip', report, portrait, portrait_error, faces, took_ms: performance.now() - started };
}

export default async function analyze(task: IdentityTask): Promise<IdentityOutput> {
  const started = performance.now();
  if (task.kind === 'quality') {
    if (!counter) throw new Error(`an identity thread of role ${role} gives no capture-quality verdict`);
    await barcodes;
    const quality = await captureQuality(task.image, {
      look: task.look,
      countFaces: (bytes) => counter.count(bytes),
    });
    return { kind: 'quality', quality };
  }
  if (!reader || !analyzer)
    throw new Error(`an identity thread of role ${role} does not read ${task.kind} tasks`);
  if (task.kind === 'chip') return chip(task, analyzer, started);
  const image = task.image;
  // each library gets its own bytes: either may hand them on to a worker of its own (and detach them)
  const [faces, reading] = await Promise.all([
    analyzer.then((a) => a.analyze(image)),
    task.kind === 'document'
      ? reader.then((r) => r.read(image.slice(), task.side, task.docType))
      : Promise.resolve(null),
  ]);
  return { kind: task.kind, reading, faces, took_ms: performance.now() - started };
}
