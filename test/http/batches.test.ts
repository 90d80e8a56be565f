import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processChunk } from '../../server/batches/batch-worker.js';
import type { ApiBatch } from '../helpers/api-types.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

type Batch = ApiBatch;

const records = (n: number, listedEvery = 0) =>
  Array.from({ length: n }, (_, i) => ({
    external_id: `cust-${i}`,
    subjects: [
      listedEvery && i % listedEvery === 0
        ? { name: 'Ivan Demovsky', type: 'person', reference_id: `r${i}` }
        : { name: `Customer Number${i} Cleanname`, type: 'person', reference_id: `r${i}` },
    ],
  }));

describe('check batches', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const getBatch = async (id: string) =>
    (await call<Batch>(t.url, 'GET', `/v1/check_batches/${id}`, { token: tenant.secret_key })).body;

  it('screens every subject once, advances counters and records one check per subject', async () => {
    const r = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: records(600, 100), datasets: ['sanctions'], use_case: 'lookback' },
    });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ subject_count: 600, completed_count: 0, error_count: 0 });
    const done = await waitFor('batch to complete', async () => {
      const b = await getBatch(r.body.id);
      return b.status === 'completed' ? b : undefined;
    });
    expect(done).toMatchObject({ completed_count: 600, error_count: 0, completed_at: expect.any(String) });
    const [counts] = await t.app.sql<{ n: string; hits: string; distinct_refs: string }[]>`
      select count(*) as n, count(*) filter (where result = 'hit') as hits, count(distinct input_ref) as distinct_refs
      from checks where batch_id = ${r.body.id}`;
    expect(counts).toEqual({ n: '600', hits: '6', distinct_refs: '600' });
    const [event] = await t.app
      .sql`select payload from outbox_events where type = 'batch.completed' and resource_id = ${r.body.id}`;
    expect(event?.payload).toMatchObject({ batch_id: r.body.id, completed_count: 600 });
    const list = await call<{ items: Batch[] }>(t.url, 'GET', '/v1/check_batches?limit=1', {
      token: tenant.secret_key,
    });
    expect(list.body.items[0]?.id).toBe(r.body.id);
  });

  it('is exactly-once when a chunk is delivered twice at the same time', async () => {
    // a batch queued but not processed by the running worker: insert it as the service would, then race two runs
    const r = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: records(50, 10), datasets: ['sanctions'] },
    });
    const deps = { sql: t.app.sql, bus: t.app.bus, pool: t.app.pool, metrics: t.app.metrics, log: t.app.log };
    await Promise.all([
      processChunk(deps, { batch_id: r.body.id, from: 0, to: 50 }),
      processChunk(deps, { batch_id: r.body.id, from: 0, to: 50 }),
      processChunk(deps, { batch_id: r.body.id, from: 0, to: 50 }),
    ]);
    const b = await waitFor('batch to complete', async () => {
      const x = await getBatch(r.body.id);
      return x.status === 'completed' ? x : undefined;
    });
    expect(b).toMatchObject({ completed_count: 50, error_count: 0 });
    const [{ n } = { n: '' }] = await t.app.sql<
      { n: string }[]
    >`select count(*) as n from checks where batch_id = ${r.body.id}`;
    expect(n).toBe('50');
  });

  it('replays an Idempotency-Key with the same body, refuses it with another body, and 409s while in flight', async () => {
    const body = { records: records(3), datasets: ['sanctions'] };
    const key = `idem-${Date.now()}`;
    const first = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(202);
    const again = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { ...body, use_case: 'onboarding' },
      headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    // keys are per tenant: another tenant may use the same key
    const otherTenant = await createTenant(t, { name: 'Other' });
    const theirs = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: otherTenant.secret_key,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(first.body.id);
    // a first request still running holds the key's transaction lock
    const inflightKey = `inflight-${Date.now()}`;
    await t.app.sql.begin(async (tx) => {
      const lockId = `${tenant.id}/check_batches/${inflightKey}`;
      await tx`select pg_advisory_xact_lock(hashtextextended(${lockId}, 7351002))`;
      const busy = await call(t.url, 'POST', '/v1/check_batches', {
        token: tenant.secret_key,
        body,
        headers: { 'idempotency-key': inflightKey },
      });
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ error: { code: 'idempotency_in_flight' } });
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });

  it('rejects empty batches, sync mode, unknown fields in subjects and more than 100,000 records', async () => {
    const empty = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: [] },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'records'] })]);
    const sync = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: records(1), mode: 'sync' },
    });
    expect(sync.status).toBe(422);
    expect(sync.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'mode'] })]);
    const extra = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: [{ subjects: [{ name: 'x', colour: 'red' }] }] },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'records', 0, 'subjects', 0, 'colour'] }),
    ]);
    const tooMany = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: Array.from({ length: 100_001 }, () => ({ subjects: [{ name: 'a' }] })) },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'records'] })]);
  });

  it('charges a self-serve allowance per subject, all or nothing', async () => {
    const small = await createTenant(t, { name: 'Small', plan: 'self_serve', allowance: 10 });
    const big = await call(t.url, 'POST', '/v1/check_batches', {
      token: small.secret_key,
      body: { records: records(11) },
    });
    expect(big.status).toBe(402);
    expect(big.body).toMatchObject({
      error: { code: 'allowance_exhausted', details: { allowance: 10, consumed: 0 } },
    });
    const fits = await call(t.url, 'POST', '/v1/check_batches', {
      token: small.secret_key,
      body: { records: records(10) },
    });
    expect(fits.status).toBe(202);
  });

  it('hides another tenant’s batch', async () => {
    const mine = await call<Batch>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: records(1) },
    });
    const other = await createTenant(t, { name: 'Nosy' });
    const r = await call(t.url, 'GET', `/v1/check_batches/${mine.body.id}`, { token: other.secret_key });
    expect(r.status).toBe(404);
  });
});

