import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_ROLES } from '../../server/auth/authorize.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Role = 'analyst' | 'supervisor' | 'admin';
let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let origin: string;
const cookies: Partial<Record<Role, string>> = {};
const PASSWORD = 'correct horse battery staple';
let applicantId: string;
const NO_MONITOR = '00000000-0000-4000-8000-00000000000m'.replace('m', '0');
let flowId: string;

async function createOperator(tenant: Tenant, email: string, role: Role) {
  const r = await call<{ id: string; role: string }>(t.url, 'POST', '/v1/operators', {
    token: tenant.secret_key,
    body: { email, name: `${role} person`, role, password: PASSWORD },
  });
  expect(r.status).toBe(201);
  return r.body;
}

async function login(tenantId: string, email: string, password = PASSWORD) {
  return call<{ operator: { role: string }; expires_at: string }>(t.url, 'POST', '/v1/sessions', {
    body: { tenant_id: tenantId, email, password },
  });
}

function cookieOf(setCookie: string | null): string {
  const v = setCookie?.split(';')[0];
  if (!v) throw new Error('no session cookie');
  return v;
}

/** A dashboard request: the session cookie and, unless told otherwise, the API's own Origin. */
function asOperator(
  role: Role,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return call(t.url, method, path, {
    headers: { cookie: cookies[role] ?? '', origin, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
}

beforeAll(async () => {
  t = await startTestApp({ sources: null, env: { LOGIN_MAX_FAILURES: '3' } });
  origin = t.url;
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  for (const role of ['analyst', 'supervisor', 'admin'] as const) {
    await createOperator(acme, `${role}@acme.test`, role);
    const r = await login(acme.id, `${role}@acme.test`);
    expect(r.status).toBe(201);
    cookies[role] = cookieOf(r.headers.get('set-cookie'));
  }
  const f = await call<{ id: string; applicant_id: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: { legal_name_first: 'Rolf', legal_name_last: 'Tablestone' } },
  });
  applicantId = f.body.applicant_id;
  flowId = f.body.id;
});
afterAll(async () => {
  await t?.close();
});

describe('operators and sessions', () => {
  it('sets an HttpOnly, Secure, SameSite=Strict session cookie with an expiry', async () => {
    const r = await login(acme.id, 'ANALYST@acme.test');
    expect(r.status).toBe(201);
    expect(r.body.operator.role).toBe('analyst');
    const c = r.headers.get('set-cookie') ?? '';
    expect(c).toMatch(/^vs_session=[A-Za-z0-9_-]{43};/);
    expect(c).toContain('HttpOnly');
    expect(c).toContain('Secure');
    expect(c).toContain('SameSite=Strict');
    expect(c).toContain('Path=/');
    expect(c).toMatch(/Max-Age=28800/);
    expect(new Date(r.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    // only a hash of the cookie value is stored
    const value = cookieOf(c).split('=')[1] ?? '';
    const rows = await t.app.sql`select 1 from operator_sessions where token_hash::text like ${`%${value}%`}`;
    expect(rows.length).toBe(0);
  });

  it('tells every role who is who: names and roles of its own tenant, no e-mails', async () => {
    const r = await asOperator('analyst', 'GET', '/v1/operator_names');
    expect(r.status).toBe(200);
    const items = (r.body as { items: Record<string, unknown>[] }).items;
    expect(items.map((o) => [o.name, o.role]).sort()).toEqual([
      ['admin person', 'admin'],
      ['analyst person', 'analyst'],
      ['supervisor person', 'supervisor'],
    ]);
    for (const o of items) expect(Object.keys(o).sort()).toEqual(['disabled', 'id', 'name', 'role']);
    const other = await call(t.url, 'GET', '/v1/operator_names', { token: globex.secret_key });
    expect(other.body).toEqual({ items: [] });
  });

  it('refuses wrong passwords, unknown e-mails and the wrong tenant alike (401)', async () => {
    expect((await login(acme.id, 'admin@acme.test', 'wrong password!')).status).toBe(401);
    expect((await login(acme.id, 'nobody@acme.test')).status).toBe(401);
    expect((await login(globex.id, 'admin@acme.test')).status).toBe(401);
  });

  it('resolves the cookie to the operator; logout revokes the session and clears the cookie', async () => {
    const r = await login(acme.id, 'supervisor@acme.test');
    const cookie = cookieOf(r.headers.get('set-cookie'));
    const me = await call<{ operator: { role: string }; tenant_id: string }>(
      t.url,
      'GET',
      '/v1/sessions/current',
      {
        headers: { cookie },
      },
    );
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ tenant_id: acme.id, operator: { role: 'supervisor' } });
    const out = await call(t.url, 'DELETE', '/v1/sessions', { headers: { cookie, origin } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^vs_session=; Path=\/; Max-Age=0/);
    expect((await call(t.url, 'GET', '/v1/sessions/current', { headers: { cookie } })).status).toBe(401);
    expect(
      (await call(t.url, 'GET', '/v1/applicants', { headers: { cookie: 'vs_session=garbage' } })).status,
    ).toBe(401);
  });

  it('refuses cookie-authenticated writes without a matching Origin (CSRF)', async () => {
    const body = { legal_name_first: 'Csrf' };
    const none = await call(t.url, 'PATCH', `/v1/applicants/${applicantId}`, {
      headers: { cookie: cookies.admin ?? '' },
      body,
    });
    expect(none.status).toBe(403);
    expect(none.body).toMatchObject({ error: { code: 'csrf_origin_mismatch' } });
    const evil = await asOperator('admin', 'PATCH', `/v1/applicants/${applicantId}`, body, {
      origin: 'https://evil.example',
    });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatchObject({ error: { code: 'csrf_origin_mismatch' } });
    // reads need no Origin; the same write with the API's own origin passes
    expect(
      (await call(t.url, 'GET', '/v1/applicants', { headers: { cookie: cookies.admin ?? '' } })).status,
    ).toBe(200);
    expect((await asOperator('admin', 'PATCH', `/v1/applicants/${applicantId}`, body)).status).toBe(200);
    // bearer keys are not subject to the Origin rule
    expect(
      (await call(t.url, 'PATCH', `/v1/applicants/${applicantId}`, { token: acme.secret_key, body })).status,
    ).toBe(200);
  });

  it('locks an account after repeated failures (Redis), even for the right password', async () => {
    await createOperator(acme, 'victim@acme.test', 'analyst');
    for (let i = 0; i < 3; i++)
      expect((await login(acme.id, 'victim@acme.test', `guess-${i}`)).status).toBe(401);
    const locked = await login(acme.id, 'victim@acme.test');
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: { code: 'login_locked' } });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // other accounts are unaffected
    expect((await login(acme.id, 'admin@acme.test')).status).toBe(201);
  });

  it('operators are per tenant; the list needs admin authority', async () => {
    const list = await call<{ items: { email: string; role: string }[] }>(t.url, 'GET', '/v1/operators', {
      token: acme.secret_key,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((o) => o.email)).toContain('admin@acme.test');
    expect(JSON.stringify(list.body)).not.toContain('password');
    const g = await call<{ items: unknown[] }>(t.url, 'GET', '/v1/operators', { token: globex.secret_key });
    expect(g.body.items).toEqual([]);
    const dup = await call(t.url, 'POST', '/v1/operators', {
      token: acme.secret_key,
      body: { email: 'Admin@acme.test', name: 'x', role: 'admin', password: PASSWORD },
    });
    expect(dup.status).toBe(409);
    const weak = await call<{ detail: { loc: unknown[] }[] }>(t.url, 'POST', '/v1/operators', {
      token: acme.secret_key,
      body: { email: 'weak@acme.test', name: 'x', role: 'admin', password: 'short' },
    });
    expect(weak.status).toBe(422);
    expect(weak.body.detail[0]?.loc).toEqual(['body', 'password']);
  });
});

describe('role × endpoint table', () => {
  // [operationId, method, path, body, lowest role allowed]
  const table: [string, string, () => string, unknown, Role][] = [
    ['listApplicants', 'GET', () => '/v1/applicants', undefined, 'analyst'],
    ['listOperatorNames', 'GET', () => '/v1/operator_names', undefined, 'analyst'],
    ['getApplicant', 'GET', () => `/v1/applicants/${applicantId}`, undefined, 'analyst'],
    [
      'updateApplicant (name)',
      'PATCH',
      () => `/v1/applicants/${applicantId}`,
      { legal_name_middle: 'T' },
      'analyst',
    ],
    [
      'updateApplicant (risk_tier)',
      'PATCH',
      () => `/v1/applicants/${applicantId}`,
      { risk_tier: 'low' },
      'admin',
    ],
    [
      'updateApplicant (internal_status)',
      'PATCH',
      () => `/v1/applicants/${applicantId}`,
      { internal_status: 'active' },
      'admin',
    ],
    [
      'eraseApplicant',
      'DELETE',
      () => '/v1/applicants/00000000-0000-4000-8000-000000000000',
      undefined,
      'admin',
    ],
    ['createFlow', 'POST', () => '/v1/flows', { applicant: { legal_name_last: 'Op' } }, 'analyst'],
    ['listFlows', 'GET', () => '/v1/flows', undefined, 'analyst'],
    ['getFlow', 'GET', () => `/v1/flows/${flowId}`, undefined, 'analyst'],
    ['listChecks', 'GET', () => '/v1/checks', undefined, 'analyst'],
    [
      'createFlowDocument',
      'POST',
      () => `/v1/flows/${flowId}/documents`,
      { doc_type: 'passport' },
      'analyst',
    ],
    ['listFlowDocuments', 'GET', () => `/v1/flows/${flowId}/documents`, undefined, 'analyst'],
    [
      'createOperator',
      'POST',
      () => '/v1/operators',
      { email: 'x@y.test', name: 'x', role: 'bogus' },
      'admin',
    ],
    ['listOperators', 'GET', () => '/v1/operators', undefined, 'admin'],
    ['createNativeApp', 'POST', () => '/v1/native-apps', { platform: 'ios' }, 'admin'],
    ['listNativeApps', 'GET', () => '/v1/native-apps', undefined, 'analyst'],
    ['listAuditEvents', 'GET', () => '/v1/audit_events', undefined, 'admin'],
    // no such monitor: an allowed role gets 404, a refused one 403
    ['pauseMonitor', 'POST', () => `/v1/monitors/${NO_MONITOR}/pause`, undefined, 'supervisor'],
    ['resumeMonitor', 'POST', () => `/v1/monitors/${NO_MONITOR}/resume`, undefined, 'supervisor'],
    ['deleteMonitor', 'DELETE', () => `/v1/monitors/${NO_MONITOR}`, undefined, 'supervisor'],
    ['getCurrentSession', 'GET', () => '/v1/sessions/current', undefined, 'analyst'],
  ];
  const rank: Record<Role, number> = { analyst: 1, supervisor: 2, admin: 3 };

  for (const [name, method, path, body, lowest] of table) {
    for (const role of ['analyst', 'supervisor', 'admin'] as const) {
      const allowed = rank[role] >= rank[lowest];
      it(`${name} as ${role} → ${allowed ? 'allowed' : '403'}`, async () => {
        const r = await asOperator(role, method, path(), body);
        if (allowed) {
          expect(r.status, JSON.stringify(r.body)).not.toBe(403);
          expect(r.status).toBeLessThan(500);
        } else {
          expect(r.status).toBe(403);
          expect((r.body as { error: { code: string } }).error.code).toMatch(
            /^(insufficient_role|admin_authority_required)$/,
          );
        }
      });
    }
  }

  it('the secret key has admin authority on every row; publishable keys get none of them', async () => {
    for (const [name, method, path, body] of table) {
      if (name === 'getCurrentSession') continue;
      const r = await call(t.url, method, path(), {
        token: acme.secret_key,
        ...(body !== undefined ? { body } : {}),
      });
      expect(r.status, name).not.toBe(403);
      if (name === 'createFlow') continue; // publishable keys may create sync checks-only flows (foundation)
      const p = await call(t.url, method, path(), {
        token: acme.publishable_key,
        ...(body !== undefined ? { body } : {}),
      });
      expect(p.status, name).toBe(403);
    }
  });

  it('names every operation an operator session can call (none falls back to the default rule)', async () => {
    type Op = { operationId?: string; security?: Record<string, unknown>[] };
    const doc = (await call<{ paths: Record<string, Record<string, Op>> }>(t.url, 'GET', '/openapi.json'))
      .body;
    const reachable = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.security?.some((s) => 'operatorSession' in s))
      .map((op) => op.operationId ?? '?');
    expect(reachable.length).toBeGreaterThan(40);
    expect(reachable.filter((id) => !(id in OPERATION_ROLES))).toEqual([]);
  });

  it('the table agrees with the authorization module', () => {
    for (const [name, , , , lowest] of table) {
      const op = name.split(' ')[0] ?? '';
      if (name.includes('(risk_tier)') || name.includes('(internal_status)')) continue; // field-level rule
      expect(OPERATION_ROLES[op], op).toBe(lowest);
    }
  });
});
