import postgres from 'postgres';
import type { Logger } from '../log.js';
import { isRefusal, type PoolSockets } from './sql.js';

/** How often the watchdog asks the server `select 1`, and how long it waits for the answer. */
export const WATCHDOG_INTERVAL_MS = 1000;
export const WATCHDOG_TIMEOUT_MS = 2000;
/** Unanswered probes in a row before the pool's connections are cut: one slow answer on a loaded machine is not an
 * outage. */
export const WATCHDOG_MISSES = 2;

export interface DbWatchdog {
  /** true while the server is unavailable: the last probe was refused, or the last WATCHDOG_MISSES went unanswered */
  unresponsive(): boolean;
  stop(): Promise<void>;
}

/** Watches a Postgres server that may stop answering without closing its connections (SIGSTOP, a hung host, a
 * partition that drops packets): queries on already-open connections would then wait forever, and so would the
 * requests behind them. A probe on its own connection (never the pool's, which load may saturate) asks `select 1`
 * every WATCHDOG_INTERVAL_MS; after WATCHDOG_MISSES unanswered probes the pool's connections are cut, so their
 * queries fail with CONNECTION_CLOSED (503 service_unavailable) and new ones reconnect (and fail within the
 * connect timeout while the server stays frozen). A probe that waited too long is abandoned with its connection.
 * Requests are so answered within about WATCHDOG_MISSES × (WATCHDOG_INTERVAL_MS + WATCHDOG_TIMEOUT_MS). */
export function startDbWatchdog(url: string, sockets: PoolSockets, log: Logger): DbWatchdog {
  let probe = connectProbe(url);
  let misses = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  const once = async () => {
    let t: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      probe`select 1`.then(
        () => true,
        // refused: the server is down, not frozen; the pool's gate stays shut until it answers. Anything else (a
        // connect timeout on a loaded machine, or this probe abandoned as unanswered) is a miss, counted below,
        // never a reason to shut the gate at once
        (err: unknown) => {
          if (!isRefusal(err)) return false;
          sockets.setUnavailable(true);
          return 'refused' as const;
        },
      ),
      new Promise<false>((r) => {
        // decided after the pending I/O of this loop turn: when the event loop itself was blocked past the timeout
        // (a long synchronous index build), an answer that arrived meanwhile still wins
        t = setTimeout(() => setImmediate(() => r(false)), WATCHDOG_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(t);
    if (answered === 'refused') {
      misses = 0;
      return;
    }
    if (answered) {
      if (misses >= WATCHDOG_MISSES || sockets.isUnavailable()) log.warn('database answers again');
      misses = 0;
      sockets.setUnavailable(false);
      return;
    }
    misses++;
    // the probe's connection is as stuck as the pool's: drop it, the next probe connects afresh
    const stuck = probe;
    probe = connectProbe(url);
    void stuck.end({ timeout: 0 }).catch(() => {});
    if (misses >= WATCHDOG_MISSES) {
      sockets.setUnavailable(true);
      const cut = sockets.cutAll();
      if (misses === WATCHDOG_MISSES || cut > 0) {
        log.error(
          { misses, connections_cut: cut, timeout_ms: WATCHDOG_TIMEOUT_MS },
          'database does not answer: its connections are cut, requests get 503 until it answers',
        );
      }
    }
  };
  const tick = () => {
    pass = once()
      .catch((err: unknown) => log.warn({ err }, 'database watchdog pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, WATCHDOG_INTERVAL_MS);
      });
  };
  timer = setTimeout(tick, WATCHDOG_INTERVAL_MS);
  return {
    unresponsive: () => misses >= WATCHDOG_MISSES || sockets.isUnavailable(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.race([pass, new Promise((r) => setTimeout(r, WATCHDOG_TIMEOUT_MS))]);
      await probe.end({ timeout: 0 }).catch(() => {});
    },
  };
}

function connectProbe(url: string) {
  // no reconnect backoff: each probe tries the server afresh
  return postgres(url, { max: 1, idle_timeout: 0, connect_timeout: 2, backoff: () => 0, onnotice: () => {} });
}
