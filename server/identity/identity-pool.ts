import { Piscina } from 'piscina';
import type { IdentityResult, IdentityTask } from '../../identity/worker.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { IDENTITY_WORKER } from '../paths.js';

/** Piscina threads that read documents (OCR) and analyse faces, modelled on the matcher's pool: a fixed number of
 * threads (IDENTITY_THREADS), each loading the OCR reader and the face models once, and a bounded queue (beyond it:
 * 503 overloaded). The threads start on the first image, so a process that never analyses one never loads the
 * models; only processes that run jobs create the pool at all (app.ts). */
export class IdentityPool {
  private pool: Piscina<IdentityTask, IdentityResult> | undefined;
  constructor(
    private readonly threads: number,
    private readonly maxQueue: number,
    private readonly log: Logger,
  ) {}

  get queueSize(): number {
    return this.pool?.queueSize ?? 0;
  }

  private started(): Piscina<IdentityTask, IdentityResult> {
    if (!this.pool) {
      this.pool = new Piscina<IdentityTask, IdentityResult>({
        filename: IDENTITY_WORKER,
        minThreads: this.threads,
        maxThreads: this.threads,
        maxQueue: this.maxQueue,
        idleTimeout: Number.POSITIVE_INFINITY,
      });
      this.log.info({ threads: this.threads }, 'identity pool started');
    }
    return this.pool;
  }

  /** Reads one image on an identity thread. The bytes are transferred, not copied. */
  async analyze(task: IdentityTask): Promise<IdentityResult> {
    const pool = this.started();
    if (pool.queueSize >= this.maxQueue)
      throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
    // a Buffer may be a view into a shared slab: transfer only a buffer of our own
    const own = task.image.byteOffset === 0 && task.image.byteLength === task.image.buffer.byteLength;
    const image = own ? task.image : task.image.slice();
    try {
      return await pool.run({ ...task, image }, { transferList: [image.buffer as ArrayBuffer] });
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    await p?.close();
  }
}
