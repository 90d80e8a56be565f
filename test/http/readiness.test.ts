import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('before any dataset version is active', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sources: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is live but not ready, naming the matcher as the failing component', async () => {
    expect((await call(t.url, 'GET', '/livez')).status).toBe(200);
    const r = await call(t.url, 'GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'unavailable', database: 'ok', matcher: 'no_dataset_loaded' });
  });

  it('answers a sync screen with 503 matcher_unavailable, and does not charge the allowance', async () => {
    const tenant = await createTenant(t, { plan: 'self_serve', allowance: 5 });
    const r = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_last: 'Anyone' } },
    });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: { code: 'matcher_unavailable' } });
    const [row] = await t.app.sql`select consumed from tenants where id = ${tenant.id}`;
    expect(row?.consumed).toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('reports 503 on readyz during the grace period while still serving, then stops listening', async () => {
    const t = await startTestApp({ env: { SHUTDOWN_GRACE_MS: '400' } });
    try {
      expect((await call(t.url, 'GET', '/readyz')).status).toBe(200);
      const done = t.app.shutdown();
      const during = await call(t.url, 'GET', '/readyz');
      expect(during.status).toBe(503);
      expect(during.body).toMatchObject({ server: 'shutting_down' });
      expect((await call(t.url, 'GET', '/livez')).status).toBe(200);
      await done;
      // a new connection is refused; a kept-alive one gets 503 shutting_down with Connection: close
      const after = await fetch(`${t.url}/livez`).then(
        (r) => r.status,
        () => 'refused',
      );
      expect([503, 'refused']).toContain(after);
    } finally {
      await t.close().catch(() => {});
    }
  });
});
