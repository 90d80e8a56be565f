import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { type Static, Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';

export const Env = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  HTTP_SERVER: Type.Union([Type.Literal('auto'), Type.Literal('uws'), Type.Literal('node')], {
    default: 'auto',
    description: 'auto: uWebSockets.js where its native binary loads (Node 20), node:http otherwise',
  }),
  DATABASE_URL: Type.String({
    pattern: '^postgres(ql)?://',
    default: 'postgres://postgres@127.0.0.1:5432/veriscreen',
  }),
  REDIS_URL: Type.String({ pattern: '^rediss?://', default: 'redis://127.0.0.1:6379' }),
  NATS_URL: Type.String({ pattern: '^(nats|tls)://', default: 'nats://127.0.0.1:4222' }),
  NATS_NAMESPACE: Type.String({
    pattern: '^[a-z0-9_-]{1,32}$',
    default: 'veriscreen',
    description:
      'prefix of every stream, subject, consumer and KV bucket: one per deployment sharing a NATS server',
  }),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  PII_HASH_KEY: Type.Optional(
    Type.String({ minLength: 16, description: 'HMAC key for email_hash and audit hashes' }),
  ),
  S3_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: 'S3-compatible endpoint; unset in development = embedded s3rver',
    }),
  ),
  S3_REGION: Type.String({ minLength: 1, default: 'us-east-1' }),
  S3_BUCKET: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', default: 'veriscreen' }),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  LOCAL_S3_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4569 }),
  LOCAL_S3_DIR: Type.String({ minLength: 1, default: '.tmp/s3' }),
  ROLE: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')], {
    default: 'all',
    description:
      'all: HTTP API and background workers; api: no job consumers; worker: job consumers (+ health)',
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Optional(
    Type.Boolean({ description: 'allow loopback/private webhook URLs (default: yes outside production)' }),
  ),
  WEBHOOK_RETRY_SCHEDULE_S: Type.String({
    pattern: '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$',
    default: '10,30,120,600,1800,3600,7200,14400,28800,28800',
    description: 'seconds before each retry of a failed webhook delivery (default ≈ 23.6 h in all)',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  TRUSTED_PROXIES: Type.String({
    default: '',
    description:
      'comma-separated IPs/CIDRs of reverse proxies whose X-Forwarded-For (and Veriscreen-IP-Risk) is believed',
  }),
  PK_RATE_LIMIT: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 60,
    description: 'publishable-key flow creations per key and client IP per window',
  }),
  PK_RATE_WINDOW_S: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  MATCHER_THREADS: Type.Integer({ minimum: 1, maximum: 256, default: availableParallelism() }),
  MATCHER_MAX_QUEUE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 2048 }),
  /** new flows waiting for their one statement (group commit) beyond this are refused with 503 overloaded */
  FLOW_WRITE_MAX_QUEUE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 2048 }),
  DATASET_RECONCILE_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 2000,
    description:
      'how often every process compares the dataset version it serves with the active one (and queues owed monitor deltas)',
  }),
  FEED_SCHEDULER_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description:
      'how often worker processes look for list feeds that are due (each is claimed by one process)',
  }),
  FEED_EXTRA_CA_FILE: Type.Optional(
    Type.String({ description: 'PEM file of extra CAs trusted for https:// feed downloads (a private CA)' }),
  ),
  FEED_MAX_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 8 * 1024 * 1024 * 1024,
    default: 1024 * 1024 * 1024,
    description: 'a feed download larger than this fails',
  }),
  DATASET_BUILD_BACKOFF_MS: Type.String({
    pattern: '^\\d+(,\\d+)*$',
    default: '2000,10000,30000,120000',
    description:
      'milliseconds before each retry of a dataset build that failed on a passing S3/Postgres error',
  }),
  IDENTITY_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description: 'Piscina threads reading documents and analysing faces (each loads the OCR and face models)',
  }),
  IDENTITY_MAX_QUEUE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 64,
    description: 'images waiting for an identity thread beyond this are refused (503 overloaded)',
  }),
  IDENTITY_QUALITY_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description:
      'threads giving capture-quality verdicts in each process that serves HTTP (barcode reader and face detector)',
  }),
  IDENTITY_PRELOAD: Type.Boolean({
    default: true,
    description:
      'load the identity models when the process starts (else on the first image, which then waits for them)',
  }),
  MAX_BODY_BYTES: Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, default: 1024 * 1024 }),
  SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 120_000,
    default: 0,
    description:
      'on SIGTERM, time readyz reports 503 while requests are still served (set ≥ the probe period)',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  SESSION_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 7 * 86_400,
    default: 8 * 3600,
    description: 'operator session lifetime (absolute, from login)',
  }),
  SESSION_COOKIE_SECURE: Type.Boolean({
    default: true,
    description: 'Secure flag on the session cookie; may be false only outside production (plain-http dev)',
  }),
  DASHBOARD_ORIGINS: Type.Optional(
    Type.String({
      description:
        'comma-separated origins allowed for cookie-authenticated writes (besides same-origin and the tenant allowlist)',
    }),
  ),
  LOGIN_MAX_FAILURES: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  LOGIN_LOCKOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
  DOCUMENT_MAX_BYTES: Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, default: 10 * 1024 * 1024 }),
  DOCUMENT_UPLOAD_TTL_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
  DOCUMENT_PREVIEW_TTL_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  CHIP_MAX_BYTES: Type.Integer({
    minimum: 16 * 1024,
    maximum: 16 * 1024 * 1024,
    default: 1024 * 1024,
    description:
      'largest chip submission (EF.SOD and every data group, decoded); its base64 body is capped to match',
  }),
  TRUST_STORE_MAX_BYTES: Type.Integer({
    minimum: 64 * 1024,
    maximum: 64 * 1024 * 1024,
    default: 16 * 1024 * 1024,
    description: 'largest master list, CSCA certificate or CRL loaded into the trust store (decoded)',
  }),
  DEMO: Type.Boolean({
    default: true,
    description: 'create a demo tenant and dataset on first start (development only)',
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^/?#]+/?$',
      description:
        'the origin applicants reach this service at (no path): verification links are built on it ' +
        '(unset: the Host of the request that mints the link)',
    }),
  ),
  DEPLOYMENT_ENVIRONMENT: Type.Optional(
    Type.Union([Type.Literal('development'), Type.Literal('staging'), Type.Literal('production')], {
      description:
        'which native apps this deployment serves (their `environments`): the .well-known association files and ' +
        'the link paths (default: production when NODE_ENV=production, else development)',
    }),
  ),
  APPLICANT_SESSION_IDLE_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 1800,
    description: 'an applicant session unused this long ends',
  }),
  APPLICANT_SESSION_MAX_SECONDS: Type.Integer({
    minimum: 300,
    maximum: 7 * 86_400,
    default: 4 * 3600,
    description: "an applicant session's absolute lifetime from the link's opening",
  }),
});

