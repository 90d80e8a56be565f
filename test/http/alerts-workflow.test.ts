import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAlert, ApiFlow } from '../helpers/api-types.js';
import { expectCatalogueEvents } from '../helpers/events.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Role = 'analyst' | 'supervisor' | 'admin';
type Json = Record<string, unknown>;
type Alert = ApiAlert;
type Flow = ApiFlow;
interface ErrorBody {
  error: { code: string };
}

let t: TestApp;
const PASSWORD = 'correct horse battery staple';
const LISTED = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };

interface Op {
  id: string;
  cookie: string;
}
interface Org {
  tenant: Tenant;
  ops: Record<string, Op>;
}

async function operator(tenant: Tenant, key: string, role: Role): Promise<Op> {
  const email = `${key}@${tenant.id.slice(0, 8)}.test`;
  const r = await call<{ id: string }>(t.url, 'POST', '/v1/operators', {
    token: tenant.secret_key,
    body: { email, name: `${key} person`, role, password: PASSWORD },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const s = await call(t.url, 'POST', '/v1/sessions', {
    body: { tenant_id: tenant.id, email, password: PASSWORD },
  });
  expect(s.status).toBe(201);
  const cookie = s.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('no session cookie');
  return { id: r.body.id, cookie };
}

async function org(name: string, fourEyes: boolean): Promise<Org> {
  const tenant = await createTenant(t, { name });
  const p = await call(t.url, 'PUT', '/v1/check_policy', {
    token: tenant.secret_key,
    body: { default_datasets: ['sanctions'], four_eyes_required: fourEyes },
  });
  expect(p.status).toBe(200);
  const ops: Record<string, Op> = {};
  for (const [key, role] of [
    ['analyst', 'analyst'],
    ['analyst2', 'analyst'],
    ['supervisor', 'supervisor'],
    ['supervisor2', 'supervisor'],
  ] as const) {
    ops[key] = await operator(tenant, key, role);
  }
  return { tenant, ops };
}

/** A dashboard call as an operator (session cookie + the API's own Origin). */
const as = <T = Alert>(op: Op | undefined, method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, {
    headers: { cookie: op?.cookie ?? '', origin: t.url },
    ...(body !== undefined ? { body } : {}),
  });
const withKey = <T = Alert>(tenant: Tenant, method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, { token: tenant.secret_key, ...(body !== undefined ? { body } : {}) });

/** A sync flow for a listed name: returns the flow and the ids of the alerts it raised. */
async function hitFlow(tenant: Tenant, externalId?: string): Promise<{ flow: Flow; alerts: Alert[] }> {
  const f = await withKey<Flow>(tenant, 'POST', '/v1/flows', {
    mode: 'sync',
    applicant: { ...LISTED, ...(externalId ? { external_id: externalId } : {}) },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  const l = await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?flow_id=${f.body.id}`);
  expect(l.status).toBe(200);
  expect(l.body.items.length).toBeGreaterThan(0);
  return { flow: f.body, alerts: l.body.items };
}

async function updatedEvents(alertId: string) {
  return t.app.sql<{ type: string; payload: Json }[]>`
    select type, payload from outbox_events where resource_id = ${alertId} order by seq`;
}

const dispose = (disposition: string, reason = 'name only; DOB differs') => ({
  disposition,
  reason,
  evidence: [{ kind: 'note', text: 'compared date of birth with the list entry' }],
});

let plain: Org;
let four: Org;

beforeAll(async () => {
  t = await startTestApp();
  plain = await org('Plain', false);
  four = await org('FourEyes', true);
});
afterAll(async () => {
  // every event the file made matches the event catalogue
  if (t) await expectCatalogueEvents(t.app.sql);
  await t?.close();
});

describe('alert list', () => {
  it('lists newest first with filters and a cursor', async () => {
    const tenant = await createTenant(t, { name: 'Lister' });
    const a = await hitFlow(tenant, 'list-a');
    const b = await hitFlow(tenant, 'list-b');
    const all = [...b.alerts, ...a.alerts];

    const pages: Alert[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: { items: Alert[]; next_cursor: string | null } } = await withKey(
        tenant,
        'GET',
        `/v1/alerts?limit=1${cursor ? `&after=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      pages.push(...r.body.items);
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(pages.map((x) => x.id)).toEqual(all.map((x) => x.id));
    const created = pages.map((x) => x.created_at);
    expect([...created].sort().reverse()).toEqual(created);

    const first = a.alerts[0] as Alert;
    const byFlow = await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?flow_id=${a.flow.id}`);
    expect(byFlow.body.items.map((x) => x.id)).toEqual(a.alerts.map((x) => x.id));
    const byApplicant = await withKey<{ items: Alert[] }>(
      tenant,
      'GET',
      `/v1/alerts?applicant_id=${b.flow.applicant_id}`,
    );
    expect(byApplicant.body.items.map((x) => x.id)).toEqual(b.alerts.map((x) => x.id));
    const byCheck = await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?check_id=${first.check_id}`);
    expect(byCheck.body.items.every((x) => x.check_id === first.check_id)).toBe(true);
    expect(byCheck.body.items.length).toBe(a.alerts.length);

    // SLA: sanctions alerts are due 24 h after they are raised
    const sla = Date.parse(first.queue_sla_at ?? '') - Date.parse(first.created_at);
    expect(Math.round(sla / 3600_000)).toBe(24);
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const later = new Date(Date.now() + 48 * 3600_000).toISOString();
    expect(
      (await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?due_before=${soon}`)).body.items,
    ).toEqual([]);
    expect(
      (await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?due_before=${later}`)).body.items.length,
    ).toBe(all.length);

    // closing one takes it out of the SLA queue and moves it between state filters
    const closed = await withKey(
      tenant,
      'POST',
      `/v1/alerts/${first.id}/disposition`,
      dispose('false_positive'),
    );
    expect(closed.status).toBe(200);
    const open = await withKey<{ items: Alert[] }>(tenant, 'GET', '/v1/alerts?state=open');
    expect(open.body.items.map((x) => x.id)).not.toContain(first.id);
    expect(open.body.items.length).toBe(all.length - 1);
    const fp = await withKey<{ items: Alert[] }>(tenant, 'GET', '/v1/alerts?state=closed_false_positive');
    expect(fp.body.items.map((x) => x.id)).toEqual([first.id]);
    expect(
      (await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?due_before=${later}`)).body.items.length,
    ).toBe(all.length - 1);

    // validation
    expect((await withKey(tenant, 'GET', '/v1/alerts?state=closed')).status).toBe(422);
    expect((await withKey(tenant, 'GET', '/v1/alerts?bogus=1')).status).toBe(422);
    expect((await withKey(tenant, 'GET', '/v1/alerts?after=nonsense')).status).toBe(422);
    expect((await withKey(tenant, 'GET', '/v1/alerts?due_before=tomorrow')).status).toBe(422);
  });
});

