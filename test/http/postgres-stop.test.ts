import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BIN_DIR, PrivatePostgres } from '../helpers/private-services.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 32 item 6: with Postgres stopped, only the first second got a fast 503; then requests were held until it
// came back (up to 36 s; a batch POST 17.6 s): the driver waited out a growing reconnect backoff with the requests'
// queries queued behind it, and the flow writer's queue had no bound. A client needs a fast, bounded answer for the
// whole outage. Here four clients keep calling through a 20 s stop, each with a 2 s deadline of its own: every call
// is answered within it, 503 service_unavailable with Retry-After.

const OUTAGE_MS = 20_000;
const CLIENT_DEADLINE_MS = 2_000;

describe.skipIf(PG_BIN_DIR === undefined)('Postgres stopped or frozen', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let tenant: Tenant;
  let flowId: string;

  beforeAll(async () => {
    pg = await PrivatePostgres.create();
    t = await startTestApp({ env: { DATABASE_URL: `${pg.url}/veriscreen`, FLOW_WRITE_MAX_QUEUE: '8' } });
    tenant = await createTenant(t, { plan: 'self_serve', allowance: 10_000 });
    const f = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Before', legal_name_last: 'Outage' } },
    });
    expect(f.status).toBe(201);
    flowId = f.body.id;
  }, 120_000);
  afterAll(async () => {
    await t?.close().catch(() => {});
    await pg?.destroy();
  });

  const requests = () => [
    {
      label: 'sync POST /v1/flows',
      method: 'POST',
      path: '/v1/flows',
      body: { mode: 'sync', applicant: { legal_name_first: 'During', legal_name_last: 'Outage' } },
    },
    {
      label: 'POST /v1/check_batches',
      method: 'POST',
      path: '/v1/check_batches',
      body: { records: [{ subjects: [{ name: 'During Outage' }] }] },
    },
    { label: 'GET /v1/flows/{id}', method: 'GET', path: `/v1/flows/${flowId}` },
    { label: 'GET /v1/checks', method: 'GET', path: '/v1/checks' },
  ];

  it('answers every call within a client deadline of 2 s for the whole of a 20 s stop, then recovers', async () => {
    const calls: { label: string; status: number | 'no answer'; ms: number; retryAfter: string | null }[] =
      [];
    await pg.stop();
    const until = Date.now() + OUTAGE_MS;
    const client = async (offset: number) => {
      for (let i = offset; Date.now() < until; i++) {
        const r = requests()[i % requests().length] as ReturnType<typeof requests>[number];
        const started = performance.now();
        try {
          const res = await fetch(`${t.url}${r.path}`, {
            method: r.method,
            headers: {
              authorization: `Bearer ${tenant.secret_key}`,
              ...(r.body ? { 'content-type': 'application/json' } : {}),
            },
            ...(r.body ? { body: JSON.stringify(r.body) } : {}),
            signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
          });
          const body = (await res.json()) as { error?: { code?: string; details?: { dependency?: string } } };
          calls.push({
            label: r.label,
            status: res.status,
            ms: performance.now() - started,
            retryAfter: res.headers.get('retry-after'),
          });
          expect(body.error, `${r.label} → ${res.status}`).toMatchObject({
            code: 'service_unavailable',
            details: { dependency: 'database' },
          });
        } catch (err) {
          if ((err as Error).name !== 'TimeoutError') throw err;
          calls.push({
            label: r.label,
            status: 'no answer',
            ms: performance.now() - started,
            retryAfter: null,
          });
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(client));
    const slowest = Math.max(...calls.map((c) => c.ms));
    const statuses: Record<string, number> = {};
    for (const c of calls) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
    console.log(
      `[postgres stop] ${calls.length} calls in ${OUTAGE_MS / 1000} s, slowest ${Math.round(slowest)} ms, ` +
        `statuses ${JSON.stringify(statuses)}`,
    );
    const unanswered = calls.filter((c) => c.status === 'no answer');
    expect(unanswered, 'calls without an answer within the client deadline').toEqual([]);
    for (const c of calls) {
      expect(c.status, c.label).toBe(503);
      expect(Number(c.retryAfter), c.label).toBeGreaterThan(0);
    }
    expect(calls.length).toBeGreaterThan(40);

    await pg.start();
    await waitFor('the API to answer again', async () => {
      const r = await call(t.url, 'GET', `/v1/flows/${flowId}`, { token: tenant.secret_key });
      return r.status === 200 ? r : undefined;
    });
    const after = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'After', legal_name_last: 'Outage' } },
    });
    expect(after.status).toBe(201);
    // nothing answered 503 was stored, and nothing was charged for it
    const [n] = await t.app.sql`select count(*)::int as n from flows where tenant_id = ${tenant.id}`;
    expect(n?.n).toBe(2);
    const [c] = await t.app.sql`select consumed from tenants where id = ${tenant.id}`;
    expect(c?.consumed).toBe(2);
  }, 120_000);

  it('frozen: the flows waiting to be written are bounded; beyond the bound a flow is refused at once (503)', async () => {
    const contract = await createTenant(t, { plan: 'contract' });
    // warm: the template, policy and key lookups are cached, so sync flows reach the writer
    for (let i = 0; i < 3; i++) {
      const warm = await call(t.url, 'POST', '/v1/flows', {
        token: contract.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Warm', legal_name_last: `Up${i}` } },
      });
      expect(warm.status).toBe(201);
    }
    await pg.freeze();
    let answers: { name: string; status: number; code: string | undefined; retryAfter: string | null }[];
    try {
      answers = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const name = `Burst${i}`;
          const r = await call<{ error?: { code?: string } }>(t.url, 'POST', '/v1/flows', {
            token: contract.secret_key,
            body: { mode: 'sync', applicant: { legal_name_first: 'Frozen', legal_name_last: name } },
          });
          return {
            name,
            status: r.status,
            code: r.body.error?.code,
            retryAfter: r.headers.get('retry-after'),
          };
        }),
      );
    } finally {
      await pg.thaw();
    }
    const codes: Record<string, number> = {};
    for (const a of answers) codes[`${a.status} ${a.code}`] = (codes[`${a.status} ${a.code}`] ?? 0) + 1;
    console.log(`[postgres frozen] 40 sync flows: ${JSON.stringify(codes)}`);
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // one statement in flight and at most 8 flows queued behind it; the rest were refused without waiting
    expect(answers.filter((a) => a.code === 'overloaded').length).toBeGreaterThanOrEqual(20);
    await waitFor('the API to answer again', async () => {
      const r = await call(t.url, 'GET', `/v1/flows/${flowId}`, { token: tenant.secret_key });
      return r.status === 200 ? r : undefined;
    });
    // a refused flow was never sent to Postgres; the statement in flight when the server froze has an unknown
    // outcome, as any commit cut off from its answer (the Idempotency-Key covers retries)
    const refused = answers.filter((a) => a.code === 'overloaded').map((a) => a.name);
    const stored = await t.app.sql<{ legal_name_last: string }[]>`
      select a.legal_name_last from flows f join applicants a on a.id = f.applicant_id
      where f.tenant_id = ${contract.id} and a.legal_name_last = any(${refused})`;
    expect(stored).toEqual([]);
  }, 120_000);
});
