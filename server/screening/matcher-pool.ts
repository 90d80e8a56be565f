import { Piscina } from 'piscina';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from '../../matcher/types.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { MATCHER_WORKER } from '../paths.js';

interface Generation {
  version: string;
  pool: Piscina<{ subject: ScreenSubject; options: ScreenOptions }, ScreenResult>;
}

/** Piscina threads that share one dataset version's index (SharedArrayBuffers, zero-copy).
 * Loading a new version starts a new generation and retires the old one once its in-flight screens finish,
 * so that a screen never mixes versions. */
export class MatcherPool {
  private current: Generation | undefined;
  constructor(
    private readonly threads: number,
    private readonly maxQueue: number,
    private readonly log: Logger,
  ) {}

  get version(): string | undefined {
    return this.current?.version;
  }

  get queueSize(): number {
    return this.current?.pool.queueSize ?? 0;
  }

  async load(index: IndexData): Promise<void> {
    const pool = new Piscina<{ subject: ScreenSubject; options: ScreenOptions }, ScreenResult>({
      filename: MATCHER_WORKER,
      minThreads: this.threads,
      maxThreads: this.threads,
      maxQueue: this.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { index },
    });
    const next: Generation = { version: index.version, pool };
    const old = this.current;
    this.current = next;
    if (old) {
      // in-flight screens on the old generation finish there; then its threads go away
      old.pool.close().catch((err: unknown) => this.log.warn({ err }, 'closing old matcher pool failed'));
    }
    this.log.info({ version: index.version, threads: this.threads }, 'matcher index loaded');
  }

  async screen(subject: ScreenSubject, options: ScreenOptions): Promise<ScreenResult> {
    const gen = this.current;
    if (!gen) throw new ApiError('matcher_unavailable');
    if (gen.pool.queueSize >= this.maxQueue) {
      throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
    }
    try {
      return await gen.pool.run({ subject, options });
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    const gen = this.current;
    this.current = undefined;
    await gen?.pool.close();
  }
}
