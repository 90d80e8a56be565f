// Piscina worker for identity checks (server/identity/identity-pool.ts): the OCR reader and the face analyzer are
// created once per thread, when the thread starts, and serve every image the thread is given.
import { createDocumentReader, type DocumentReading } from './document/index.js';
import { createFaceAnalyzer, type FaceAnalysis } from './face/index.js';

export interface IdentityTask {
  /** document: MRZ reading + the faces on it (the portrait); selfie: faces only */
  kind: 'document' | 'selfie';
  image: Uint8Array;
}

export interface IdentityResult {
  kind: 'document' | 'selfie';
  reading: DocumentReading | null;
  faces: FaceAnalysis;
  took_ms: number;
}

const reader = createDocumentReader();
const analyzer = createFaceAnalyzer();
// a load failure is reported by the first task that needs the model, not as an unhandled rejection
reader.catch(() => {});
analyzer.catch(() => {});

export default async function analyze(task: IdentityTask): Promise<IdentityResult> {
  const started = performance.now();
  const image = task.image;
  // each library gets its own bytes: either may hand them on to a worker of its own (and detach them)
  const [faces, reading] = await Promise.all([
    analyzer.then((a) => a.analyze(image)),
    task.kind === 'document' ? reader.then((r) => r.read(image.slice())) : Promise.resolve(null),
  ]);
  return { kind: task.kind, reading, faces, took_ms: performance.now() - started };
}
