import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BIN_DIR, PrivatePostgres } from '../helpers/private-services.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 (left over): a frozen Postgres (SIGSTOP: connections stay open, nothing answers) must not hold requests
// on already-open connections forever: they get 503 service_unavailable, and the service recovers when it thaws.

describe.skipIf(PG_BIN_DIR === undefined)('a frozen Postgres', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    pg = await PrivatePostgres.create();
    t = await startTestApp({ env: { DATABASE_URL: `${pg.url}/veriscreen` } });
    tenant = await createTenant(t);
  }, 120_000);
  afterAll(async () => {
    await pg?.thaw();
    await t?.close().catch(() => {});
    await pg?.destroy();
  });

  it('answers requests on open connections with 503 while frozen, changes nothing, and recovers after SIGCONT', async () => {
    // open connections in the pool first
    const warm = await Promise.all(
      Array.from({ length: 4 }, () => call(t.url, 'GET', '/v1/applicants', { token: tenant.secret_key })),
    );
    for (const r of warm) expect(r.status).toBe(200);

    await pg.freeze();
    try {
      const [list, flow] = await Promise.all([
        call(t.url, 'GET', '/v1/applicants', { token: tenant.secret_key }),
        call(t.url, 'POST', '/v1/flows', {
          token: tenant.secret_key,
          body: { mode: 'sync', applicant: { legal_name_first: 'Frozen', legal_name_last: 'Request' } },
        }),
      ]);
      for (const r of [list, flow]) {
        expect(r.status).toBe(503);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.body).toMatchObject({
          error: { code: 'service_unavailable', details: { dependency: 'database' } },
        });
      }
      // a request arriving while it stays frozen is answered too
      const later = await call(t.url, 'GET', '/v1/applicants', { token: tenant.secret_key });
      expect(later.status).toBe(503);
      // the process itself is alive; readiness says the database is not
      expect((await call(t.url, 'GET', '/livez')).status).toBe(200);
      const ready = await call(t.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
    } finally {
      await pg.thaw();
    }

    await waitFor('the API to answer again', async () => {
      const r = await call(t.url, 'GET', '/v1/applicants', { token: tenant.secret_key });
      return r.status === 200 ? true : undefined;
    });
    // the flow answered 503 was never stored
    const [n] = await t.app.sql<{ n: number }[]>`
      select count(*)::int as n from applicants where tenant_id = ${tenant.id}`;
    expect(n?.n).toBe(0);
  });
});
