import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import { alertRoutes } from './alerts/alert-routes.js';
import {
  APPLICANT_PAGE_TAG,
  type ApplicantPageRenderer,
  applicantPageRenderer,
  applicantPageRoutes,
} from './applicant-page/applicant-page-routes.js';
import { resumeErasures, resweepLateUploads, startErasureWorker } from './applicants/applicant-erasure.js';
import { applicantRoutes } from './applicants/applicant-routes.js';
import { centralAuditHook } from './audit/audit.js';
import { auditRoutes } from './audit/audit-routes.js';
import { applicantOrigins } from './auth/applicant-sessions.js';
import { createAuthenticator } from './auth/authenticate.js';
import { authorizeRoute } from './auth/authorize.js';
import type { SessionSettings } from './auth/sessions.js';
import { batchRoutes } from './batches/batch-routes.js';
import { startBatchWorker } from './batches/batch-worker.js';
import { type Bus, createBus, jobConsumerStats, type RunningWorker } from './bus/jetstream.js';
import { connectNats } from './bus/nats.js';
import { openStateKv, STATE_KEYS, type Watch, watchKey } from './bus/state-kv.js';
import { checkRoutes } from './checks/check-routes.js';
import { chipRoutes } from './chips/chip-routes.js';
import { startChipVerifyWorker } from './chips/chip-verification.js';
import type { Config } from './config.js';
import { DASHBOARD_TAG, dashboardRoutes } from './dashboard/dashboard-routes.js';
import { datasetOperatorRoutes } from './datasets/dataset-operator-routes.js';
import { datasetRoutes } from './datasets/dataset-routes.js';
import type { DatasetDeps } from './datasets/dataset-store.js';
import { feedRoutes } from './datasets/feed-routes.js';
import { startFeedWorkers } from './datasets/feeds.js';
import { DatasetActivation, startDatasetBuildWorker } from './datasets/lifecycle.js';
import { startGinPendingMerger } from './db/gin-pending.js';
import { migrate } from './db/migrate.js';
import { connectRedis } from './db/redis.js';
import { connectSql, ensureDatabase, type Pool, PoolSockets } from './db/sql.js';
import { startDbWatchdog } from './db/watchdog.js';
import { documentRoutes } from './documents/document-routes.js';
import type { DocumentDeps } from './documents/document-service.js';
import { startDocumentVerifyWorker } from './documents/document-verify-worker.js';
import { resumeFlowAfterDocuments } from './documents/flow-resume.js';
import { documentQualityRoutes } from './documents/quality-routes.js';
import type { Dependency } from './errors.js';
import { fatfRoutes } from './fatf/fatf-routes.js';
import { type FatfState, latestFatf } from './fatf/fatf-store.js';
import { parseTrustedProxies } from './flows/client-metadata.js';
import { flowRoutes } from './flows/flow-routes.js';
import type { FlowDeps } from './flows/flow-service.js';
import { startFlowWorker } from './flows/flow-worker.js';
import { healthRoutes } from './health/health-routes.js';
import { knownOrigins } from './http/cors.js';
import { buildOpenApi } from './http/openapi.js';
import { Router } from './http/router.js';
import { createHttpHandler, InFlight } from './http/server.js';
import { createHttpServer, type HttpServer } from './http/transport.js';
import { startDocumentAnalyzeWorker } from './identity/document-analysis.js';
import { IdentityPool } from './identity/identity-pool.js';
import { primeStepCounter } from './journey/funnel.js';
import {
  applicantSessionRoutes,
  funnelRoutes,
  linkPathFallback,
  linkRoutes,
  matchLinkPath,
  type OpenedPage,
} from './journey/journey-routes.js';
import { tenantAllowedOrigins } from './journey/journey-store.js';
import type { JourneyDeps } from './journey/session-service.js';
import { livenessRoutes } from './liveness/liveness-routes.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { startMonitorWorkers } from './monitors/monitor-jobs.js';
import { monitorRoutes } from './monitors/monitor-routes.js';
import { associationRoutes } from './native-apps/association-routes.js';
import { nativeAppRoutes } from './native-apps/native-app-routes.js';
import { operatorRoutes } from './operators/operator-routes.js';
import { ROOT } from './paths.js';
import { policyRoutes } from './policy/policy-routes.js';
import { MatcherPool } from './screening/matcher-pool.js';
import { sessionRoutes } from './sessions/session-routes.js';
import { type LocalS3, startLocalS3 } from './storage/local-s3.js';
import { allowBrowserUploads, createObjectStore, ensureBucket, type ObjectStore } from './storage/s3.js';
import { templateRoutes } from './templates/template-routes.js';
import { tenantRoutes } from './tenants/tenant-routes.js';
import { TrustPool } from './trust-store/trust-pool.js';
import { TrustAnchors } from './trust-store/trust-store.js';
import { trustStoreRoutes } from './trust-store/trust-store-routes.js';
import { startWebhookDeliveryWorker } from './webhooks/delivery-worker.js';
import { startOutboxRelay } from './webhooks/outbox-relay.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

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
  s3: 'Start MinIO (`docker compose up -d minio`) or unset S3_ENDPOINT in development to use the embedded s3rver.',
};

