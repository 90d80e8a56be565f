import { Piscina } from 'piscina';
import type { TrustResult, TrustTask } from '../../identity/chip/trust-worker.js';
import { ApiError } from '../errors.js';
import { TRUST_WORKER } from '../paths.js';

/** One thread that reads the trust store's uploads (master lists, CSCAs, CRLs) off the HTTP thread, started by the
 * first upload; a bounded queue beyond which uploads answer 503 overloaded. */
export class TrustPool {
  private pool: Piscina<TrustTask, TrustResult> | undefined;
  constructor(private readonly maxQueue = 4) {}

  async run(task: TrustTask): Promise<TrustResult> {
    this.pool ??= new Piscina<TrustTask, TrustResult>({
      filename: TRUST_WORKER,
      minThreads: 1,
      maxThreads: 1,
      maxQueue: this.maxQueue,
    });
    if (this.pool.queueSize >= this.maxQueue)
      throw new ApiError('overloaded', { headers: { 'retry-after': '1' } });
    return this.pool.run(task);
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    await p?.close();
  }
}
