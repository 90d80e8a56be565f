import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

interface AuditEvent {
  id: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}
interface Page {
  items: AuditEvent[];
  next_cursor: string | null;
}

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let applicantId: string;
let flowId: string;

const audit = (q = '', tenant = acme) =>
  call<Page>(t.url, 'GET', `/v1/audit_events${q}`, { token: tenant.secret_key });

beforeAll(async () => {
  t = await startTestApp({ sources: null });
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  const f = await call<{ id: string; applicant_id: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: {
      applicant: { legal_name_first: 'Audrey', legal_name_last: 'Auditson', email: 'audrey@example.com' },
    },
    headers: { 'x-request-id': 'req-flow-create-1' },
  });
  flowId = f.body.id;
  applicantId = f.body.applicant_id;
});
afterAll(async () => {
  await t?.close();
});

describe('audit log', () => {
  it('records a handler-written row for an applicant change: actor, action, resource, request id, no PII', async () => {
    const r = await call(t.url, 'PATCH', `/v1/applicants/${applicantId}`, {
      token: acme.secret_key,
      body: { legal_name_last: 'Renamedson', email: 'new@example.com', risk_tier: 'medium' },
      headers: { 'x-request-id': 'req-patch-1' },
    });
    expect(r.status).toBe(200);
    const page = await audit('?action=applicant.updated');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    const e = page.body.items[0];
    expect(e).toMatchObject({
      actor_type: 'secret_key',
      action: 'applicant.updated',
      resource_type: 'applicant',
      resource_id: applicantId,
      request_id: 'req-patch-1',
      details: { fields: ['email', 'legal_name_last', 'risk_tier'], risk_tier: 'medium' },
    });
    expect(e?.actor_id).toMatch(/^[0-9a-f-]{36}$/);
    const text = JSON.stringify(page.body);
    for (const pii of ['Renamedson', 'new@example.com', 'Audrey', 'Auditson'])
      expect(text).not.toContain(pii);
  });

  it('records calls of other features through the central hook (one row per successful write)', async () => {
    const page = await audit('?request_id=req-flow-create-1');
    expect(page.body.items).toHaveLength(1);
    expect(page.body.items[0]).toMatchObject({
      action: 'createFlow',
      resource_type: 'flows',
      resource_id: flowId,
      actor_type: 'secret_key',
    });
    // a failed write leaves no row
    await call(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { applicant: {}, datasets: [] },
      headers: { 'x-request-id': 'req-failed-1' },
    });
    expect((await audit('?request_id=req-failed-1')).body.items).toEqual([]);
    // admin routes are audited too (tenant creation lands in the new tenant's log)
    const n = await createTenant(t, { name: 'Newco' });
    const own = await audit('?action=createTenant', n);
    expect(own.body.items[0]).toMatchObject({ actor_type: 'admin', resource_id: n.id });
  });

  it('filters combine, pages with a cursor, and stays inside the tenant', async () => {
    for (let i = 0; i < 3; i++) {
      await call(t.url, 'PATCH', `/v1/applicants/${applicantId}`, {
        token: acme.secret_key,
        body: { custom_attributes: { n: i } },
      });
    }
    const p1 = await audit(`?resource_id=${applicantId}&action=applicant.updated&limit=2`);
    expect(p1.body.items).toHaveLength(2);
    const p2 = await audit(
      `?resource_id=${applicantId}&action=applicant.updated&limit=2&after=${p1.body.next_cursor}`,
    );
    expect(p2.body.items).toHaveLength(2);
    expect(p2.body.next_cursor).toBeNull();
    const all = [...p1.body.items, ...p2.body.items].map((e) => e.id);
    expect(new Set(all).size).toBe(4);
    expect((await audit('?actor_type=operator')).body.items).toEqual([]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await audit(`?since=${encodeURIComponent(future)}`)).body.items).toEqual([]);
    expect((await audit('', globex)).body.items.some((e) => e.resource_id === applicantId)).toBe(false);
    expect((await audit('?actor_type=robot')).status).toBe(422);
  });

  it('is admin-only and append-only', async () => {
    expect((await call(t.url, 'GET', '/v1/audit_events', { token: acme.publishable_key })).status).toBe(403);
    await call(t.url, 'POST', '/v1/operators', {
      token: acme.secret_key,
      body: {
        email: 'ana@acme.test',
        name: 'Ana',
        role: 'analyst',
        password: 'correct horse battery staple',
      },
    });
    const login = await call(t.url, 'POST', '/v1/sessions', {
      body: { tenant_id: acme.id, email: 'ana@acme.test', password: 'correct horse battery staple' },
    });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const r = await call(t.url, 'GET', '/v1/audit_events', { headers: { cookie } });
    expect(r.status).toBe(403);
    const sessions = await audit('?action=session.created');
    expect(sessions.body.items[0]).toMatchObject({ actor_type: 'operator', resource_type: 'session' });
    expect(JSON.stringify(sessions.body)).not.toContain('ana@acme.test');
    await expect(t.app.sql`update audit_log set action = 'x'`).rejects.toThrow(/append-only/);
    await expect(t.app.sql`delete from audit_log`).rejects.toThrow(/append-only/);
  });
});
