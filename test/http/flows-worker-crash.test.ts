import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../../server/flows/client-metadata.js';
import {
  type FlowDeps,
  type FlowJob,
  giveUpFlowJob,
  handleFlowJob,
  RunNotCommitted,
} from '../../server/flows/flow-service.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

// ROLE=api: this process queues jobs but consumes none, so each test decides who runs them
let t: TestApp;
let acme: Tenant;
let deps: FlowDeps;
const listed = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky', nationality: 'RU' };
const CHECKS = ['aml_screen', 'country_risk', 'ip_risk'];

beforeAll(async () => {
  t = await startTestApp({ env: { ROLE: 'api' } });
  acme = await createTenant(t, { name: 'Acme', plan: 'self_serve', allowance: 1000 });
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    token: acme.secret_key,
    body: { slug: 'three', name: 'Three checks', required_checks: CHECKS },
  });
  expect(r.status).toBe(201);
  const { sql, pool, metrics, redis, bus } = t.app;
  deps = {
    sql,
    pool,
    metrics,
    redis,
    bus,
    fatf: t.app.fatf,
    piiKey: t.app.config.PII_HASH_KEY,
    trustedProxies: parseTrustedProxies(''),
  };
});
afterAll(async () => {
  await t?.close();
});

async function queuedFlow(): Promise<FlowJob> {
  const created = await call<Json>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { template_slug: 'three', applicant: listed },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await call(t.url, 'POST', `/v1/flows/${id}/process`, { token: acme.secret_key })).status).toBe(202);
  return { tenant_id: acme.id, flow_id: id, run: 1 };
}

async function state(flowId: string) {
  const [flow] = await t.app.sql<{ status: string; decision: string | null }[]>`
    select status, decision from flows where id = ${flowId}`;
  const checks = await t.app.sql<{ check_type: string; id: string }[]>`
    select check_type, id from checks where flow_id = ${flowId} order by check_type`;
  const events = await t.app.sql<{ type: string }[]>`
    select type from outbox_events where resource_id = ${flowId} order by seq`;
  const alerts = await t.app.sql<{ n: number }[]>`
    select count(*)::int as n from alerts where flow_id = ${flowId}`;
  return {
    status: flow?.status,
    decision: flow?.decision,
    checkTypes: checks.map((c) => c.check_type),
    events: events.map((e) => e.type),
    alerts: alerts[0]?.n ?? 0,
  };
}

function expectDoneOnce(s: Awaited<ReturnType<typeof state>>) {
  expect(s.status).toBe('NEEDS_REVIEW');
  expect(s.checkTypes).toEqual([...CHECKS].sort());
  expect(s.events).toEqual(['flow.created', 'flow.completed', 'flow.decided']);
}

