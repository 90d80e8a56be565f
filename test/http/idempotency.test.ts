import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/private-services.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 item 6: the stored request and its Idempotency-Key record are one decision.

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    external_id: `cust-${i}`,
    subjects: [{ name: `Customer Number${i} Cleanname`, type: 'person', reference_id: `r${i}` }],
  }));

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t, { plan: 'self_serve', allowance: 1_000_000 });
});
afterAll(async () => {
  await t?.close();
});

const batchCount = async () =>
  Number(
    (await t.app.sql`select count(*)::int as n from check_batches where tenant_id = ${tenant.id}`)[0]?.n,
  );

describe('Idempotency-Key on POST /v1/check_batches', () => {
  it('compares bodies independently of JSON key order and writes one audit row and one charge', async () => {
    const key = 'key-order-1';
    const before = await batchCount();
    const first = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      raw: '{"use_case":"onboarding","records":[{"external_id":"a","subjects":[{"type":"person","name":"Jo Bloggs"}]}]}',
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(202);
    const again = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      raw: '{"records":[{"subjects":[{"name":"Jo Bloggs","type":"person"}],"external_id":"a"}],"use_case":"onboarding"}',
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await batchCount()).toBe(before + 1);
    const [consumed] = await t.app.sql`select consumed from tenants where id = ${tenant.id}`;
    expect(consumed?.consumed).toBe(1);
    const audit = await t.app.sql`
      select 1 from audit_log where tenant_id = ${tenant.id} and action = 'createCheckBatch'`;
    expect(audit.length).toBe(1);
  });

  it('remembers a 4xx answer of the work (allowance exhausted) and replays it', async () => {
    const poor = await createTenant(t, { plan: 'self_serve', allowance: 1 });
    const body = { records: records(2) };
    const headers = { 'idempotency-key': 'too-big' };
    const first = await call(t.url, 'POST', '/v1/check_batches', { token: poor.secret_key, body, headers });
    expect(first.status).toBe(402);
    const again = await call(t.url, 'POST', '/v1/check_batches', { token: poor.secret_key, body, headers });
    expect(again.status).toBe(402);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it("replays a remembered 422 of the work exactly, detail[] included (an applicant id that is not the caller's)", async () => {
    const body = {
      records: [{ applicant_id: '00000000-0000-4000-8000-000000000001', subjects: [{ name: 'Jane Doe' }] }],
    };
    const headers = { 'idempotency-key': 'foreign-applicant' };
    const first = await call(t.url, 'POST', '/v1/check_batches', { token: tenant.secret_key, body, headers });
    expect(first.status).toBe(422);
    expect(first.body).toMatchObject({
      detail: [expect.objectContaining({ loc: ['body', 'records', 0, 'applicant_id'] })],
    });
    const again = await call(t.url, 'POST', '/v1/check_batches', { token: tenant.secret_key, body, headers });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(first.body);
  });
});

describe('a crash mid-request', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('does not leave the key in flight: the retry gets one batch, never 409 for 24 h', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'veriscreen'), 'serve'], {
      env: {
        ...process.env,
        ROLE: 'api',
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        MATCHER_THREADS: '1',
        DATABASE_URL: t.dbUrl,
        ADMIN_TOKEN: t.adminToken,
        NATS_NAMESPACE: t.app.config.NATS_NAMESPACE,
        S3_ENDPOINT: t.app.s3Endpoint ?? '',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
      stdio: 'ignore',
    });
    const crashing = `http://127.0.0.1:${port}`;
    await waitFor('the second API process', () =>
      fetch(`${crashing}/livez`).then(
        (r) => r.ok,
        () => false,
      ),
    );
    const before = await batchCount();
    const body = { records: records(40_000) };
    const headers = { 'idempotency-key': 'crash-1' };
    const doomed = call(crashing, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body,
      headers,
    }).catch(() => 'connection lost');
    // the request is being stored (its subjects are being inserted) when the process dies
    await waitFor(
      'the batch insert to run',
      async () => {
        const rows = await t.app.sql`
        select 1 from pg_stat_activity
        where datname = current_database() and state <> 'idle' and query not ilike '%pg_stat_activity%'
          and query ilike '%insert into batch_chunks%'`;
        return rows.length > 0;
      },
      60_000,
      20,
    );
    child.kill('SIGKILL');
    expect(await doomed).toBe('connection lost');
    // a client retries on 409 as Retry-After says; the key must come free as soon as the dead transaction ends
    const retry = await waitFor(
      'the retry to be answered',
      async () => {
        const r = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
          token: tenant.secret_key,
          body,
          headers,
        });
        return r.status === 409 ? undefined : r;
      },
      30_000,
      500,
    );
    expect(retry.status).toBe(202);
    expect(await batchCount()).toBe(before + 1);
  });
});
