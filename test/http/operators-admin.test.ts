import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'a long enough password';

describe('operator administration (PATCH /v1/operators/{id})', () => {
  let t: TestApp;
  let tenant: Tenant;
  let analystId = '';
  let adminId = '';
  beforeAll(async () => {
    t = await startTestApp({ sources: null });
    tenant = await createTenant(t);
    for (const [email, role] of [
      ['ana@acme.test', 'analyst'],
      ['boss@acme.test', 'admin'],
    ] as const) {
      const r = await call<{ id: string }>(t.url, 'POST', '/v1/operators', {
        token: tenant.secret_key,
        body: { email, name: email, role, password: PASSWORD },
      });
      expect(r.status).toBe(201);
      if (role === 'analyst') analystId = r.body.id;
      else adminId = r.body.id;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = async (email: string, password = PASSWORD) => {
    const r = await call(t.url, 'POST', '/v1/sessions', { body: { tenant_id: tenant.id, email, password } });
    const cookie = r.headers.get('set-cookie')?.split(';')[0];
    return { status: r.status, cookie };
  };
  const asCookie = (cookie: string | undefined, method: string, path: string, body?: unknown) =>
    call(t.url, method, path, {
      headers: { cookie: cookie ?? '', origin: t.url },
      ...(body ? { body } : {}),
    });

  it('disabling signs the operator out everywhere and refuses sign-in until re-enabled', async () => {
    const s = await login('ana@acme.test');
    expect(s.status).toBe(201);
    expect((await asCookie(s.cookie, 'GET', '/v1/alerts')).status).toBe(200);
    const off = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: { disabled: true },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ disabled: true });
    expect((await asCookie(s.cookie, 'GET', '/v1/alerts')).status).toBe(401);
    expect((await login('ana@acme.test')).status).toBe(401);
    const on = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: { disabled: false },
    });
    expect(on.body).toMatchObject({ disabled: false });
    expect((await login('ana@acme.test')).status).toBe(201);
  });

  it('a password reset revokes sessions; only the new password works; the audit row has no password', async () => {
    const s = await login('ana@acme.test');
    const r = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: { password: 'another long password' },
    });
    expect(r.status).toBe(200);
    expect((await asCookie(s.cookie, 'GET', '/v1/alerts')).status).toBe(401);
    expect((await login('ana@acme.test')).status).toBe(401);
    expect((await login('ana@acme.test', 'another long password')).status).toBe(201);
    const audit = await t.app
      .sql`select details from audit_log where action = 'operator.updated' and resource_id = ${analystId}`;
    expect(JSON.stringify(audit)).not.toContain('another long password');
  });

  it('changes a role; analysts cannot administer; admins cannot disable or demote themselves', async () => {
    const promoted = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: { role: 'supervisor', name: 'Ana S.' },
    });
    expect(promoted.body).toMatchObject({ role: 'supervisor', name: 'Ana S.' });
    const ana = await login('ana@acme.test', 'another long password');
    expect((await asCookie(ana.cookie, 'PATCH', `/v1/operators/${adminId}`, { name: 'x' })).status).toBe(403);
    const boss = await login('boss@acme.test');
    const selfDisable = await asCookie(boss.cookie, 'PATCH', `/v1/operators/${adminId}`, { disabled: true });
    expect(selfDisable.status).toBe(403);
    const selfDemote = await asCookie(boss.cookie, 'PATCH', `/v1/operators/${adminId}`, { role: 'analyst' });
    expect(selfDemote.status).toBe(403);
    expect((await asCookie(boss.cookie, 'PATCH', `/v1/operators/${analystId}`, { name: 'Ana' })).status).toBe(
      200,
    );
  });

  it('validates the body and hides other tenants’ operators', async () => {
    const empty = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: {},
    });
    expect(empty.status).toBe(422);
    const short = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: tenant.secret_key,
      body: { password: 'short' },
    });
    expect(short.status).toBe(422);
    expect(short.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'password'] })]);
    const other = await createTenant(t, { name: 'Other' });
    const r = await call(t.url, 'PATCH', `/v1/operators/${analystId}`, {
      token: other.secret_key,
      body: { name: 'x' },
    });
    expect(r.status).toBe(404);
  });
});
