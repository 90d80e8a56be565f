// The face detector of a capture-quality thread on a thread of its own (identity/worker.ts, role `quality`): the
// verdict's face count (tfjs on wasm, single-threaded) runs while its own thread decodes the image and looks for
// its MRZ band or barcode, so that one verdict waits for the longer of the two, not their sum. The same detector,
// options and image as a count on the verdict's thread: the same answers.
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { createFaceAnalyzer } from './index.js';

interface CountAsk {
  id: number;
  image: Uint8Array;
}

interface CountAnswer {
  id: number;
  faces: number;
  error?: string;
  /** the detector could not load or threw: rejected on the asking side */
  failed?: string;
}

export interface FaceCounter {
  count(image: Uint8Array): Promise<{ faces: number; error?: string }>;
  /** ends the counting thread (the counts waiting on it fail); the next count starts a new one */
  end(): Promise<void>;
}

/** A counting thread and the counts waiting on it. */
interface Counting {
  thread: Worker;
  waiting: Map<number, { resolve: (a: CountAnswer) => void; reject: (e: Error) => void }>;
}

/** Starts the counting thread; its models load at once. A thread that fails or ends fails the counts waiting on it,
 * and the next count starts a new one: one crash costs the verdicts in flight, not every later verdict. */
export function startFaceCounter(): FaceCounter {
  let next = 0;
  let current: Counting | null = null;
  const start = (): Counting => {
    const thread = new Worker(new URL(import.meta.url), { workerData: { faceCounter: true } });
    // the verdict's thread ends when its pool ends it, whether or not this one is still counting
    thread.unref();
    const c: Counting = { thread, waiting: new Map() };
    const failAll = (err: Error) => {
      if (current === c) current = null;
      for (const w of c.waiting.values()) w.reject(err);
      c.waiting.clear();
    };
    thread.on('message', (a: CountAnswer) => {
      const w = c.waiting.get(a.id);
      c.waiting.delete(a.id);
      w?.resolve(a);
    });
    thread.on('error', failAll);
    thread.on('exit', () => failAll(new Error('the face counting thread has ended')));
    return c;
  };
  current = start();
  return {
    async count(image) {
      const id = next++;
      current ??= start();
      const c = current;
      const answer = await new Promise<CountAnswer>((resolve, reject) => {
        c.waiting.set(id, { resolve, reject });
        c.thread.postMessage({ id, image } satisfies CountAsk);
      });
      if (answer.failed !== undefined) throw new Error(answer.failed);
      return answer.error === undefined
        ? { faces: answer.faces }
        : { faces: answer.faces, error: answer.error };
    },
    async end() {
      const c = current;
      current = null;
      await c?.thread.terminate();
    },
  };
}

/** The thread's side: one detector, the asks answered in turn (the analyzer counts one image at a time). */
function serve(): void {
  const port = parentPort;
  if (!port) return;
  const analyzer = createFaceAnalyzer({ liveness: false });
  analyzer.catch(() => {});
  port.on('message', async ({ id, image }: CountAsk) => {
    let answer: CountAnswer;
    try {
      answer = { id, ...(await (await analyzer).count(image)) };
    } catch (err) {
      answer = { id, faces: 0, failed: (err as Error).message };
    }
    port.postMessage(answer);
  });
}

// this module is the counting thread's entry when started by startFaceCounter, a library elsewhere
if ((workerData as { faceCounter?: boolean } | null)?.faceCounter === true) serve();