export async function dependency<T>(name: keyof typeof HINTS, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new DependencyError(name, HINTS[name], err);
  }
}

export interface App {
  config: Config;
  log: Logger;
  sql: Pool;
  redis: Redis;
  nats: NatsConnection;
  bus: Bus;
  kv: KV;
  store: ObjectStore;
  /** the S3 endpoint in use (undefined = AWS default) */
  s3Endpoint: string | undefined;
  pool: MatcherPool;
  metrics: Metrics;
  router: Router;
  /** the FATF listings this process applies (kept current by the state watcher) */
  fatf(): FatfState;
  /** loads the active dataset version into the matcher (no-op when none is active or it is loaded already) */
  loadActiveDataset(): Promise<string | undefined>;
  /** starts the state watchers (promotions, FATF) and, for roles all/worker, the job consumers */
  startBackground(): Promise<void>;
  /** listens on host:port (port 0 = any free port) and resolves the bound port */
  listen(host: string, port: number): Promise<number>;
  /** readyz → 503, grace period, stop accepting, drain requests and jobs, close pool, drain NATS, end SQL */
  shutdown(): Promise<void>;
}

/** In development an S3 endpoint is optional: the first process starts s3rver on LOCAL_S3_PORT, later ones reuse it. */
async function resolveS3Endpoint(
  config: Config,
  log: Logger,
): Promise<{ endpoint?: string; local?: LocalS3 }> {
  if (config.S3_ENDPOINT || config.NODE_ENV === 'production') {
    return config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {};
  }
  try {
    const local = await startLocalS3({
      directory: resolve(ROOT, config.LOCAL_S3_DIR),
      port: config.LOCAL_S3_PORT,
    });
    log.info({ endpoint: local.endpoint }, 'embedded S3 (s3rver) started for development');
    return { endpoint: local.endpoint, local };
  } catch (err) {
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    return { endpoint: `http://127.0.0.1:${config.LOCAL_S3_PORT}` };
  }
}

/** Connects to Postgres (created and migrated), Redis, NATS (bus and state KV) and S3 (bucket created), each failure
 * named with how to start the missing service. */
async function connectDependencies(config: Config, log: Logger) {
  await dependency('postgres', () => ensureDatabase(config.DATABASE_URL));
  const sockets = new PoolSockets();
  const sql = connectSql(config.DATABASE_URL, 10, sockets);
  await dependency('postgres', () => sql`select 1`);
  const applied = await migrate(sql);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const redis = await dependency('redis', () => connectRedis(config.REDIS_URL));
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
  const nats = await dependency('nats', () => connectNats(config.NATS_URL, `veriscreen-${config.ROLE}`));
  const bus = await dependency('nats', () => createBus(nats, config.NATS_NAMESPACE));
  const kv = await dependency('nats', () => openStateKv(nats, config.NATS_NAMESPACE));
  const s3 = await dependency('s3', () => resolveS3Endpoint(config, log));
  const isLocalS3 = !config.S3_ENDPOINT && config.NODE_ENV !== 'production';
  const store = createObjectStore({
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    ...(isLocalS3
      ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }
      : config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : {}),
  });
  await dependency('s3', () => ensureBucket(store));
  if (isLocalS3) await dependency('s3', () => allowBrowserUploads(store));
  // a server that stops answering without closing its connections: their queries are cut, requests get 503
  const watchdog = startDbWatchdog(config.DATABASE_URL, sockets, log);
  return { sql, redis, nats, bus, kv, s3, store, watchdog };
}

