import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, HAVE_CHROMIUM } from '../helpers/chromium.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 12 item 3: browsers can use publishable keys from the tenant's allowed origins, and only from those.

let t: TestApp;
let tenant: Tenant;
let pages: Server;
let allowed = ''; // http://127.0.0.1:<port>
let forbidden = ''; // http://localhost:<port>: the same page server, another origin

beforeAll(async () => {
  pages = createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>shop</title><p>checkout</p>');
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const { port } = pages.address() as AddressInfo;
  allowed = `http://127.0.0.1:${port}`;
  forbidden = `http://localhost:${port}`;
  t = await startTestApp();
  tenant = await createTenant(t, { allowed_origins: [allowed] });
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => pages?.close(r));
});

const preflight = (origin: string, method = 'POST', path = '/v1/flows') =>
  call(t.url, 'OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('CORS over HTTP', () => {
  it('answers a preflight from an allowed origin with that exact origin, never *', async () => {
    const r = await preflight(allowed);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(r.headers.get('vary')).toContain('Origin');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    expect(r.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(r.headers.get('access-control-allow-headers')).toContain('content-type');
  });

  it('refuses a preflight from an origin no tenant allows, and on endpoints publishable keys cannot call', async () => {
    const r = await preflight(forbidden);
    expect(r.status).toBe(403);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const other = await preflight(allowed, 'GET', '/v1/checks');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts RateLimit headers on 403 and 422 answers to a publishable key; CORS headers only for its origins', async () => {
    const wrongOrigin = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.publishable_key,
      headers: { origin: forbidden },
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(wrongOrigin.status).toBe(403);
    expect(wrongOrigin.headers.get('ratelimit')).toMatch(/^"publishable";r=\d+;t=\d+$/);
    expect(wrongOrigin.headers.get('ratelimit-policy')).toBeTruthy();
    expect(wrongOrigin.headers.get('access-control-allow-origin')).toBeNull();
    const invalid = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.publishable_key,
      headers: { origin: allowed },
      body: { mode: 'sync', applicant: { legal_name_last: 'Fennimore' }, colour: 'blue' },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('ratelimit')).toMatch(/^"publishable";r=\d+;t=\d+$/);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(invalid.headers.get('access-control-expose-headers')).toContain('ratelimit');
  });
});

describe.skipIf(!HAVE_CHROMIUM)('CORS from headless Chromium', () => {
  let ctx: BrowserContext;
  let profile: string;
  beforeAll(async () => {
    profile = await mkdtemp(join(tmpdir(), 'vs-cors-chromium-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
    });
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await rm(profile, { recursive: true, force: true });
  });

  /** Runs fetch(POST /v1/flows) with the publishable key in a page served from `origin`. */
  async function screenFrom(origin: string) {
    const page = await ctx.newPage();
    try {
      await page.goto(`${origin}/checkout`);
      return await page.evaluate(
        async ({ api, key }) => {
          try {
            const r = await fetch(`${api}/v1/flows`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                mode: 'sync',
                applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' },
              }),
            });
            return {
              status: r.status,
              body: (await r.json()) as { result?: string },
              ratelimit: r.headers.get('ratelimit'),
              requestId: r.headers.get('x-request-id'),
            };
          } catch (e) {
            return { error: String(e) };
          }
        },
        { api: t.url, key: tenant.publishable_key },
      );
    } finally {
      await page.close();
    }
  }

  it('a page on an allowed origin screens with the publishable key and reads the rate-limit headers', async () => {
    const r = await screenFrom(allowed);
    expect(r).toMatchObject({ status: 201, body: { result: 'approved' } });
    expect('ratelimit' in r && r.ratelimit).toMatch(/^"publishable";r=\d+;t=\d+$/);
    expect('requestId' in r && r.requestId).toBeTruthy();
  });

  it('a page on another origin is refused by the browser (no response is readable)', async () => {
    const before = await t.app.sql`select count(*)::int as n from flows where tenant_id = ${tenant.id}`;
    const r = await screenFrom(forbidden);
    expect(r).toMatchObject({ error: expect.stringContaining('Failed to fetch') });
    const after = await t.app.sql`select count(*)::int as n from flows where tenant_id = ${tenant.id}`;
    expect(after[0]?.n).toBe(before[0]?.n);
  });
});
