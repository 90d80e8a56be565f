import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  // JSON on stdout always; operators pipe through pino-pretty if they want colours.
  return pino({ level, base: { service: 'veriscreen' }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** The request id of the request (or of the job a request caused) being served in this async context. Log lines
 * carry it through child loggers; this only carries it on to the jobs published meanwhile (bus.publishJob puts it
 * in a header, runWorker reads it back), so a job's lines carry the id of the request that caused it. */
const origin = new AsyncLocalStorage<string | undefined>();

export function withRequestId<T>(requestId: string | undefined, fn: () => T): T {
  return origin.run(requestId, fn);
}

export function currentRequestId(): string | undefined {
  return origin.getStore();
}

/** The ids a job's log lines carry from its payload: every `*_id` field holding a string (flow_id, batch_id,
 * delivery_id, monitor_id, tenant_id, ...). */
export function payloadIds(payload: unknown): Record<string, string> {
  const ids: Record<string, string> = {};
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    for (const [k, v] of Object.entries(payload)) {
      if (k.endsWith('_id') && typeof v === 'string') ids[k] = v;
    }
  }
  return ids;
}
