import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

describe('operator sign-in and login CSRF', () => {
  let t: TestApp;
  let tenant: Tenant;
  const password = 'correct horse battery staple';
  beforeAll(async () => {
    t = await startTestApp({ sources: null });
    tenant = await createTenant(t, { allowed_origins: ['https://app.acme.test'] });
    const op = await call(t.url, 'POST', '/v1/operators', {
      token: tenant.secret_key,
      body: { email: 'ana@acme.test', name: 'Ana', role: 'analyst', password },
    });
    expect(op.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = (origin?: string) =>
    call(t.url, 'POST', '/v1/sessions', {
      body: { tenant_id: tenant.id, email: 'ana@acme.test', password },
      ...(origin ? { headers: { origin } } : {}),
    });

  it('refuses a browser sign-in posted from a foreign site', async () => {
    const r = await login('https://evil.example');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: { code: 'csrf_origin_mismatch' } });
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it('accepts the dashboard’s own origin, a tenant-allowed origin and API clients without an Origin', async () => {
    for (const origin of [t.url, 'https://app.acme.test', undefined]) {
      const r = await login(origin);
      expect(r.status, String(origin)).toBe(201);
      expect(r.headers.get('set-cookie')).toMatch(/vs_session=/);
    }
  });
});
