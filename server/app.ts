import uWS from 'uWebSockets.js';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import { createAuthenticator } from './auth/authenticate.js';
import { connectNats } from './bus/nats.js';
import { checkRoutes } from './checks/check-routes.js';
import type { Config } from './config.js';
import { activeVersion, buildVersionIndex } from './datasets/dataset-store.js';
import { migrate } from './db/migrate.js';
import { connectRedis } from './db/redis.js';
import { connectSql, ensureDatabase, type Sql } from './db/sql.js';
import { flowRoutes } from './flows/flow-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { buildOpenApi } from './http/openapi.js';
import { Router } from './http/router.js';
import { createHttpApp, InFlight } from './http/server.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { MatcherPool } from './screening/matcher-pool.js';
import { tenantRoutes } from './tenants/tenant-routes.js';

export const VERSION = '0.1.0';

export class DependencyError extends Error {
  override name = 'DependencyError';
  constructor(
    readonly dependency: string,
    readonly hint: string,
    cause: unknown,
  ) {
    super(`${dependency} is unreachable (${(cause as Error).message ?? String(cause)}). ${hint}`);
  }
}

const HINTS = {
  postgres: 'Start it: `docker compose up -d postgres` or `bash scripts/services.sh`; or set DATABASE_URL.',
  redis: 'Start it: `docker compose up -d redis` or `bash scripts/services.sh`; or set REDIS_URL.',
  nats: 'Start it (JetStream on): `docker compose up -d nats` or `bash scripts/services.sh`; or set NATS_URL.',
};

async function dependency<T>(name: keyof typeof HINTS, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new DependencyError(name, HINTS[name], err);
  }
}

export interface App {
  config: Config;
  log: Logger;
  sql: Sql;
  redis: Redis;
  nats: NatsConnection;
  pool: MatcherPool;
  metrics: Metrics;
  router: Router;
  /** loads the active dataset version into the matcher (no-op when none is active) */
  loadActiveDataset(): Promise<string | undefined>;
  /** listens on host:port (port 0 = any free port) and resolves the bound port */
  listen(host: string, port: number): Promise<number>;
  /** readyz → 503, stop accepting, drain in-flight requests, close pool, drain NATS, end SQL */
  shutdown(): Promise<void>;
}

/** Builds everything (connections, migrations, routes) and never listens. */
export async function createApp(config: Config, opts: { log?: Logger } = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  await dependency('postgres', () => ensureDatabase(config.DATABASE_URL));
  const sql = connectSql(config.DATABASE_URL);
  await dependency('postgres', () => sql`select 1`);
  const applied = await migrate(sql);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const redis = await dependency('redis', () => connectRedis(config.REDIS_URL));
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
  const nats = await dependency('nats', () => connectNats(config.NATS_URL, 'veriscreen-api'));

  const pool = new MatcherPool(config.MATCHER_THREADS, config.MATCHER_MAX_QUEUE, log);
  const metrics = createMetrics(() => pool.queueSize);
  // draining: readyz says 503 so balancers stop sending; accepting: false once the listener is closed
  let draining = false;
  let accepting = true;

  const router = new Router();
  let openapiDoc: unknown;
  const readiness = {
    async check() {
      const components: Record<string, string> = {};
      let ready = !draining;
      if (draining) components.server = 'shutting_down';
      try {
        await sql`select 1`;
        components.database = 'ok';
      } catch {
        components.database = 'unreachable';
        ready = false;
      }
      components.matcher = pool.version ? 'ok' : 'no_dataset_loaded';
      if (pool.version) components.dataset_version = pool.version;
      else ready = false;
      components.redis = redis.status === 'ready' ? 'ok' : redis.status;
      if (redis.status !== 'ready') ready = false;
      components.nats = nats.isClosed() ? 'closed' : 'ok';
      if (nats.isClosed()) ready = false;
      return { ready, components };
    },
  };
  const routes = [
    ...healthRoutes(readiness, metrics, () => openapiDoc),
    ...tenantRoutes(sql),
    ...flowRoutes({ sql, pool, metrics, piiKey: config.PII_HASH_KEY }),
    ...checkRoutes(sql),
  ];
  for (const r of routes) router.add(r);
  openapiDoc = buildOpenApi(router.routes, VERSION);

  const inflight = new InFlight();
  const uws = createHttpApp(
    {
      router,
      log,
      metrics,
      maxBodyBytes: config.MAX_BODY_BYTES,
      authenticate: createAuthenticator(sql, config.ADMIN_TOKEN),
      accepting: () => accepting,
    },
    inflight,
  );
  let listenSocket: uWS.us_listen_socket | undefined;

  const app: App = {
    config,
    log,
    sql,
    redis,
    nats,
    pool,
    metrics,
    router,
    async loadActiveDataset() {
      const v = await activeVersion(sql);
      if (!v) {
        log.warn('no active dataset version: screening is unavailable until one is promoted');
        return undefined;
      }
      if (pool.version === v.id) return v.id;
      const started = performance.now();
      const index = await buildVersionIndex(sql, v.id);
      await pool.load(index);
      metrics.activeVersion.reset();
      metrics.activeVersion.set({ version: v.id }, 1);
      log.info(
        { version: v.id, name: v.name, ms: Math.round(performance.now() - started) },
        'dataset version active',
      );
      return v.id;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        uws.listen(host, port, (socket) => {
          if (!socket) {
            reject(new Error(`cannot listen on ${host}:${port} (in use?)`));
            return;
          }
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket));
        });
      });
    },
    shutdown() {
      shutdownOnce ??= stop();
      return shutdownOnce;
    },
  };
  let shutdownOnce: Promise<void> | undefined;
  async function stop(): Promise<void> {
    draining = true;
    if (config.SHUTDOWN_GRACE_MS > 0) await new Promise((r) => setTimeout(r, config.SHUTDOWN_GRACE_MS));
    accepting = false;
    if (listenSocket) {
      uWS.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    }
    await Promise.race([inflight.idle(), new Promise((r) => setTimeout(r, 10_000))]);
    await pool.close();
    await nats.drain().catch(() => {});
    redis.disconnect();
    await sql.end({ timeout: 5 });
  }
  return app;
}
