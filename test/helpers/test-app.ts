import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import postgres from 'postgres';
import { type App, createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import type { SourceSpec } from '../../server/datasets/dataset-store.js';
import { ingestVersion } from '../../server/datasets/lifecycle.js';
import type { Logger } from '../../server/log.js';
import { REPO_ROOT } from './shared-data.js';

export { call, type HttpResult } from './http-call.js';

import { call } from './http-call.js';

export const DEMO_SOURCE: SourceSpec = {
  format: 'ofac_sdn_csv',
  uri: join(REPO_ROOT, 'ingest', 'fixtures', 'demo'),
};
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestApp {
  app: App;
  url: string;
  adminToken: string;
  dbUrl: string;
  close(): Promise<void>;
}

/** A fresh database per test file, an app built by the factory, listening on a free port. */
export async function startTestApp(
  opts: {
    sources?: SourceSpec[] | null;
    env?: Record<string, string>;
    join?: TestApp;
    log?: Logger;
    /** listen on this port (default: any free port) */
    port?: number;
  } = {},
): Promise<TestApp> {
  if (opts.join) return joinTestApp(opts.join, opts.env);
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const dbName = `vs_test_${id}`;
  const s3Dir = join(tmpdir(), `vs-test-s3-${id}`);
  const ns = `vt${id}`.toLowerCase();
  const dbUrl = `${PG_BASE}/${dbName}`;
  const adminToken = `test-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: dbUrl,
    ADMIN_TOKEN: adminToken,
    MATCHER_THREADS: '1',
    // identity models load on the first image: most test apps never read one
    IDENTITY_PRELOAD: 'false',
    // isolation from every other test app on this machine: own S3 server, own NATS streams and KV bucket
    LOCAL_S3_PORT: '0',
    LOCAL_S3_DIR: s3Dir,
    NATS_NAMESPACE: ns,
    ...opts.env,
  });
  const app = await createApp(config, opts.log ? { log: opts.log } : {});
  const sources = opts.sources === undefined ? [DEMO_SOURCE] : opts.sources;
  if (sources) {
    await ingestVersion(app, { name: 'test', sources, promote: true });
    await app.loadActiveDataset();
  }
  await app.startBackground();
  const port = await app.listen('127.0.0.1', opts.port ?? 0);
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    adminToken,
    dbUrl,
    async close() {
      await dropNamespace(app, ns);
      await app.shutdown();
      await dropDatabase(dbName);
      await rm(s3Dir, { recursive: true, force: true });
    },
  };
}

/** A second process of the same deployment: same database, NATS namespace and S3. */
async function joinTestApp(first: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: first.dbUrl,
    ADMIN_TOKEN: first.adminToken,
    MATCHER_THREADS: '1',
    IDENTITY_PRELOAD: 'false',
    NATS_NAMESPACE: first.app.config.NATS_NAMESPACE,
    S3_ENDPOINT: first.app.s3Endpoint ?? '',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    ...env,
  });
  const app = await createApp(config);
  await app.loadActiveDataset();
  await app.startBackground();
  const port = await app.listen('127.0.0.1', 0);
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    adminToken: first.adminToken,
    dbUrl: first.dbUrl,
    close: () => app.shutdown(),
  };
}

async function dropNamespace(app: App, ns: string): Promise<void> {
  if (app.nats.isClosed()) return;
  const jsm = await jetstreamManager(app.nats);
  await jsm.streams.delete(`${ns}_jobs`).catch(() => {});
  await new Kvm(app.nats)
    .open(`${ns}_state`)
    .then((kv) => kv.destroy())
    .catch(() => {});
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export interface Tenant {
  id: string;
  secret_key: string;
  publishable_key: string;
}

export async function createTenant(t: TestApp, body: Record<string, unknown> = {}): Promise<Tenant> {
  const res = await call<Tenant>(t.url, 'POST', '/admin/tenants', {
    admin: t.adminToken,
    body: { name: 'Acme', ...body },
  });
  if (res.status !== 201) throw new Error(`tenant create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
