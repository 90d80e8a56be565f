import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { ensureDashboardBuilt } from './dashboard-build.js';

type Json = Record<string, unknown>;

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  await ensureDashboardBuilt();
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t?.close();
});

async function get(path: string) {
  const res = await fetch(t.url + path);
  return { res, text: await res.text() };
}

/** A GET whose Accept-Encoding is the test's (fetch would send its own and decode the answer). */
function raw(path: string, acceptEncoding: string | undefined) {
  return new Promise<{ body: Buffer; encoding?: string; vary?: string }>((resolve, reject) => {
    const headers = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    const req = request(t.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          body: Buffer.concat(chunks),
          encoding: res.headers['content-encoding'],
          vary: res.headers.vary,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard static files', () => {
  it('serves index.html at /dashboard and for client routes, with no-cache and a strict CSP', async () => {
    for (const path of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/alerts',
      '/dashboard/alerts/abc',
      '/dashboard/admin/webhooks/x',
    ]) {
      const { res, text } = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(text).toContain('<div id="app">');
    }
  });

  it('serves hashed assets with their content type and a long immutable cache', async () => {
    const { text } = await get('/dashboard');
    const js = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(text)?.[1];
    const css = /href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(text)?.[1];
    expect(js && css).toBeTruthy();
    const a = await get(js!);
    expect(a.res.status).toBe(200);
    expect(a.res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(a.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const c = await get(css!);
    expect(c.res.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('sends assets brotli- or gzip-compressed to clients that accept it, the same bytes once decoded', async () => {
    const { text } = await get('/dashboard');
    const js = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(text)?.[1] ?? '';
    const plain = await raw(js, undefined);
    expect(plain.encoding).toBeUndefined();
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.5', 'gzip'],
      ['identity', undefined],
    ] as const) {
      const r = await raw(js, accept);
      expect([accept, r.encoding, r.vary]).toEqual([accept, encoding, 'accept-encoding']);
      const decoded =
        encoding === 'br' ? brotliDecompressSync(r.body) : encoding ? gunzipSync(r.body) : r.body;
      expect(decoded.equals(plain.body)).toBe(true);
      if (encoding) expect(r.body.length).toBeLessThan(plain.body.length / 2);
    }
  });

  it('answers 404 JSON for missing assets and never leaves dist/dashboard', async () => {
    for (const path of [
      '/dashboard/assets/nope.js',
      '/dashboard/assets/..%2F..%2F..%2Fpackage.json',
      '/dashboard/assets/%2E%2E%2Findex.html',
      '/dashboard/assets/..%5C..%5Cpackage.json',
    ]) {
      const { res, text } = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('not_found');
    }
    // deeper than the client routes: the router's own 404
    expect((await get('/dashboard/a/b/c/d')).res.status).toBe(404);
  });

  it('is GET only and stays out of /openapi.json', async () => {
    const r = await fetch(`${t.url}/dashboard`, { method: 'POST' });
    expect(r.status).toBe(405);
    const doc = await call<Json>(t.url, 'GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths as Json);
    expect(paths.some((p) => p.startsWith('/dashboard'))).toBe(false);
    expect(paths).toContain('/v1/dataset_versions');
  });
});

describe('GET /v1/dataset_versions (read-only, for the dashboard and API callers)', () => {
  it('lists versions and the active one to a secret key, without source URIs', async () => {
    const r = await call<Json>(t.url, 'GET', '/v1/dataset_versions', { token: tenant.secret_key });
    expect(r.status).toBe(200);
    const items = r.body.items as Json[];
    expect(items.length).toBeGreaterThan(0);
    expect((r.body.active as Json).status).toBe('active');
    expect(items[0]).toHaveProperty('formats', ['ofac_sdn_csv']);
    expect(items[0]).not.toHaveProperty('sources');
  });

  it('refuses a publishable key and no credential', async () => {
    expect((await call(t.url, 'GET', '/v1/dataset_versions', { token: tenant.publishable_key })).status).toBe(
      403,
    );
    expect((await call(t.url, 'GET', '/v1/dataset_versions')).status).toBe(401);
  });
});