/** /readyz: each probe answers within READY_PROBE_MS, so it answers within a second whatever is down. Ready means
 * the process can serve its core traffic: not draining, Postgres answers, a dataset version is loaded. Redis and
 * NATS are needed by some routes only (publishable keys' rate limit, sign-in, processing and background work): while
 * either is down the process is `degraded`, still ready (200), so that a balancer does not take every API instance
 * out at once; `?strict=true` asks for every dependency (docs/decisions/operations.md, "Keys of /livez and /readyz"). */
function readinessProbe(d: {
  sql: Pool;
  pool: MatcherPool;
  redis: Redis;
  bus: Bus;
  draining: () => boolean;
}) {
  const { sql, pool, redis, bus } = d;
  const READY_PROBE_MS = 800;
  return {
    async check() {
      const components: Record<string, string> = {};
      let core = !d.draining();
      if (d.draining()) components.server = 'shutting_down';
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((r) => {
        timer = setTimeout(() => r('timeout'), READY_PROBE_MS);
      });
      components.database = await Promise.race([
        sql`select 1`.then(
          () => 'ok',
          () => 'unreachable',
        ),
        timeout,
      ]);
      clearTimeout(timer);
      if (components.database !== 'ok') core = false;
      components.matcher = pool.version ? 'ok' : 'no_dataset_loaded';
      if (pool.version) components.dataset_version = pool.version;
      else core = false;
      components.redis = redis.status === 'ready' ? 'ok' : redis.status;
      components.nats = bus.connection.describe();
      const all = core && redis.status === 'ready' && bus.connection.up();
      return { ready: core, all, components };
    },
  };
}

