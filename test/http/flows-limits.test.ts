import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

let t: TestApp;
let shop: Tenant;
const ORIGIN = 'https://shop.example';
const clean = { legal_name_first: 'Zephyrine', legal_name_last: 'Quorrelby-Atwater' };

beforeAll(async () => {
  t = await startTestApp({
    env: { TRUSTED_PROXIES: '127.0.0.1,::1', PK_RATE_LIMIT: '5', PK_RATE_WINDOW_S: '2' },
  });
  shop = await createTenant(t, { name: 'Shop', allowed_origins: [ORIGIN] });
});
afterAll(async () => {
  await t?.close();
});

const pkFlow = (tenant: Tenant, body: Json, headers: Record<string, string> = { origin: ORIGIN }) =>
  call<Json>(t.url, 'POST', '/v1/flows', { token: tenant.publishable_key, body, headers });

describe('publishable keys', () => {
  it('wrong or missing Origin → 403 origin_not_allowed', async () => {
    const client = { 'x-forwarded-for': '198.51.100.1' };
    const wrong = await pkFlow(
      shop,
      { mode: 'sync', applicant: clean },
      { ...client, origin: 'https://evil.example' },
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: { code: 'origin_not_allowed' } });
    const prefix = await pkFlow(
      shop,
      { mode: 'sync', applicant: clean },
      { ...client, origin: `${ORIGIN}.evil.example` },
    );
    expect(prefix.status).toBe(403);
    const missing = await pkFlow(shop, { mode: 'sync', applicant: clean }, client);
    expect(missing.status).toBe(403);
  });

  it('only sync checks-only flows; every read and other write → 403', async () => {
    const client = { origin: ORIGIN, 'x-forwarded-for': '198.51.100.2' };
    expect((await pkFlow(shop, { applicant: clean }, client)).status).toBe(403);
    await call(t.url, 'POST', '/v1/flow_templates', {
      token: shop.secret_key,
      body: {
        slug: 'docs',
        name: 'Docs',
        required_checks: ['document'],
        required_documents: [{ min: 1, side: 'front', types: ['passport'] }],
      },
    });
    const docs = await pkFlow(shop, { mode: 'sync', template_slug: 'docs', applicant: clean }, client);
    expect(docs.status).toBe(403);
    const ok = await pkFlow(shop, { mode: 'sync', applicant: clean }, client);
    expect(ok.status).toBe(201);
    expect(Object.keys(ok.body).sort()).toEqual(['id', 'reason_codes', 'result']);
    const id = ok.body.id as string;
    const reads: [string, string, unknown?][] = [
      ['GET', '/v1/flows'],
      ['GET', `/v1/flows/${id}`],
      ['GET', '/v1/checks'],
      ['GET', '/v1/check_policy'],
      ['PUT', '/v1/check_policy', { default_datasets: ['pep'] }],
      ['GET', '/v1/flow_templates'],
      ['POST', '/v1/flow_templates', { slug: 'x', name: 'x', required_checks: ['aml_screen'] }],
      ['GET', `/v1/alerts/${id}`],
      ['POST', `/v1/flows/${id}/process`],
      ['POST', `/v1/flows/${id}/decide`, { decision: 'REJECTED' }],
      ['POST', `/v1/flows/${id}/checks/aml_screen/rerun`],
    ];
    for (const [method, path, body] of reads) {
      const r = await call(t.url, method, path, {
        token: shop.publishable_key,
        headers: { origin: ORIGIN },
        ...(body ? { body } : {}),
      });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
  });

  it('rate limit per key and client IP: headers, 429 with Retry-After, then recovery', async () => {
    const tenant = await createTenant(t, { name: 'Limited', allowed_origins: [ORIGIN] });
    const from = (ip: string) => ({ origin: ORIGIN, 'x-forwarded-for': ip });
    const first = await pkFlow(tenant, { mode: 'sync', applicant: clean }, from('203.0.113.7'));
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe('"publishable";q=5;w=2');
    expect(first.headers.get('ratelimit')).toMatch(/^"publishable";r=4;t=\d+$/);
    for (let i = 0; i < 4; i++) {
      expect((await pkFlow(tenant, { mode: 'sync', applicant: clean }, from('203.0.113.7'))).status).toBe(
        201,
      );
    }
    const limited = await pkFlow(tenant, { mode: 'sync', applicant: clean }, from('203.0.113.7'));
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      error: { code: 'rate_limited', details: { limit: 5, window_seconds: 2 } },
    });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit')).toMatch(/^"publishable";r=0;t=\d+$/);
    // another client IP behind the same key has its own window
    expect((await pkFlow(tenant, { mode: 'sync', applicant: clean }, from('203.0.113.8'))).status).toBe(201);
    // recovery: after Retry-After the window has room again
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    const recovered = await pkFlow(tenant, { mode: 'sync', applicant: clean }, from('203.0.113.7'));
    expect(recovered.status).toBe(201);
  });
});