describe('a batch survives kill -9 of its worker process', () => {
  let api: TestApp;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    api = await startTestApp({ env: { ROLE: 'api' } });
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await api?.close();
  });

  const spawnWorker = () => {
    const c = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'veriscreen'), 'serve'], {
      env: {
        ...process.env,
        ROLE: 'worker',
        NODE_ENV: 'test',
        PORT: '0',
        LOG_LEVEL: 'warn',
        MATCHER_THREADS: '1',
        DATABASE_URL: api.dbUrl,
        ADMIN_TOKEN: api.adminToken,
        NATS_NAMESPACE: api.app.config.NATS_NAMESPACE,
        S3_ENDPOINT: api.app.s3Endpoint ?? '',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
      stdio: 'ignore',
    });
    children.push(c);
    return c;
  };

  it('ends with every subject screened exactly once and exact counters', async () => {
    const tenant = await createTenant(api);
    const r = await call<Batch>(api.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: records(3000, 500), datasets: ['sanctions'] },
    });
    expect(r.status).toBe(202);
    const first = spawnWorker();
    await waitFor('some progress', async () => {
      const [b] = await api.app.sql<
        { completed_count: number }[]
      >`select completed_count from check_batches where id = ${r.body.id}`;
      return (b?.completed_count ?? 0) > 0 ? true : undefined;
    });
    first.kill('SIGKILL');
    spawnWorker();
    const done = await waitFor(
      'batch to complete after the crash',
      async () => {
        const [b] = await api.app.sql<Batch[]>`select * from check_batches where id = ${r.body.id}`;
        return b?.status === 'completed' ? b : undefined;
      },
      120_000,
    );
    expect(done).toMatchObject({ subject_count: 3000, completed_count: 3000, error_count: 0 });
    const [c] = await api.app.sql<{ n: string; refs: string }[]>`
      select count(*) as n, count(distinct input_ref) as refs from checks where batch_id = ${r.body.id}`;
    expect(c).toEqual({ n: '3000', refs: '3000' });
  }, 240_000);
});
