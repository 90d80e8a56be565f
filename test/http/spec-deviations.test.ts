import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFlow } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 item 14: the spec's remaining deviations, each pinned through HTTP.

type Json = Record<string, unknown>;
interface Detail {
  detail: { loc: (string | number)[]; msg: string; type: string }[];
  error?: { code: string; details?: Json };
}
type Flow = ApiFlow;

const PASSWORD = 'correct horse battery staple';
const listed = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };
const clean = { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' };

let t: TestApp;
let acme: Tenant;

async function operator(
  tenant: Tenant,
  email: string,
  role: string,
): Promise<{ id: string; cookie: string }> {
  const r = await call<{ id: string }>(t.url, 'POST', '/v1/operators', {
    token: tenant.secret_key,
    body: { email, name: email, role, password: PASSWORD },
  });
  expect(r.status).toBe(201);
  const s = await call(t.url, 'POST', '/v1/sessions', {
    body: { tenant_id: tenant.id, email, password: PASSWORD },
  });
  expect(s.status).toBe(201);
  const cookie = s.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('no session cookie');
  return { id: r.body.id, cookie };
}
const asOperator = <T = Json>(op: { cookie: string }, method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, {
    headers: { cookie: op.cookie, origin: t.url },
    ...(body !== undefined ? { body } : {}),
  });

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
});
afterAll(async () => {
  await t?.close();
});

describe('POST /v1/flows/{id}/process is bearer only', () => {
  it('refuses an operator session cookie and accepts the secret key', async () => {
    const analyst = await operator(acme, 'process-analyst@acme.test', 'analyst');
    const flow = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { applicant: clean },
    });
    expect(flow.body.status).toBe('PENDING');
    const byCookie = await asOperator<Detail>(analyst, 'POST', `/v1/flows/${flow.body.id}/process`);
    expect(byCookie.status).toBe(401);
    expect(byCookie.body.error?.code).toBe('unauthorized');
    const still = await call<Flow>(t.url, 'GET', `/v1/flows/${flow.body.id}`, { token: acme.secret_key });
    expect(still.body.status).toBe('PENDING');
    const byKey = await call(t.url, 'POST', `/v1/flows/${flow.body.id}/process`, { token: acme.secret_key });
    expect(byKey.status).toBe(202);
  });
});

describe('completed_at is never before created_at', () => {
  it('holds for concurrent sync flows and their checks, in the response and when read back', async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call<Flow>(t.url, 'POST', '/v1/flows', {
          token: acme.secret_key,
          body: { mode: 'sync', applicant: i % 2 ? listed : clean },
        }),
      ),
    );
    for (const r of made) {
      expect(r.status).toBe(201);
      const read = await call<Flow>(t.url, 'GET', `/v1/flows/${r.body.id}`, { token: acme.secret_key });
      for (const f of [r.body, read.body]) {
        expect(f.completed_at).not.toBeNull();
        expect(Date.parse(f.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(f.created_at));
        for (const c of f.checks) {
          expect(Date.parse(c.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(c.created_at));
        }
      }
    }
  });
});

describe('datasets precedence: request, then the template’s explicit default, then the check policy', () => {
  it('uses the policy default when neither the request nor the template sets datasets', async () => {
    const org = await createTenant(t, { name: 'Precedence' });
    const p = await call(t.url, 'PUT', '/v1/check_policy', {
      token: org.secret_key,
      body: { default_datasets: ['pep', 'soe'] },
    });
    expect(p.status).toBe(200);
    const viaDefault = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: org.secret_key,
      body: { mode: 'sync', applicant: clean },
    });
    expect(viaDefault.body.datasets).toEqual(['pep', 'soe']);
    const tpl = await call(t.url, 'POST', '/v1/flow_templates', {
      token: org.secret_key,
      body: {
        slug: 'sanctions-only',
        name: 'Sanctions only',
        required_checks: ['aml_screen'],
        default_datasets: ['sanctions'],
      },
    });
    expect(tpl.status).toBe(201);
    const viaTemplate = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: org.secret_key,
      body: { mode: 'sync', template_slug: 'sanctions-only', applicant: clean },
    });
    expect(viaTemplate.body.datasets).toEqual(['sanctions']);
    const explicit = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: org.secret_key,
      body: { mode: 'sync', template_slug: 'sanctions-only', datasets: ['wanted'], applicant: clean },
    });
    expect(explicit.body.datasets).toEqual(['wanted']);
  });
});

describe('query strings', () => {
  it('a repeated parameter is a 422, not "first wins"', async () => {
    const r = await call<Detail>(t.url, 'GET', '/v1/checks?limit=1&limit=200', { token: acme.secret_key });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'repeated' })]);
  });
});

