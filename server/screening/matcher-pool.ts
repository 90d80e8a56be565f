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
 * Loading a new version starts a new generation; a screen runs entirely on the generation it was submitted to, so it
 * never mixes versions. The generation just replaced stays warm (threads idle, index shared) so that a rollback is a
 * pointer switch; anything older is closed once its in-flight screens finish. */
export class MatcherPool {
  private current: Generation | undefined;
  private previous: Generation | undefined;
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
    const retired = this.previous;
    this.previous = this.current;
    this.current = { version: index.version, pool };
    if (retired) {
      // in-flight screens on the retired generation finish there; then its threads and index go away
      retired.pool.close().catch((err: unknown) => this.log.warn({ err }, 'closing old matcher pool failed'));
    }
    this.log.info({ version: index.version, threads: this.threads }, 'matcher index loaded');
  }

  /** Switches to the warm previous generation when it holds `version` (a rollback); false when it does not. */
  activate(version: string): boolean {
    if (this.current?.version === version) return true;
    if (this.previous?.version !== version) return false;
    [this.current, this.previous] = [this.previous, this.current];
    this.log.info({ version }, 'matcher switched to the warm previous version');
    return true;
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
    const gens = [this.current, this.previous];
    this.current = undefined;
    this.previous = undefined;
    await Promise.all(gens.map((g) => g?.pool.close()));
  }
}
