import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { type App, createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { ingestVersion, type SourceSpec } from '../../server/datasets/dataset-store.js';
import { REPO_ROOT } from './shared-data.js';

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
  opts: { sources?: SourceSpec[] | null; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const dbName = `vs_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const dbUrl = `${PG_BASE}/${dbName}`;
  const adminToken = `test-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: dbUrl,
    ADMIN_TOKEN: adminToken,
    MATCHER_THREADS: '1',
    ...opts.env,
  });
  const app = await createApp(config);
  const sources = opts.sources === undefined ? [DEMO_SOURCE] : opts.sources;
  if (sources) {
    await ingestVersion(app.sql, { name: 'test', sources, promote: true });
    await app.loadActiveDataset();
  }
  const port = await app.listen('127.0.0.1', 0);
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    adminToken,
    dbUrl,
    async close() {
      await app.shutdown();
      await dropDatabase(dbName);
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  opts: {
    token?: string;
    admin?: string;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.admin) headers['x-admin-token'] = opts.admin;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T };
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