describe('credentials on the new endpoints', () => {
  it('missing or unknown key → 401 everywhere', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const endpoints: [string, string][] = [
      ['POST', `/v1/flows/${id}/process`],
      ['POST', `/v1/flows/${id}/decide`],
      ['POST', `/v1/flows/${id}/checks/aml_screen/rerun`],
      ['GET', '/v1/check_policy'],
      ['PUT', '/v1/check_policy'],
      ['GET', '/v1/flow_templates'],
      ['POST', '/v1/flow_templates'],
      ['GET', `/v1/flow_templates/${id}`],
      ['PATCH', `/v1/flow_templates/${id}`],
      ['GET', `/v1/alerts/${id}`],
    ];
    for (const [method, path] of endpoints) {
      const body = method === 'GET' ? {} : { body: {} };
      const none = await call(t.url, method, path, body);
      expect(none.status, `${method} ${path}`).toBe(401);
      const unknown = await call(t.url, method, path, { token: `tnk_${'B'.repeat(32)}`, ...body });
      expect(unknown.status, `${method} ${path}`).toBe(401);
    }
  });

  it('a tenant pending verification → 403 on process', async () => {
    const pending = await createTenant(t, { name: 'Pending', status: 'pending_verification' });
    const r = await call(t.url, 'POST', '/v1/flows/00000000-0000-4000-8000-000000000000/process', {
      token: pending.secret_key,
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: { code: 'tenant_pending_verification' } });
  });
});

describe('allowance (402)', () => {
  it('300 concurrent sync flows on a 250-unit allowance → exactly 250 × 201 and 50 × 402', async () => {
    const metered = await createTenant(t, { name: 'Metered', plan: 'self_serve', allowance: 250 });
    const results = await Promise.all(
      Array.from({ length: 300 }, () =>
        call<Json>(t.url, 'POST', '/v1/flows', {
          token: metered.secret_key,
          body: { mode: 'sync', applicant: clean },
        }),
      ),
    );
    const count = (s: number) => results.filter((r) => r.status === s).length;
    expect(count(201)).toBe(250);
    expect(count(402)).toBe(50);
    expect(results.find((r) => r.status === 402)?.body).toEqual({
      error: {
        code: 'allowance_exhausted',
        message: expect.any(String),
        details: { allowance: 250, consumed: 250 },
      },
    });
    const [row] = await t.app.sql<
      { consumed: number }[]
    >`select consumed from tenants where id = ${metered.id}`;
    expect(row?.consumed).toBe(250);
  });

  it('process and rerun each consume one unit; async creation does not', async () => {
    const metered = await createTenant(t, { name: 'Tiny', plan: 'self_serve', allowance: 2 });
    const post = (path: string, body?: unknown) =>
      call<Json>(t.url, 'POST', path, { token: metered.secret_key, ...(body ? { body } : {}) });
    const a = await post('/v1/flows', { applicant: clean });
    const b = await post('/v1/flows', { applicant: clean });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await post(`/v1/flows/${a.body.id}/process`)).status).toBe(202);
    expect((await post(`/v1/flows/${a.body.id}/checks/aml_screen/rerun`)).status).toBe(200);
    const refusedProcess = await post(`/v1/flows/${b.body.id}/process`);
    expect(refusedProcess.status).toBe(402);
    expect(refusedProcess.body).toMatchObject({ error: { details: { allowance: 2, consumed: 2 } } });
    // the refused process left the flow PENDING (the transaction rolled back)
    const still = await call<Json>(t.url, 'GET', `/v1/flows/${b.body.id}`, { token: metered.secret_key });
    expect(still.body.status).toBe('PENDING');
    expect((await post(`/v1/flows/${a.body.id}/checks/aml_screen/rerun`)).status).toBe(402);
    expect((await post('/v1/flows', { mode: 'sync', applicant: clean })).status).toBe(402);
  });
});