describe('flow_process jobs are idempotent', () => {
  it('the same job delivered twice (concurrently, then again) records one set of checks', async () => {
    const job = await queuedFlow();
    await Promise.all([handleFlowJob(deps, job), handleFlowJob(deps, job)]);
    await handleFlowJob(deps, job);
    const s = await state(job.flow_id);
    expectDoneOnce(s);
    const checkEvents = await t.app.sql<{ n: number }[]>`
      select count(*)::int as n from outbox_events o join checks c on c.id = o.resource_id
      where c.flow_id = ${job.flow_id} and o.type = 'check.completed'`;
    expect(checkEvents[0]?.n).toBe(3);
    const [alerts] = await t.app.sql<{ n: number; distinct_entities: number }[]>`
      select count(*)::int as n, count(distinct source_entity_id)::int as distinct_entities
      from alerts where flow_id = ${job.flow_id}`;
    expect(alerts?.n).toBeGreaterThan(0);
    expect(alerts?.n).toBe(alerts?.distinct_entities);
  });

  it('a crash after some checks: the redelivery reuses them and completes exactly once', async () => {
    const job = await queuedFlow();
    const crash = handleFlowJob(deps, job, {
      afterCheck(type) {
        if (type === 'country_risk') throw new Error('worker killed');
      },
    });
    await expect(crash).rejects.toThrow('worker killed');
    const mid = await state(job.flow_id);
    expect(mid.status).toBe('PROCESSING');
    expect(mid.checkTypes).toEqual(['aml_screen', 'country_risk']);
    const [before] = await t.app.sql<{ id: string }[]>`
      select id from checks where flow_id = ${job.flow_id} and check_type = 'aml_screen'`;
    await handleFlowJob(deps, job);
    const s = await state(job.flow_id);
    expectDoneOnce(s);
    const [after] = await t.app.sql<{ id: string }[]>`
      select id from checks where flow_id = ${job.flow_id} and check_type = 'aml_screen'`;
    expect(after?.id).toBe(before?.id);
  });

  it('a job for a run that never committed is retried, then dropped without touching the flow', async () => {
    const job = await queuedFlow();
    const ghost = { ...job, run: 2 };
    await expect(handleFlowJob(deps, ghost)).rejects.toBeInstanceOf(RunNotCommitted);
    await giveUpFlowJob(deps, ghost, new RunNotCommitted(ghost));
    expect((await state(job.flow_id)).status).toBe('PROCESSING');
    await handleFlowJob(deps, job);
    expectDoneOnce(await state(job.flow_id));
  });

  it('giving up after the last delivery → FAILED with the reason, and the unit is refunded', async () => {
    const job = await queuedFlow();
    const [before] = await t.app.sql<
      { consumed: number }[]
    >`select consumed from tenants where id = ${acme.id}`;
    await giveUpFlowJob(deps, job, new Error('matcher unavailable'));
    const got = await call<Json>(t.url, 'GET', `/v1/flows/${job.flow_id}`, { token: acme.secret_key });
    expect(got.body).toMatchObject({
      status: 'FAILED',
      failure_reason: 'matcher unavailable',
      decision: null,
    });
    const [after] = await t.app.sql<
      { consumed: number }[]
    >`select consumed from tenants where id = ${acme.id}`;
    expect(after?.consumed).toBe((before?.consumed ?? 0) - 1);
    expect((await state(job.flow_id)).events).toEqual(['flow.created', 'flow.completed']);
    // a late delivery of the same job changes nothing
    await handleFlowJob(deps, job);
    expect((await state(job.flow_id)).status).toBe('FAILED');
  });
});

describe('a worker process killed mid-processing', () => {
  let child: ChildProcess | undefined;
  let rescuer: TestApp | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rescuer?.close();
  });

  it('loses no flow and runs none twice: another worker finishes every flow exactly once', async () => {
    child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'veriscreen'), 'serve'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        ROLE: 'worker',
        PORT: '0',
        LOG_LEVEL: 'error',
        DEMO: 'false',
        MATCHER_THREADS: '1',
        DATABASE_URL: t.dbUrl,
        ADMIN_TOKEN: t.adminToken,
        NATS_NAMESPACE: t.app.config.NATS_NAMESPACE,
        S3_ENDPOINT: t.app.s3Endpoint ?? '',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const started = Date.now();
    while (!out.includes('listening on') && Date.now() - started < 60_000 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(out, out).toContain('listening on');

    const jobs = await Promise.all(Array.from({ length: 30 }, () => queuedFlow()));
    const ids = jobs.map((j) => j.flow_id);
    // kill -9 as soon as the child has recorded its first check: whatever it held is mid-flight
    while (Date.now() - started < 60_000) {
      const [row] = await t.app.sql<{ n: number }[]>`
        select count(*)::int as n from checks where flow_id in ${t.app.sql(ids)}`;
      if ((row?.n ?? 0) > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));

    rescuer = await startTestApp({ join: t, env: { ROLE: 'worker' } });
    const deadline = Date.now() + 90_000;
    let open = ids.length;
    while (Date.now() < deadline) {
      const [row] = await t.app.sql<{ n: number }[]>`
        select count(*)::int as n from flows where id in ${t.app.sql(ids)} and status in ('PENDING', 'PROCESSING')`;
      open = row?.n ?? 0;
      if (open === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
    for (const id of ids) expectDoneOnce(await state(id));
  }, 180_000);
});