describe('monitors consume allowance', () => {
  it('run_immediately takes a unit (402 when none is left); a scheduled run takes one or fails the monitor', async () => {
    const org = await createTenant(t, { name: 'Metered', plan: 'self_serve', allowance: 2 });
    const subjects = [{ name: 'Anna Monitored' }];
    const first = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: org.secret_key,
      body: { subjects },
    });
    expect(first.status).toBe(201);
    const consumed = async () =>
      (await t.app.sql<{ consumed: number }[]>`select consumed from tenants where id = ${org.id}`)[0]
        ?.consumed;
    expect(await consumed()).toBe(1);
    // free: nothing runs now
    const later = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: org.secret_key,
      body: { subjects, run_immediately: false },
    });
    expect(later.status).toBe(201);
    expect(await consumed()).toBe(1);
    // two more become due: the scheduler charges the first and fails the second
    const third = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: org.secret_key,
      body: { subjects, run_immediately: false },
    });
    await t.app
      .sql`update monitors set next_due_at = now() - interval '1 second' where id = ${later.body.id}`;
    await waitFor('the scheduled run', async () => {
      const [m] = await t.app.sql<{ last_check_id: string | null }[]>`
        select last_check_id from monitors where id = ${later.body.id}`;
      return m?.last_check_id ?? undefined;
    });
    expect(await consumed()).toBe(2);
    await t.app
      .sql`update monitors set next_due_at = now() - interval '1 second' where id = ${third.body.id}`;
    const failed = await waitFor('the unpaid run to fail the monitor', async () => {
      const r = await call<{ status: string; failure_reason: string | null; last_check_id: string | null }>(
        t.url,
        'GET',
        `/v1/monitors/${third.body.id}`,
        { token: org.secret_key },
      );
      return r.body.status === 'failed' ? r.body : undefined;
    });
    expect(failed.failure_reason).toMatch(/^allowance_exhausted/);
    expect(failed.last_check_id).toBeNull();
    expect(await consumed()).toBe(2);
    const refused = await call<Detail>(t.url, 'POST', '/v1/monitors', {
      token: org.secret_key,
      body: { subjects },
    });
    expect(refused.status).toBe(402);
    expect(refused.body.error?.code).toBe('allowance_exhausted');
    const [n] = await t.app.sql<
      { n: number }[]
    >`select count(*)::int as n from monitors where tenant_id = ${org.id}`;
    expect(n?.n).toBe(3);
  });
});

describe('admin FATF listings', () => {
  it('PUT {} is refused and leaves the listings as they were', async () => {
    const put = await call(t.url, 'PUT', '/admin/fatf_listings', {
      admin: t.adminToken,
      body: { KP: 'black', SY: 'grey' },
    });
    expect(put.status).toBe(200);
    const empty = await call<Detail>(t.url, 'PUT', '/admin/fatf_listings', { admin: t.adminToken, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]?.loc).toEqual(['body']);
    const after = await call(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken });
    expect(after.body).toEqual({ KP: 'black', SY: 'grey' });
  });
});

describe('HEAD', () => {
  it('works on /livez and /readyz: the GET status and headers, no body', async () => {
    for (const path of ['/livez', '/readyz']) {
      const get = await fetch(t.url + path);
      const head = await fetch(t.url + path, { method: 'HEAD' });
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('content-type')).toBe('application/json');
      expect(await head.text()).toBe('');
    }
  });
});

describe('four-eyes: the proposer may withdraw', () => {
  it('an analyst withdraws their own proposal, but cannot send back another analyst’s', async () => {
    const org = await createTenant(t, { name: 'FourEyes' });
    await call(t.url, 'PUT', '/v1/check_policy', {
      token: org.secret_key,
      body: { default_datasets: ['sanctions'], four_eyes_required: true },
    });
    const analyst = await operator(org, 'a1@fe.test', 'analyst');
    const other = await operator(org, 'a2@fe.test', 'analyst');
    const f = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: org.secret_key,
      body: { mode: 'sync', applicant: listed },
    });
    const alerts = await call<{ items: { id: string }[] }>(t.url, 'GET', `/v1/alerts?flow_id=${f.body.id}`, {
      token: org.secret_key,
    });
    const alertId = alerts.body.items[0]?.id as string;
    const proposal = await asOperator<{ state: string }>(
      analyst,
      'POST',
      `/v1/alerts/${alertId}/disposition`,
      {
        disposition: 'false_positive',
        reason: 'DOB differs',
      },
    );
    expect(proposal.body.state).toBe('pending_approval');
    const foreign = await asOperator<Detail>(other, 'POST', `/v1/alerts/${alertId}/reject`, {
      reason: 'not yours',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error?.code).toBe('insufficient_role');
    const withdrawn = await asOperator<{ state: string; disposition: string | null }>(
      analyst,
      'POST',
      `/v1/alerts/${alertId}/reject`,
      { reason: 'withdrawn: I looked at the wrong entry' },
    );
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(200);
    expect(withdrawn.body).toMatchObject({ state: 'open', disposition: null });
  });
});
