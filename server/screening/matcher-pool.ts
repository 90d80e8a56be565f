import { Piscina } from 'piscina';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from '../../matcher/types.js';
import { ApiError } from '../errors.js';
import { traceNow, traceScreenTask } from '../flow-trace.js';
import type { Logger } from '../log.js';
import { MATCHER_WORKER } from '../paths.js';

interface Screen {
  subject: ScreenSubject;
  options: ScreenOptions;
}
/** One screen (the worker's default export), several, each with its own options (its `screenEach`), or the
 * readiness probe (its `ready`). */
type Task = Screen | { items: Screen[] } | { ready: true };

interface Pending extends Screen {
  resolve: (r: ScreenResult) => void;
  reject: (e: unknown) => void;
}

interface Generation {
  version: string;
  pool: Piscina<Task, ScreenResult | ScreenResult[]>;
  /** screens waiting for the next micro-batch on this generation */
  batch: Pending[];
  /** tasks submitted to this generation and not yet settled (running on a thread or queued in Piscina) */
  inflight: number;
}

/** Screens per micro-batch: small enough that both threads get work and a batch adds little wait (~0.3 ms a
 * screen), large enough to save most of the per-task messaging and thread wake-ups under load. */
const MAX_BATCH = 8;

/** Piscina threads that share one dataset version's index (SharedArrayBuffers, zero-copy).
 * Loading a new version starts a new generation, which serves once all its threads have opened the index; a screen
 * runs entirely on the generation it was submitted to, so it never mixes versions (a micro-batch belongs to one
 * generation, and runs on it).
 * While every thread has a task (running or queued), concurrent screens go in micro-batches: those arriving in one
 * turn of the event loop become one task (up to MAX_BATCH), one message each way, since they would wait anyway.
 * The generation just replaced stays warm (threads idle, index shared) so that a rollback is a pointer switch;
 * anything older is closed once its in-flight screens finish. */
export class MatcherPool {
  private current: Generation | undefined;
  private previous: Generation | undefined;
  private submitted = 0;
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

  /** Matcher tasks submitted by this pool, every generation (a micro-batch is one task, whatever its screens). */
  get tasksSubmitted(): number {
    return this.submitted;
  }

  /** Matcher tasks completed on the current generation (a micro-batch is one task, whatever its screens). */
  get tasksCompleted(): number {
    return this.current?.pool.completed ?? 0;
  }

  async load(index: IndexData): Promise<void> {
    const pool = new Piscina<Task, ScreenResult | ScreenResult[]>({
      filename: MATCHER_WORKER,
      minThreads: this.threads,
      maxThreads: this.threads,
      maxQueue: this.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      // nothing reads Piscina's run/wait-time histograms (the screen metrics are ours): two records a task saved
      recordTiming: false,
      workerData: { index },
    });
    // a thread that fails with no task of ours (a replacement after a crash) is logged, never an unhandled 'error'
    pool.on('error', (err: unknown) =>
      this.log.error({ err, version: index.version }, 'matcher thread failed'),
    );
    try {
      // one task per thread (Piscina gives each starting thread one): the threads have opened the index before the
      // generation serves, so no screen waits for a thread to start, and an index they cannot open is refused here
      await Promise.all(
        Array.from({ length: this.threads }, () => pool.run({ ready: true }, { name: 'ready' })),
      );
    } catch (err) {
      await pool.close({ force: true }).catch(() => {});
      throw err;
    }
    const retired = this.previous;
    this.previous = this.current;
    this.current = { version: index.version, pool, batch: [], inflight: 0 };
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

  /** The current generation, when it can take one more task. */
  private admit(): Generation {
    const gen = this.current;
    if (!gen) throw new ApiError('matcher_unavailable');
    // the bound counts waiting tasks, micro-batches about to be submitted included
    if (gen.pool.queueSize + Math.ceil(gen.batch.length / MAX_BATCH) >= this.maxQueue) {
      throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
    }
    return gen;
  }

  async screen(subject: ScreenSubject, options: ScreenOptions): Promise<ScreenResult> {
    const gen = this.admit();
    // a thread is idle: the screen goes now, alone; else it waits for the turn's micro-batch
    if (gen.inflight < this.threads) return (await this.run(gen, { subject, options })) as ScreenResult;
    return new Promise<ScreenResult>((resolve, reject) => {
      if (gen.batch.push({ subject, options, resolve, reject }) === 1) setImmediate(() => this.flush(gen));
    });
  }

  /** Screens several subjects with the same options in one task (bulk callers: batches), all on the current
   * generation (one dataset version). Results in the order of `subjects`. */
  async screenMany(subjects: ScreenSubject[], options: ScreenOptions): Promise<ScreenResult[]> {
    const gen = this.admit();
    const items = subjects.map((subject) => ({ subject, options }));
    return (await this.run(gen, { items }, 'screenEach')) as ScreenResult[];
  }

  /** Submits the generation's waiting screens, MAX_BATCH to a task; each screen settles on its own. */
  private flush(gen: Generation): void {
    const waiting = gen.batch.splice(0);
    for (let i = 0; i < waiting.length; i += MAX_BATCH) {
      const part = waiting.slice(i, i + MAX_BATCH);
      const items = part.map((p) => ({ subject: p.subject, options: p.options }));
      this.run(gen, { items }, 'screenEach').then(
        (results) => {
          part.forEach((p, j) => {
            p.resolve((results as ScreenResult[])[j] as ScreenResult);
          });
        },
        (err: unknown) => {
          for (const p of part) p.reject(err);
        },
      );
    }
  }

  private async run(gen: Generation, task: Task, name?: string): Promise<ScreenResult | ScreenResult[]> {
    gen.inflight++;
    this.submitted++;
    const submitted = traceNow();
    try {
      const out = await gen.pool.run(task, name ? { name } : {});
      traceScreenTask(submitted, 'items' in task ? task.items.length : 1);
      return out;
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
      }
      throw err;
    } finally {
      gen.inflight--;
    }
  }

  async close(): Promise<void> {
    const gens = [this.current, this.previous];
    this.current = undefined;
    this.previous = undefined;
    await Promise.all(gens.map((g) => g?.pool.close()));
  }
}
