import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PoolSockets } from '../../server/db/sql.js';
import { startDbWatchdog, WATCHDOG_INTERVAL_MS, WATCHDOG_TIMEOUT_MS } from '../../server/db/watchdog.js';
import { createLogger } from '../../server/log.js';

/*
 * The database watchdog shuts the pool's gate (every request 503 at once) when Postgres refuses connections, or
 * after WATCHDOG_MISSES probes in a row go unanswered. One probe that goes unanswered — a connect that times out on
 * a loaded machine — is not an outage: the gate must stay open, or a busy host answers 503 to requests the database
 * would have served (seen as "tenant create failed: 503 database" in the suite at load 27 on two cores).
 */
const PG = new URL(process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432');
const PG_HOST = PG.hostname;
const PG_PORT = Number(PG.port || 5432);

/** A TCP proxy to the shared Postgres whose first `silent` connections are accepted and never answered. */
async function proxy(silent: number): Promise<{ server: Server; url: string; held: Socket[] }> {
  const held: Socket[] = [];
  let seen = 0;
  const server = createServer((client) => {
    if (seen++ < silent) {
      held.push(client);
      client.on('error', () => {});
      return;
    }
    const upstream = connect(PG_PORT, PG_HOST);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, url: `postgres://postgres@127.0.0.1:${port}/postgres`, held };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Watches `url` for `ms`, sampling whether the pool's gate is shut. */
async function watch(url: string, ms: number): Promise<{ everShut: boolean; shutAtEnd: boolean }> {
  const sockets = new PoolSockets();
  const dog = startDbWatchdog(url, sockets, createLogger('silent'));
  let everShut = false;
  const sample = setInterval(() => {
    everShut ||= sockets.isUnavailable();
  }, 20);
  await new Promise((r) => setTimeout(r, ms));
  clearInterval(sample);
  const shutAtEnd = sockets.isUnavailable();
  await dog.stop();
  return { everShut, shutAtEnd };
}

describe('database watchdog', () => {
  it('keeps the gate open when one probe goes unanswered and the next one is answered', async () => {
    const p = await proxy(1);
    cleanup = async () => {
      for (const s of p.held) s.destroy();
      await new Promise((r) => p.server.close(r));
    };
    // first probe unanswered (~interval + timeout), the second answered: about two rounds, with room to spare
    const r = await watch(p.url, 3 * (WATCHDOG_INTERVAL_MS + WATCHDOG_TIMEOUT_MS));
    expect(r).toEqual({ everShut: false, shutAtEnd: false });
  }, 30_000);

  it('shuts the gate when the server refuses connections', async () => {
    const p = await proxy(0);
    const url = p.url;
    await new Promise((r) => p.server.close(r)); // nothing listens on that port any more
    const r = await watch(url, WATCHDOG_INTERVAL_MS + 1500);
    expect(r.shutAtEnd).toBe(true);
  }, 30_000);

  it('shuts the gate when probes go unanswered in a row (a frozen server)', async () => {
    const p = await proxy(1_000);
    cleanup = async () => {
      for (const s of p.held) s.destroy();
      await new Promise((r) => p.server.close(r));
    };
    const r = await watch(p.url, 3 * (WATCHDOG_INTERVAL_MS + WATCHDOG_TIMEOUT_MS) + 1000);
    expect(r.shutAtEnd).toBe(true);
  }, 30_000);
});