export type Config = Static<typeof Env> & {
  DEPLOYMENT_ENVIRONMENT: 'development' | 'staging' | 'production';
  ADMIN_TOKEN: string;
  PII_HASH_KEY: string;
  admin_token_generated: boolean;
};

export class ConfigError extends Error {}

/** Reads and validates the environment once; throws ConfigError with one line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(Env.properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  const check = ajv.compile(Env);
  if (!check(raw)) {
    const lines = (check.errors ?? []).map(
      (e) => `${e.instancePath.slice(1) || 'env'} ${e.message ?? 'is invalid'}`,
    );
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const cfg = { ...(raw as Static<typeof Env>), ...overrides };
  if (cfg.NODE_ENV === 'production' && !cfg.ADMIN_TOKEN) {
    throw new ConfigError('ADMIN_TOKEN is required when NODE_ENV=production (at least 16 characters)');
  }
  if (cfg.NODE_ENV === 'production' && !cfg.PII_HASH_KEY) {
    throw new ConfigError('PII_HASH_KEY is required when NODE_ENV=production (at least 16 characters)');
  }
  if (cfg.NODE_ENV === 'production' && !cfg.SESSION_COOKIE_SECURE) {
    throw new ConfigError('SESSION_COOKIE_SECURE=false is not allowed when NODE_ENV=production');
  }
  const generated = !cfg.ADMIN_TOKEN;
  return {
    ...cfg,
    ADMIN_TOKEN: cfg.ADMIN_TOKEN ?? `adm_${randomBytes(24).toString('base64url')}`,
    // outside production a fixed key keeps hashes stable across restarts; it protects nothing real
    PII_HASH_KEY: cfg.PII_HASH_KEY ?? 'veriscreen-development-pii-key',
    DEPLOYMENT_ENVIRONMENT:
      cfg.DEPLOYMENT_ENVIRONMENT ?? (cfg.NODE_ENV === 'production' ? 'production' : 'development'),
    admin_token_generated: generated,
  };
}