describe('alert workflow without four-eyes', () => {
  it('get embeds the applicant, assignee and check summaries', async () => {
    const { flow, alerts } = await hitFlow(plain.tenant, 'cust-get');
    const a = alerts[0] as Alert;
    const g = await withKey(plain.tenant, 'GET', `/v1/alerts/${a.id}`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({
      state: 'open',
      subject_ref: 'cust-get',
      four_eyes_required: false,
      assigned_to: null,
      assignee: null,
      applicant: { id: flow.applicant_id, external_id: 'cust-get', name: 'Ivan Demovsky' },
      check: { id: a.check_id, status: 'completed', decision: 'MANUAL_REVIEW' },
    });
    expect(typeof g.body.evidence.entity_fingerprint).toBe('string');
  });

  it('assign moves open → in_review (and back when unassigned); each change bumps updated_at and writes alert.updated', async () => {
    const { alerts } = await hitFlow(plain.tenant, 'cust-assign');
    const a = alerts[0] as Alert;
    const analyst = plain.ops.analyst as Op;
    const r = await as(analyst, 'POST', `/v1/alerts/${a.id}/assign`, { assignee_id: analyst.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      state: 'in_review',
      assigned_to: analyst.id,
      assignee: { id: analyst.id, name: 'analyst person', role: 'analyst' },
    });
    expect(Date.parse(r.body.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
    const mine = await as<{ items: Alert[] }>(analyst, 'GET', '/v1/alerts?assignee=me');
    expect(mine.body.items.map((x) => x.id)).toEqual([a.id]);
    const byId = await withKey<{ items: Alert[] }>(plain.tenant, 'GET', `/v1/alerts?assignee=${analyst.id}`);
    expect(byId.body.items.map((x) => x.id)).toEqual([a.id]);

    // reassigning to a colleague keeps the review going; unassigning puts it back in the queue
    const other = plain.ops.analyst2 as Op;
    const re = await as(analyst, 'POST', `/v1/alerts/${a.id}/assign`, { assignee_id: other.id });
    expect(re.body).toMatchObject({ state: 'in_review', assigned_to: other.id });
    const un = await as(other, 'POST', `/v1/alerts/${a.id}/assign`, { assignee_id: null });
    expect(un.body).toMatchObject({ state: 'open', assigned_to: null, assignee: null });
    const none = await withKey<{ items: Alert[] }>(plain.tenant, 'GET', '/v1/alerts?assignee=none');
    expect(none.body.items.map((x) => x.id)).toContain(a.id);

    const unknown = await as(analyst, 'POST', `/v1/alerts/${a.id}/assign`, {
      assignee_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(422);
    const foreign = await as(analyst, 'POST', `/v1/alerts/${a.id}/assign`, {
      assignee_id: four.ops.analyst?.id,
    });
    expect(foreign.status).toBe(422);

    const ev = await updatedEvents(a.id);
    expect(ev.map((e) => e.type)).toEqual([
      'alert.created',
      'alert.updated',
      'alert.updated',
      'alert.updated',
    ]);
    expect(ev[1]?.payload).toMatchObject({
      action: 'assign',
      previous_state: 'open',
      state: 'in_review',
      assigned_to: analyst.id,
      actor_id: analyst.id,
    });
    expect(ev[3]?.payload).toMatchObject({ action: 'unassign', state: 'open', assigned_to: null });
  });

  it('disposition without four-eyes closes the alert; a closed alert accepts no further change', async () => {
    const { alerts } = await hitFlow(plain.tenant, 'cust-close');
    const a = alerts[0] as Alert;
    const analyst = plain.ops.analyst as Op;
    const d = await as(
      analyst,
      'POST',
      `/v1/alerts/${a.id}/disposition`,
      dispose('true_match', 'same person'),
    );
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body).toMatchObject({
      state: 'closed_true_match',
      disposition: 'true_match',
      disposed_by: analyst.id,
      disposition_reason: 'same person',
      disposition_evidence: [{ kind: 'note', text: 'compared date of birth with the list entry' }],
      reviewed_by: null,
    });
    expect(d.body.disposed_at).not.toBeNull();
    for (const [path, body] of [
      ['disposition', dispose('false_positive')],
      ['escalate', undefined],
      ['assign', { assignee_id: analyst.id }],
    ] as const) {
      const r = await as<ErrorBody>(analyst, 'POST', `/v1/alerts/${a.id}/${path}`, body);
      expect(r.status, path).toBe(409);
      expect(r.body.error.code).toBe('alert_state_conflict');
    }
    const approve = await as<ErrorBody>(plain.ops.supervisor, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(approve.status).toBe(409);
    expect(approve.body.error.code).toBe('alert_nothing_pending');
    // invalid bodies
    const bad = await as(analyst, 'POST', `/v1/alerts/${a.id}/disposition`, {
      disposition: 'maybe',
      reason: 'x',
    });
    expect(bad.status).toBe(422);
    const noReason = await as(analyst, 'POST', `/v1/alerts/${a.id}/disposition`, {
      disposition: 'true_match',
    });
    expect(noReason.status).toBe(422);
  });

  it('escalate: open → escalated once; an escalated alert is disposed by a supervisor, not an analyst', async () => {
    const { alerts } = await hitFlow(plain.tenant, 'cust-esc');
    const a = alerts[0] as Alert;
    const e = await as(plain.ops.analyst, 'POST', `/v1/alerts/${a.id}/escalate`);
    expect(e.status).toBe(200);
    expect(e.body.state).toBe('escalated');
    expect(e.body.escalated_at).not.toBeNull();
    const again = await as<ErrorBody>(plain.ops.analyst, 'POST', `/v1/alerts/${a.id}/escalate`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('alert_state_conflict');
    const byAnalyst = await as<ErrorBody>(
      plain.ops.analyst,
      'POST',
      `/v1/alerts/${a.id}/disposition`,
      dispose('false_positive'),
    );
    expect(byAnalyst.status).toBe(403);
    expect(byAnalyst.body.error.code).toBe('insufficient_role');
    const bySupervisor = await as(
      plain.ops.supervisor,
      'POST',
      `/v1/alerts/${a.id}/disposition`,
      dispose('false_positive'),
    );
    expect(bySupervisor.status).toBe(200);
    expect(bySupervisor.body).toMatchObject({
      state: 'closed_false_positive',
      disposed_by: plain.ops.supervisor?.id,
    });
  });

  it('is tenant-scoped (404 elsewhere) and closed to publishable keys', async () => {
    const { alerts } = await hitFlow(plain.tenant, 'cust-scope');
    const a = alerts[0] as Alert;
    expect((await withKey(four.tenant, 'GET', `/v1/alerts/${a.id}`)).status).toBe(404);
    for (const [path, body] of [
      ['assign', { assignee_id: null }],
      ['escalate', undefined],
      ['disposition', dispose('false_positive')],
      ['approve', undefined],
      ['reject', { reason: 'no' }],
    ] as const) {
      expect((await withKey(four.tenant, 'POST', `/v1/alerts/${a.id}/${path}`, body)).status, path).toBe(404);
      expect((await as(four.ops.supervisor, 'POST', `/v1/alerts/${a.id}/${path}`, body)).status, path).toBe(
        404,
      );
    }
    const list = await withKey<{ items: Alert[] }>(four.tenant, 'GET', `/v1/alerts?check_id=${a.check_id}`);
    expect(list.body.items).toEqual([]);
    const pk = await call(t.url, 'GET', `/v1/alerts/${a.id}`, { token: plain.tenant.publishable_key });
    expect(pk.status).toBe(403);
    expect((await call(t.url, 'GET', '/v1/alerts', { token: plain.tenant.publishable_key })).status).toBe(
      403,
    );
    expect((await withKey(plain.tenant, 'GET', '/v1/alerts/not-a-uuid')).status).toBe(422);
    expect((await withKey(plain.tenant, 'GET', `/v1/alerts/${a.check_id}`)).status).toBe(404);
  });
});

describe('four-eyes', () => {
  it("an analyst's disposition is pending until a different supervisor approves it", async () => {
    const { alerts } = await hitFlow(four.tenant, 'fe-1');
    const a = alerts[0] as Alert;
    expect(a.four_eyes_required).toBe(true);
    const analyst = four.ops.analyst as Op;
    const p = await as(analyst, 'POST', `/v1/alerts/${a.id}/disposition`, dispose('true_match', 'same DOB'));
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body).toMatchObject({
      state: 'pending_approval',
      disposition: 'true_match',
      disposed_by: analyst.id,
      disposed_at: null,
      disposition_reason: 'same DOB',
      reviewed_by: null,
    });
    // proposing again while pending is a conflict
    const again = await as<ErrorBody>(
      analyst,
      'POST',
      `/v1/alerts/${a.id}/disposition`,
      dispose('false_positive'),
    );
    expect(again.status).toBe(409);
    // analysts cannot approve (role), supervisors can
    const byAnalyst = await as<ErrorBody>(four.ops.analyst2, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(byAnalyst.status).toBe(403);
    expect(byAnalyst.body.error.code).toBe('insufficient_role');
    const ok = await as(four.ops.supervisor, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      state: 'closed_true_match',
      disposition: 'true_match',
      disposed_by: analyst.id,
      reviewed_by: four.ops.supervisor?.id,
    });
    expect(ok.body.disposed_at).not.toBeNull();
    // nothing is pending any more
    const twice = await as<ErrorBody>(four.ops.supervisor2, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('alert_nothing_pending');
    const ev = await updatedEvents(a.id);
    expect(ev.map((e) => (e.payload as { action?: string }).action ?? e.type)).toEqual([
      'alert.created',
      'dispose',
      'approve',
    ]);
  });

  it('self-approval is refused (403), also for supervisors and for the secret key', async () => {
    const { alerts } = await hitFlow(four.tenant, 'fe-self');
    const [a, b] =
      alerts.length > 1 ? alerts : [alerts[0], (await hitFlow(four.tenant, 'fe-self-2')).alerts[0]];
    const sup = four.ops.supervisor as Op;
    expect((await as(sup, 'POST', `/v1/alerts/${a?.id}/disposition`, dispose('false_positive'))).status).toBe(
      200,
    );
    const self = await as<ErrorBody>(sup, 'POST', `/v1/alerts/${a?.id}/approve`);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('self_approval_forbidden');
    expect((await as(four.ops.supervisor2, 'POST', `/v1/alerts/${a?.id}/approve`)).body.state).toBe(
      'closed_false_positive',
    );

    // the secret key is one admin operator (api_key:<key id>): it cannot approve its own proposal
    const byKey = await withKey(
      four.tenant,
      'POST',
      `/v1/alerts/${b?.id}/disposition`,
      dispose('false_positive'),
    );
    expect(byKey.body).toMatchObject({ state: 'pending_approval' });
    expect(byKey.body.disposed_by).toMatch(/^api_key:/);
    const keySelf = await withKey<ErrorBody>(four.tenant, 'POST', `/v1/alerts/${b?.id}/approve`);
    expect(keySelf.status).toBe(403);
    expect(keySelf.body.error.code).toBe('self_approval_forbidden');
    expect((await as(sup, 'POST', `/v1/alerts/${b?.id}/approve`)).status).toBe(200);
  });

  it('approving when nothing is pending → 409; reject sends a proposal back to work', async () => {
    const { alerts } = await hitFlow(four.tenant, 'fe-reject');
    const a = alerts[0] as Alert;
    const open = await as<ErrorBody>(four.ops.supervisor, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(open.status).toBe(409);
    expect(open.body.error.code).toBe('alert_nothing_pending');
    const rejOpen = await as<ErrorBody>(four.ops.supervisor, 'POST', `/v1/alerts/${a.id}/reject`, {
      reason: 'x',
    });
    expect(rejOpen.status).toBe(409);

    const analyst = four.ops.analyst as Op;
    await as(analyst, 'POST', `/v1/alerts/${a.id}/assign`, { assignee_id: analyst.id });
    await as(analyst, 'POST', `/v1/alerts/${a.id}/disposition`, dispose('false_positive'));
    const rej = await as(four.ops.supervisor, 'POST', `/v1/alerts/${a.id}/reject`, {
      reason: 'check the second passport',
    });
    expect(rej.status, JSON.stringify(rej.body)).toBe(200);
    expect(rej.body).toMatchObject({
      state: 'in_review',
      assigned_to: analyst.id,
      disposition: null,
      disposed_by: null,
      disposition_reason: null,
      disposition_evidence: [],
      reviewed_by: four.ops.supervisor?.id,
      review_reason: 'check the second passport',
    });
    expect((await as(analyst, 'POST', `/v1/alerts/${a.id}/reject`, { reason: 'x' })).status).toBe(403);
    // the analyst proposes again; a supervisor approves
    await as(
      analyst,
      'POST',
      `/v1/alerts/${a.id}/disposition`,
      dispose('true_match', 'second passport matches'),
    );
    const ok = await as(four.ops.supervisor2, 'POST', `/v1/alerts/${a.id}/approve`);
    expect(ok.body).toMatchObject({
      state: 'closed_true_match',
      disposition_reason: 'second passport matches',
    });
  });
});
