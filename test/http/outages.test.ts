import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NATS_BIN,
  PG_BIN_DIR,
  PrivateNats,
  PrivatePostgres,
  PrivateRedis,
  REDIS_BIN,
} from '../helpers/private-services.js';
import {
  call,
  createTenant,
  type HttpResult,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 items 6 and 7: outages of Postgres, Redis and NATS (private instances started here) answer 503 with
// Retry-After and the documented error body; /readyz names the failing component; nothing is charged for a request
// that stores nothing; an Idempotency-Key retry after a failure gets the first outcome, never a second batch.

const HAVE_BINARIES = existsSync(NATS_BIN) && existsSync(REDIS_BIN) && PG_BIN_DIR !== undefined;
const ORIGIN = 'https://shop.example';

/** Every outage answer: 503, Retry-After, the error envelope naming the dependency. The durations are logged. */
function expectOutage(r: HttpResult, dependency: string) {
  expect(r.status).toBe(503);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(r.body).toMatchObject({ error: { code: 'service_unavailable', details: { dependency } } });
}

const timed = async <T>(label: string, p: Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await p;
  } finally {
    console.log(`[outage] ${label}: ${Math.round(performance.now() - started)} ms`);
  }
};

describe.skipIf(!HAVE_BINARIES)('outages of private Postgres, Redis and NATS', () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let nats: PrivateNats;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    [pg, redis, nats] = await Promise.all([
      PrivatePostgres.create(),
      PrivateRedis.create(),
      PrivateNats.create(),
    ]);
    t = await startTestApp({
      env: { DATABASE_URL: `${pg.url}/veriscreen`, REDIS_URL: redis.url, NATS_URL: nats.url },
    });
    tenant = await createTenant(t, { plan: 'self_serve', allowance: 100, allowed_origins: [ORIGIN] });
  }, 120_000);
  afterAll(async () => {
    await t?.close().catch(() => {});
    await Promise.all([pg?.destroy(), redis?.destroy(), nats?.destroy()]);
  });

  const consumed = async () =>
    Number((await t.app.sql`select consumed from tenants where id = ${tenant.id}`)[0]?.consumed);
  const ready = async () => (await call(t.url, 'GET', '/readyz?strict=true')).status === 200;

  it('NATS down: readyz says so; POST /process → 503 and charges nothing; a batch is stored once', async () => {
    const flow = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.status).toBe(201);
    await nats.stop();
    const before = await consumed();

    // issue 32 item 7: the API still serves secret-key traffic, so it stays in the balancer (degraded); the strict
    // probe, which needs every dependency, says not ready
    const readyz = await timed('readyz, NATS down', call(t.url, 'GET', '/readyz'));
    expect(readyz.status).toBe(200);
    expect(readyz.body).toMatchObject({ status: 'degraded', database: 'ok', redis: 'ok' });
    expect(readyz.body.nats).not.toBe('ok');
    const strict = await call(t.url, 'GET', '/readyz?strict=true');
    expect(strict.status).toBe(503);
    expect(strict.body).toMatchObject({ status: 'unavailable', database: 'ok' });
    const served = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(served.status).toBe(201);

    const processed = await timed(
      'POST /process, NATS down',
      call(t.url, 'POST', `/v1/flows/${flow.body.id}/process`, { token: tenant.secret_key }),
    );
    expectOutage(processed, 'nats');
    expect(await consumed()).toBe(before + 1); // the sync flow above, nothing for /process
    const [f] = await t.app.sql`select status from flows where id = ${flow.body.id}`;
    expect(f?.status).toBe('PENDING');

    // the batch is stored with its Idempotency-Key in one transaction; queuing its chunks waits for NATS
    const body = { records: [{ subjects: [{ name: 'Marigold Fennimore', type: 'person' }] }] };
    const headers = { 'idempotency-key': 'nats-down-1' };
    const first = await timed(
      'POST /v1/check_batches, NATS down',
      call<{ id: string }>(t.url, 'POST', '/v1/check_batches', { token: tenant.secret_key, body, headers }),
    );
    expect(first.status).toBe(202);
    const retry = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body,
      headers,
    });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    const [n] = await t.app.sql`select count(*)::int as n from check_batches where tenant_id = ${tenant.id}`;
    expect(n?.n).toBe(1);
    expect(await consumed()).toBe(before + 2);

    await nats.start();
    await waitFor('readyz after NATS is back', ready, 30_000);
  });

  it('Redis down: publishable-key flows and sign-in → 503; readyz says so', async () => {
    await redis.stop();
    const readyz = await timed('readyz, Redis down', call(t.url, 'GET', '/readyz'));
    expect(readyz.status).toBe(200);
    expect(readyz.body).toMatchObject({ status: 'degraded', database: 'ok', nats: 'ok' });
    expect(readyz.body.redis).not.toBe('ok');
    expect((await call(t.url, 'GET', '/readyz?strict=true')).status).toBe(503);
    // secret-key traffic keeps working without Redis
    const sk = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(sk.status).toBe(201);

    const pk = await timed(
      'publishable POST /v1/flows, Redis down',
      call(t.url, 'POST', '/v1/flows', {
        token: tenant.publishable_key,
        headers: { origin: ORIGIN },
        body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
      }),
    );
    expectOutage(pk, 'redis');
    const login = await timed(
      'POST /v1/sessions, Redis down',
      call(t.url, 'POST', '/v1/sessions', {
        body: { tenant_id: tenant.id, email: 'someone@example.com', password: 'a password of some length' },
      }),
    );
    expectOutage(login, 'redis');

    await redis.start();
    await waitFor('readyz after Redis is back', ready, 30_000);
  });

  it('Redis and NATS hung (SIGSTOP): answers are 503 after a bounded wait, not a hang', async () => {
    redis.freeze();
    try {
      const pk = await timed(
        'publishable POST /v1/flows, Redis hung',
        call(t.url, 'POST', '/v1/flows', {
          token: tenant.publishable_key,
          headers: { origin: ORIGIN },
          body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
        }),
      );
      expectOutage(pk, 'redis');
    } finally {
      redis.thaw();
    }
    const flow = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.status).toBe(201);
    nats.freeze();
    try {
      const processed = await timed(
        'POST /process, NATS hung',
        call(t.url, 'POST', `/v1/flows/${flow.body.id}/process`, { token: tenant.secret_key }),
      );
      expectOutage(processed, 'nats');
    } finally {
      nats.thaw();
    }
    await waitFor('readyz after the thaw', ready, 30_000);
  });

  it('Postgres down: readyz answers and says so; API calls → 503; nothing charged', async () => {
    const before = await consumed();
    await pg.stop();
    const readyz = await timed('readyz, Postgres down', call(t.url, 'GET', '/readyz'));
    expect(readyz.status).toBe(503);
    expect(readyz.body.database).not.toBe('ok');

    const sync = await timed(
      'sync POST /v1/flows, Postgres down',
      call(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
      }),
    );
    expectOutage(sync, 'database');
    const list = await timed(
      'GET /v1/checks, Postgres down',
      call(t.url, 'GET', '/v1/checks', { token: tenant.secret_key }),
    );
    expectOutage(list, 'database');

    await pg.start();
    await waitFor('readyz after Postgres is back', ready, 30_000);
    expect(await consumed()).toBe(before);
  });
});
