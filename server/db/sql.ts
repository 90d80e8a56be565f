import { Socket as NetSocket, connect as netConnect, type Socket } from 'node:net';
import postgres from 'postgres';

/** The connection pool: the only thing that opens a transaction (`begin`) or closes connections (`end`). */
export type Pool = postgres.Sql;
/** An open transaction (the argument of `pool.begin`). */
export type Tx = postgres.TransactionSql;
/** Where a query runs: the pool or an open transaction. Functions that only read and write take this, so a caller
 * decides whether they join its transaction. */
export type Sql = Pool | Tx;

/** A jsonb parameter. postgres.js types `json()` with a JSONValue that rejects interfaces (no index signature):
 * every TypeBox static type is serialisable, so this is the one place that widens. */
export function json(sql: Sql, value: unknown): postgres.Parameter {
  return sql.json(value as postgres.JSONValue);
}

/** Runs fn atomically: in a new transaction on the pool, or as part of the caller's open transaction. */
export function transaction<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return 'savepoint' in sql ? fn(sql) : (sql.begin(fn) as Promise<T>);
}

/** The open sockets of a pool, so that a watchdog can cut them when the server stops answering (server/db/watchdog.ts):
 * a frozen server (SIGSTOP, a hung host, a partition that drops packets) keeps every TCP connection open, and a
 * query on one would wait forever.
 *
 * It is also the pool's gate while the server is known to be unavailable (a refused connection, or the watchdog's
 * probe going unanswered or refused): new connections then fail at once, without touching the network, and the
 * driver reconnects without a backoff, so every query queued in the pool is answered (503) at once instead of
 * waiting out a connect timeout or a reconnect backoff that grows to 20 s. The watchdog's probe, on a connection of
 * its own, opens the gate again as soon as the server answers (docs/decisions/operations.md, "A stopped Postgres
 * answers fast"). */
export class PoolSockets {
  readonly open = new Set<Socket>();
  private unavailable = false;
  /** postgres.js's `socket` option: a plain TCP (or Unix-socket) connection, remembered until it closes */
  readonly connect = (o: { host: string[]; port: number[]; path?: string | false }): Socket => {
    if (this.unavailable) return refusedSocket();
    const s = o.path ? netConnect(o.path) : netConnect(o.port[0] ?? 5432, o.host[0] ?? '127.0.0.1');
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.once('error', (err: NodeJS.ErrnoException) => {
      if (REFUSED.has(err.code ?? '')) this.unavailable = true;
    });
    return s;
  };
  /** postgres.js's `backoff` option (seconds before a closed connection reconnects): none while the server is
   * unavailable (the connection fails at once and answers the next queued query), else short and capped. */
  readonly backoff = (retries: number): number => (this.unavailable ? 0 : Math.min(0.05 * 2 ** retries, 0.5));
  /** Whether the gate is shut (set by a refused connection or the watchdog, cleared by the watchdog). */
  isUnavailable(): boolean {
    return this.unavailable;
  }
  setUnavailable(unavailable: boolean): void {
    this.unavailable = unavailable;
  }
  /** Resets every connection: their pending queries fail at once with CONNECTION_CLOSED (answered as 503
   * service_unavailable), and the server rolls back their open transactions when it next reads. */
  cutAll(): number {
    const n = this.open.size;
    for (const s of this.open) s.resetAndDestroy();
    this.open.clear();
    return n;
  }
}

/** Connection errors that say the server is not there (as opposed to a slow or reset connection). */
const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
export const isRefusal = (err: unknown): boolean =>
  REFUSED.has(String((err as { code?: unknown } | null)?.code ?? ''));

/** A socket that fails as a refused connection would, after the driver has attached its listeners. */
function refusedSocket(): Socket {
  const s = new NetSocket();
  setImmediate(() =>
    s.destroy(
      Object.assign(new Error('the database is unavailable (connections refused or unanswered)'), {
        code: 'ECONNREFUSED',
      }),
    ),
  );
  return s;
}

export function connectSql(url: string, max = 10, sockets?: PoolSockets): Pool {
  const options = {
    max,
    onnotice: () => {},
    idle_timeout: 30,
    // an unreachable database fails a request within seconds (503 service_unavailable), not after a long wait
    connect_timeout: 2,
    transform: { undefined: null },
    // postgres.js supports a socket factory but does not declare it in its types
    ...(sockets ? { socket: sockets.connect, backoff: sockets.backoff } : {}),
  };
  return postgres(url, options as postgres.Options<Record<string, never>>);
}

/** Creates the database named in url when it does not exist (a development convenience). */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!name) return;
  u.pathname = '/postgres';
  const admin = postgres(u.toString(), { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) {
      try {
        await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
      } catch (err) {
        // a concurrent process may have created it between our check and create
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}
