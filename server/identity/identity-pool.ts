import { Piscina } from 'piscina';
import type { CaptureQuality, QualityLook } from '../../identity/quality.js';
import type {
  ChipResult,
  IdentityOutput,
  IdentityResult,
  IdentityRole,
  IdentityTask,
} from '../../identity/worker.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { IDENTITY_WORKER } from '../paths.js';

/** Piscina threads that read documents (OCR) and analyse faces, modelled on the matcher's pool: a fixed number of
 * threads, each loading its models once, and a bounded queue (beyond it: 503 overloaded). Role `analysis`
 * (IDENTITY_THREADS, processes that run jobs) reads uploads; role `quality` (IDENTITY_QUALITY_THREADS, processes
 * that serve HTTP) gives capture-quality verdicts, on threads of their own so that a verdict never waits behind a
 * document being read. The threads start with `start()` (IDENTITY_PRELOAD) or on the first image. */
export class IdentityPool {
  private pool: Piscina<IdentityTask, IdentityOutput> | undefined;
  constructor(
    private readonly threads: number,
    private readonly maxQueue: number,
    private readonly log: Logger,
    private readonly role: IdentityRole = 'analysis',
  ) {}

  get queueSize(): number {
    return this.pool?.queueSize ?? 0;
  }

  /** Starts the threads now: each loads its models as it starts, so the first image does not wait for them. */
  start(): void {
    this.started();
  }

  private started(): Piscina<IdentityTask, IdentityOutput> {
    if (!this.pool) {
      this.pool = new Piscina<IdentityTask, IdentityOutput>({
        filename: IDENTITY_WORKER,
        minThreads: this.threads,
        maxThreads: this.threads,
        maxQueue: this.maxQueue,
        idleTimeout: Number.POSITIVE_INFINITY,
        workerData: { role: this.role },
      });
      this.log.info({ threads: this.threads, role: this.role }, 'identity pool started');
    }
    return this.pool;
  }

  /** Reads one upload (document or selfie) on an identity thread. */
  async analyze(task: IdentityTask & { kind: 'document' | 'selfie' }): Promise<IdentityResult> {
    const out = await this.run(task);
    if (out.kind === 'quality' || out.kind === 'chip')
      throw new Error(`an analysis task answered with ${out.kind}`);
    return out;
  }

  /** Verifies one chip's data on an identity thread (passive authentication, the DG2 portrait's faces). */
  async verifyChip(task: Extract<IdentityTask, { kind: 'chip' }>): Promise<ChipResult> {
    const out = await this.run(task);
    if (out.kind !== 'chip') throw new Error('a chip task answered with something else');
    return out;
  }

  /** The capture-quality measures of one image. */
  async quality(image: Uint8Array, look: QualityLook): Promise<CaptureQuality> {
    const out = await this.run({ kind: 'quality', image, look });
    if (out.kind !== 'quality') throw new Error('a quality task answered with an analysis');
    return out.quality;
  }

  /** Runs one task on a thread. The bytes are transferred, not copied. */
  private async run(task: IdentityTask): Promise<IdentityOutput> {
    const pool = this.started();
    if (pool.queueSize >= this.maxQueue)
      throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
    try {
      // chip data is small and copied; an image is transferred
      if (task.kind === 'chip') return await pool.run(task);
      // a Buffer may be a view into a shared slab: transfer only a buffer of our own
      const own = task.image.byteOffset === 0 && task.image.byteLength === task.image.buffer.byteLength;
      const image = own ? task.image : task.image.slice();
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