/** What the feature services are built from (the settings they read from config, and the connections). */
function serviceDeps(
  config: Config,
  c: {
    sql: Pool;
    redis: Redis;
    bus: Bus;
    log: Logger;
    store: ObjectStore;
    pool: MatcherPool;
    metrics: Metrics;
    fatf: () => FatfState;
  },
) {
  const { sql, redis, bus, log, store, pool, metrics } = c;
  const webhookDeps = {
    sql,
    metrics,
    bus,
    log,
    keyMaterial: config.PII_HASH_KEY,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? config.NODE_ENV !== 'production',
    schedule_s: config.WEBHOOK_RETRY_SCHEDULE_S.split(',').map(Number),
    timeout_ms: config.WEBHOOK_TIMEOUT_MS,
  };

  const flowDeps: FlowDeps = {
    sql,
    pool,
    metrics,
    redis,
    bus,
    fatf: c.fatf,
    piiKey: config.PII_HASH_KEY,
    trustedProxies: parseTrustedProxies(config.TRUSTED_PROXIES),
    writeMaxQueue: config.FLOW_WRITE_MAX_QUEUE,
  };

  const sessionSettings: SessionSettings = {
    ttlSeconds: config.SESSION_TTL_SECONDS,
    secureCookie: config.SESSION_COOKIE_SECURE,
    dashboardOrigins: (config.DASHBOARD_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  };
  const documentDeps: DocumentDeps = {
    sql,
    store,
    bus,
    log,
    maxBytes: config.DOCUMENT_MAX_BYTES,
    uploadTtlSeconds: config.DOCUMENT_UPLOAD_TTL_SECONDS,
    previewTtlSeconds: config.DOCUMENT_PREVIEW_TTL_SECONDS,
    resumeFlow: resumeFlowAfterDocuments(flowDeps),
  };
  // the ePassport trust store: its uploads are read on their own thread, its anchors cached by version
  const trustStoreDeps = {
    sql,
    pool: new TrustPool(),
    anchors: new TrustAnchors(sql),
    maxBytes: config.TRUST_STORE_MAX_BYTES,
  };
  const journeyDeps: JourneyDeps = {
    sql,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    environment: config.DEPLOYMENT_ENVIRONMENT,
    production: config.NODE_ENV === 'production',
    maxSeconds: config.APPLICANT_SESSION_MAX_SECONDS,
    idleSeconds: config.APPLICANT_SESSION_IDLE_SECONDS,
    secureCookie: config.SESSION_COOKIE_SECURE,
    metrics,
    flowDeps,
    applicantDeps: {
      sql,
      bus,
      log,
      piiKey: config.PII_HASH_KEY,
      resumeFlow: resumeFlowAfterDocuments(flowDeps),
    },
  };
  return { webhookDeps, flowDeps, sessionSettings, documentDeps, trustStoreDeps, journeyDeps };
}

/** Every route of the API, by feature. */
function apiRoutes(d: {
  config: Config;
  log: Logger;
  sql: Pool;
  redis: Redis;
  bus: Bus;
  kv: KV;
  metrics: Metrics;
  readiness: ReturnType<typeof readinessProbe>;
  openapi: () => unknown;
  datasetDeps: DatasetDeps;
  refreshFatf: (version: number) => Promise<void>;
  flowDeps: FlowDeps;
  documentDeps: DocumentDeps;
  webhookDeps: Parameters<typeof webhookRoutes>[0];
  sessionSettings: SessionSettings;
  trustStoreDeps: Parameters<typeof trustStoreRoutes>[0];
  journeyDeps: JourneyDeps;
  /** the S3 endpoint in use (undefined = AWS): document previews come from there */
  s3Endpoint: string | undefined;
  /** the applicant's hosted page, and the same page as an opened link's answer */
  applicantPage: ApplicantPageRenderer;
  openedPage: OpenedPage;
  /** capture-quality verdicts (threads of role `quality`) */
  qualityPool: IdentityPool;
}) {
  const { config, log, sql, redis, bus, kv, metrics, readiness, openapi, datasetDeps, refreshFatf } = d;
  const { flowDeps, documentDeps, webhookDeps, sessionSettings, journeyDeps } = d;
  return [
    ...healthRoutes(readiness, metrics, openapi),
    ...tenantRoutes(sql),
    ...datasetRoutes({ ...datasetDeps, kv, bus, log }),
    ...datasetOperatorRoutes(sql),
    ...feedRoutes(sql),
    ...fatfRoutes({ sql, kv, onChange: refreshFatf }),
    ...trustStoreRoutes(d.trustStoreDeps),
    ...flowRoutes({
      ...flowDeps,
      rateLimit: { limit: config.PK_RATE_LIMIT, window_s: config.PK_RATE_WINDOW_S },
    }),
    ...checkRoutes(sql),
    ...templateRoutes(sql),
    ...policyRoutes(sql),
    ...alertRoutes(sql),
    ...applicantRoutes(journeyDeps.applicantDeps),
    ...documentRoutes(documentDeps),
    ...chipRoutes({
      sql,
      bus,
      store: documentDeps.store,
      maxBytes: config.CHIP_MAX_BYTES,
      previewTtlSeconds: config.DOCUMENT_PREVIEW_TTL_SECONDS,
    }),
    ...documentQualityRoutes({
      sql,
      store: documentDeps.store,
      log,
      maxBytes: config.DOCUMENT_MAX_BYTES,
      measure: (image, look) => d.qualityPool.quality(image, look),
    }),
    ...livenessRoutes(sql),
    ...operatorRoutes(sql),
    ...sessionRoutes({
      sql,
      redis,
      ns: config.NATS_NAMESPACE,
      piiKey: config.PII_HASH_KEY,
      settings: sessionSettings,
      maxFailures: config.LOGIN_MAX_FAILURES,
      lockoutSeconds: config.LOGIN_LOCKOUT_SECONDS,
    }),
    ...nativeAppRoutes(sql),
    ...auditRoutes(sql),
    ...webhookRoutes(webhookDeps),
    ...batchRoutes({ sql, bus }),
    ...monitorRoutes({ sql, bus }),
    ...dashboardRoutes({
      // document previews are presigned GETs on the object store: the dashboard shows them as images
      imageOrigins: objectStoreOrigins(config, d.s3Endpoint),
    }),
    ...applicantPageRoutes({
      render: d.applicantPage,
      embedOrigins: applicantOrigins(sql, config.APPLICANT_SESSION_IDLE_SECONDS),
    }),
    ...linkRoutes(journeyDeps, d.openedPage),
    ...associationRoutes({ sql, environment: config.DEPLOYMENT_ENVIRONMENT }),
    ...applicantSessionRoutes(journeyDeps),
    ...funnelRoutes(journeyDeps),
  ];
}

/** The origins of the object store's presigned URLs (pages show or upload to them). */
function objectStoreOrigins(config: Config, s3Endpoint: string | undefined): string[] {
  if (s3Endpoint) return [new URL(s3Endpoint).origin];
  return [
    `https://${config.S3_BUCKET}.s3.${config.S3_REGION}.amazonaws.com`,
    `https://s3.${config.S3_REGION}.amazonaws.com`,
  ];
}

/** Starts the job consumers of a worker process (ROLE all or worker) into `started` (stopped on shutdown, also
 * when a later one fails to start). */
async function startWorkers(
  d: {
    config: Config;
    log: Logger;
    datasetDeps: DatasetDeps;
    kv: KV;
    bus: Bus;
    flowDeps: FlowDeps;
    documentDeps: DocumentDeps;
    webhookDeps: Parameters<typeof startWebhookDeliveryWorker>[0];
    pool: MatcherPool;
    metrics: Metrics;
    trustAnchors: TrustAnchors;
  },
  started: RunningWorker[],
): Promise<void> {
  const { config, log, datasetDeps, kv, bus, flowDeps, documentDeps, webhookDeps, pool, metrics } = d;
  const { sql, store } = datasetDeps;
  started.push(
    await startDatasetBuildWorker({
      ...datasetDeps,
      bus,
      log,
      metrics,
      backoff_ms: config.DATASET_BUILD_BACKOFF_MS.split(',').map(Number),
    }),
  );
  started.push(
    await startFeedWorkers(
      {
        ...datasetDeps,
        kv,
        bus,
        log,
        extraCa: config.FEED_EXTRA_CA_FILE ? readFileSync(config.FEED_EXTRA_CA_FILE, 'utf8') : undefined,
        maxBytes: config.FEED_MAX_BYTES,
      },
      config.FEED_SCHEDULER_MS,
    ),
  );
  started.push(await startFlowWorker({ ...flowDeps, log }));
  started.push(await startDocumentVerifyWorker(documentDeps));
  // identity threads (OCR + face models): only in processes that run jobs
  const identityPool = new IdentityPool(config.IDENTITY_THREADS, config.IDENTITY_MAX_QUEUE, log);
  if (config.IDENTITY_PRELOAD) identityPool.start();
  started.push({ stop: () => identityPool.close() });
  started.push(
    await startDocumentAnalyzeWorker({
      sql,
      store,
      bus,
      log,
      pool: identityPool,
      maxBytes: config.DOCUMENT_MAX_BYTES,
      concurrency: config.IDENTITY_THREADS,
      onAnalysed: (tenantId, flowId) => resumeFlowAfterDocuments(flowDeps)(tenantId, flowId),
    }),
  );
  started.push(
    await startChipVerifyWorker({
      sql,
      store,
      bus,
      log,
      pool: identityPool,
      anchors: d.trustAnchors,
      concurrency: config.IDENTITY_THREADS,
      onVerified: (tenantId, flowId) => resumeFlowAfterDocuments(flowDeps)(tenantId, flowId),
    }),
  );
  const erasureDeps = { sql, store, bus, log };
  started.push(await startErasureWorker(erasureDeps));
  const resumed = await resumeErasures(erasureDeps);
  if (resumed) log.info({ resumed }, 'scheduled applicant erasures re-queued');
  const resweep = setInterval(() => {
    resweepLateUploads(erasureDeps, config.DOCUMENT_UPLOAD_TTL_SECONDS).catch((err: unknown) =>
      log.warn({ err }, 'late-upload resweep failed'),
    );
  }, 60_000);
  started.push({ stop: async () => clearInterval(resweep) });
  started.push(await startWebhookDeliveryWorker(webhookDeps));
  started.push(await startBatchWorker({ sql, bus, pool, metrics, log }));
  started.push(await startMonitorWorkers({ sql, bus, pool, metrics, log }));
  started.push(startOutboxRelay(webhookDeps));
  started.push(startGinPendingMerger(sql, log));
}

/** The metrics registry with its sources: the matcher pool's queue, the job consumers and the outbox's backlog. */
function appMetrics(pool: MatcherPool, bus: Bus, sql: Pool): Metrics {
  const metrics = createMetrics(
    () => pool.queueSize,
    () => pool.tasksSubmitted,
  );
  metrics.sources.jobs = () => jobConsumerStats(bus);
  metrics.sources.outbox = async () => {
    const [o] = await sql<{ pending: number; oldest_age_seconds: number }[]>`
      select count(*)::int as pending,
             coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_age_seconds
      from outbox_rows where delivered_at is null`;
    return o ?? { pending: 0, oldest_age_seconds: 0 };
  };
  return metrics;
}

/** The router of every route, with the link-path fallback, and the OpenAPI document built from it (served by one of
 * its routes). */
function apiRouter(
  d: Omit<Parameters<typeof apiRoutes>[0], 'openapi' | 'applicantPage' | 'openedPage'>,
): Router {
  const router = new Router();
  let openapiDoc: unknown;
  // the applicant's captures are presigned PUTs to the object store
  const applicantPage = applicantPageRenderer({ uploadOrigins: objectStoreOrigins(d.config, d.s3Endpoint) });
  const openedPage: OpenedPage = async (tenantId) =>
    applicantPage(await tenantAllowedOrigins(d.sql, tenantId));
  for (const r of apiRoutes({ ...d, applicantPage, openedPage, openapi: () => openapiDoc })) router.add(r);
  // verification links under any tenant's tenant_path (native apps): when no route matches the path at all
  router.addFallback(linkPathFallback(d.journeyDeps, openedPage), matchLinkPath);
  // the dashboard's and the applicant's static pages are not part of the API contract
  openapiDoc = buildOpenApi(
    router.routes.filter((r) => r.spec.tag !== DASHBOARD_TAG && r.spec.tag !== APPLICANT_PAGE_TAG),
    VERSION,
  );
  return router;
}

/** The dependencies known to be disconnected now: an unexpected error meanwhile is answered as their outage. */
function downDependencies(watchdog: { unresponsive(): boolean }, redis: Redis, bus: Bus): () => Dependency[] {
  return () => [
    ...(watchdog.unresponsive() ? (['database'] as const) : []),
    ...(redis.status === 'ready' ? [] : (['redis'] as const)),
    ...(bus.connection.up() ? [] : (['nats'] as const)),
  ];
}

/** The request path of the API (server/http/server.ts) with this app's authentication, audit and CORS origins. */
function appHandler(
  d: {
    config: Config;
    log: Logger;
    sql: Pool;
    router: Router;
    metrics: Metrics;
    sessionSettings: SessionSettings;
    down: () => Dependency[];
  },
  accepting: () => boolean,
  inflight: InFlight,
): ReturnType<typeof createHttpHandler> {
  const { config, log, sql } = d;
  return createHttpHandler(
    {
      router: d.router,
      log,
      metrics: d.metrics,
      maxBodyBytes: config.MAX_BODY_BYTES,
      authenticate: createAuthenticator(sql, config.ADMIN_TOKEN, d.sessionSettings, {
        idleSeconds: config.APPLICANT_SESSION_IDLE_SECONDS,
      }),
      authorize: authorizeRoute,
      audit: centralAuditHook(sql, log),
      accepting,
      down: d.down,
      knownOrigin: knownOrigins((origin) => isKnownOrigin(sql, origin)),
    },
    inflight,
  );
}

/** Whether an Origin is allowed by some active tenant (CORS preflights before the caller is known). */
async function isKnownOrigin(sql: Pool, origin: string): Promise<boolean> {
  const [row] = await sql<{ known: boolean }[]>`
    select exists (select 1 from tenants where status = 'active' and ${origin} = any (allowed_origins)) as known`;
  return row?.known ?? false;
}

/** The last step of a shutdown: the connections connectDependencies opened, NATS drained first. */
async function closeConnections(
  c: Pick<
    Awaited<ReturnType<typeof connectDependencies>>,
    'nats' | 'redis' | 'watchdog' | 'sql' | 'store' | 's3'
  >,
): Promise<void> {
  await c.nats.drain().catch(() => {});
  c.redis.disconnect();
  await c.watchdog.stop();
  await c.sql.end({ timeout: 5 });
  c.store.close();
  await c.s3.local?.close().catch(() => {});
}

/** Builds everything (connections, migrations, routes) and never listens. */
export async function createApp(config: Config, opts: { log?: Logger } = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const { sql, redis, nats, bus, kv, s3, store, watchdog } = await connectDependencies(config, log);
  const datasetDeps: DatasetDeps = { sql, store };

  const pool = new MatcherPool(config.MATCHER_THREADS, config.MATCHER_MAX_QUEUE, log);
  const metrics = appMetrics(pool, bus, sql);
  let fatfState: FatfState = await latestFatf(sql);
  const refreshFatf = async (version: number) => {
    if (version > fatfState.version) fatfState = await latestFatf(sql);
  };

  // draining: readyz says 503 so balancers stop sending; accepting: false once the listener is closed
  let draining = false;
  let accepting = true;

  const datasets = new DatasetActivation({ ...datasetDeps, pool, metrics, log });

  const { webhookDeps, flowDeps, sessionSettings, documentDeps, trustStoreDeps, journeyDeps } = serviceDeps(
    config,
    {
      sql,
      redis,
      bus,
      log,
      store,
      pool,
      metrics,
      fatf: () => fatfState,
    },
  );

  // capture-quality verdicts: threads of their own in every process that serves HTTP
  const qualityPool = new IdentityPool(
    config.IDENTITY_QUALITY_THREADS,
    config.IDENTITY_MAX_QUEUE,
    log,
    'quality',
  );
  if (config.IDENTITY_PRELOAD) qualityPool.start();

  const readiness = readinessProbe({ sql, pool, redis, bus, draining: () => draining });
  const router = apiRouter({
    config,
    log,
    sql,
    redis,
    bus,
    kv,
    metrics,
    readiness,
    datasetDeps,
    refreshFatf,
    flowDeps,
    documentDeps,
    webhookDeps,
    sessionSettings,
    trustStoreDeps,
    journeyDeps,
    s3Endpoint: s3.endpoint,
    qualityPool,
  });
  await primeStepCounter(sql, metrics);

  const inflight = new InFlight();
  const down = downDependencies(watchdog, redis, bus);
  const handle = appHandler(
    { config, log, sql, router, metrics, sessionSettings, down },
    () => accepting,
    inflight,
  );
  let http: HttpServer | undefined;
  const watches: Watch[] = [];
  const workers: RunningWorker[] = [];

  const app: App = {
    config,
    log,
    sql,
    redis,
    nats,
    bus,
    kv,
    store,
    s3Endpoint: s3.endpoint,
    pool,
    metrics,
    router,
    fatf: () => fatfState,
    loadActiveDataset: () => datasets.loadActive(),
    async startBackground() {
      await datasets.start({
        kv,
        bus,
        interval_ms: config.DATASET_RECONCILE_MS,
        owesJobs: config.ROLE !== 'api',
      });
      watches.push(await watchKey(kv, STATE_KEYS.fatf_version, log, async (v) => refreshFatf(Number(v))));
      if (config.ROLE !== 'api') {
        await startWorkers(
          {
            config,
            log,
            datasetDeps,
            kv,
            bus,
            flowDeps,
            documentDeps,
            webhookDeps,
            pool,
            metrics,
            trustAnchors: trustStoreDeps.anchors,
          },
          workers,
        );
      }
    },
    async listen(host, port) {
      http = await createHttpServer(config.HTTP_SERVER, handle);
      const bound = await http.listen(host, port);
      log.info({ http_server: http.name, node: process.version, port: bound }, `HTTP served by ${http.name}`);
      return bound;
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
    http?.close();
    http = undefined;
    for (const w of watches) w.stop();
    await Promise.all(workers.map((w) => w.stop().catch(() => {})));
    await Promise.race([inflight.idle(), new Promise((r) => setTimeout(r, 10_000))]);
    await datasets.stop();
    await pool.close();
    await qualityPool.close();
    await trustStoreDeps.pool.close();
    await closeConnections({ nats, redis, watchdog, sql, store, s3 });
  }
  return app;
}
