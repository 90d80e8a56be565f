import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAlert, ApiFlow } from '../helpers/api-types.js';
import { expectCatalogueEvents } from '../helpers/events.js';
import {
  call,
  createTenant,
  DEMO_SOURCE,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

type Json = Record<string, unknown>;
type Alert = ApiAlert;
type Flow = ApiFlow;
interface ErrorBody {
  error: { code: string };
}

let t: TestApp;
const dirs: string[] = [];
const LISTED = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };
const PASSWORD = 'correct horse battery staple';

const withKey = <T = Alert>(tenant: Tenant, method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, { token: tenant.secret_key, ...(body !== undefined ? { body } : {}) });

async function syncFlow(tenant: Tenant, applicant: Json): Promise<Flow> {
  const f = await withKey<Flow>(tenant, 'POST', '/v1/flows', { mode: 'sync', applicant });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  return f.body;
}
const amlOf = (f: Flow) => f.checks.find((c) => c.check_type === 'aml_screen') as Flow['checks'][number];
const alertsOf = async (tenant: Tenant, query: string) =>
  (await withKey<{ items: Alert[] }>(tenant, 'GET', `/v1/alerts?${query}`)).body.items;

async function closeAll(tenant: Tenant, alerts: Alert[], disposition = 'false_positive') {
  for (const a of alerts) {
    const r = await withKey(tenant, 'POST', `/v1/alerts/${a.id}/disposition`, {
      disposition,
      reason: 'different person: date of birth differs',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
}

async function policy(tenant: Tenant, fourEyes: boolean) {
  const p = await withKey(tenant, 'PUT', '/v1/check_policy', {
    default_datasets: ['sanctions'],
    four_eyes_required: fourEyes,
  });
  expect(p.status).toBe(200);
}

/** The demo list plus one added person (and, when `changed`, a new alias on that person). */
async function demoPlus(changed = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vs-alerts-'));
  dirs.push(dir);
  for (const f of ['sdn.csv', 'alt.csv', 'add.csv', 'sdn_comments.csv']) {
    const raw = await readFile(join(DEMO_SOURCE.uri, `demo-${f}`), 'latin1');
    let text = raw.endsWith('\x1a') ? raw.slice(0, -1) : raw;
    if (f === 'sdn.csv')
      text +=
        '999777,"NEWLYLISTED, Quentin Archibald","individual","DEMO",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"FICTIONAL DEMO ENTRY; DOB 1971."\r\n';
    if (f === 'alt.csv' && changed) text += '999777,999001,"aka","NEWLISTED, Quent",-0- \r\n';
    await writeFile(join(dir, f), `${text}\x1a`, 'latin1');
  }
  return pathToFileURL(dir).toString();
}

async function buildAndPromote(uri: string): Promise<string> {
  const v = await call<{ id: string }>(t.url, 'POST', '/admin/dataset_versions', {
    admin: t.adminToken,
    body: { sources: [{ format: 'ofac_sdn_csv', uri }] },
  });
  const id = await waitFor('build', async () => {
    const g = await call<{ status: string }>(t.url, 'GET', `/admin/dataset_versions/${v.body.id}`, {
      admin: t.adminToken,
    });
    return g.body.status === 'ready' ? v.body.id : undefined;
  });
  const p = await call(t.url, 'POST', `/admin/dataset_versions/${id}/promote`, { admin: t.adminToken });
  expect(p.status).toBe(200);
  return id;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  // every event the file made matches the event catalogue
  if (t) await expectCatalogueEvents(t.app.sql);
  await t?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('false-positive memory', () => {
  it('a second sync flow for the same applicant (external_id) after a false-positive close raises no new alert', async () => {
    const tenant = await createTenant(t, { name: 'Memory' });
    await policy(tenant, false);
    const first = await syncFlow(tenant, { ...LISTED, external_id: 'cust-fp' });
    const raised = await alertsOf(tenant, `flow_id=${first.id}`);
    expect(raised.length).toBeGreaterThan(0);
    expect(amlOf(first).alert_count).toBe(raised.length);
    expect(raised.every((a) => a.subject_ref === 'cust-fp')).toBe(true);

    // while the alerts are open, the same hits raise no duplicates either
    const dup = await syncFlow(tenant, { ...LISTED, external_id: 'cust-fp' });
    expect(amlOf(dup).alert_count).toBe(0);
    expect(await alertsOf(tenant, `flow_id=${dup.id}`)).toEqual([]);

    await closeAll(tenant, raised);
    const second = await syncFlow(tenant, { ...LISTED, external_id: 'cust-fp' });
    expect(amlOf(second).alert_count).toBe(0);
    expect(await alertsOf(tenant, `flow_id=${second.id}`)).toEqual([]);
    // the hit itself is still recorded on the check: only the alert is remembered away
    const check = await withKey<{ items: { id: string; result: string }[] }>(
      tenant,
      'GET',
      `/v1/checks?flow_id=${second.id}&check_type=aml_screen`,
    );
    expect(check.body.items[0]?.result).toBe('hit');

    // another customer with the same name is another subject; a flow without external_id is its own subject
    const other = await syncFlow(tenant, { ...LISTED, external_id: 'cust-other' });
    expect(amlOf(other).alert_count).toBe(raised.length);
    const anon = await syncFlow(tenant, LISTED);
    expect(amlOf(anon).alert_count).toBe(raised.length);
    expect((await alertsOf(tenant, `flow_id=${anon.id}`))[0]?.subject_ref).toBe(anon.applicant_id);

    // the memory is per tenant
    const elsewhere = await createTenant(t, { name: 'Elsewhere' });
    await policy(elsewhere, false);
    expect(amlOf(await syncFlow(elsewhere, { ...LISTED, external_id: 'cust-fp' })).alert_count).toBe(
      raised.length,
    );

    // the alert.created events of suppressed alerts are not written
    const events = await t.app.sql<{ n: string }[]>`
      select count(*) as n from outbox_events where type = 'alert.created' and payload->>'flow_id' = ${second.id}`;
    expect(Number(events[0]?.n)).toBe(0);
  });
});

describe('batch checks raise alerts', () => {
  it('one alert per matched entity of a hit record, with the memory shared with flows', async () => {
    const tenant = await createTenant(t, { name: 'Batcher' });
    await policy(tenant, false);
    const runBatch = async (records: Json[]) => {
      const r = await withKey<{ id: string }>(tenant, 'POST', '/v1/check_batches', {
        records,
        datasets: ['sanctions'],
      });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      await waitFor('batch to complete', async () => {
        const g = await withKey<{ status: string }>(tenant, 'GET', `/v1/check_batches/${r.body.id}`);
        return g.body.status === 'completed' ? true : undefined;
      });
      return r.body.id;
    };
    const records = [
      { external_id: 'b-1', subjects: [{ name: 'Ivan Demovsky', type: 'person' }] },
      { external_id: 'b-2', subjects: [{ name: 'Zephyrine Quorrelby-Atwater', type: 'person' }] },
    ];
    const b1 = await runBatch(records);
    const alerts = await alertsOf(tenant, `batch_id=${b1}`);
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.every((a) => a.subject_ref === 'b-1' && a.batch_id === b1 && a.state === 'open')).toBe(
      true,
    );
    expect(alerts.every((a) => typeof a.evidence.entity_fingerprint === 'string')).toBe(true);
    const checks = await t.app.sql<{ id: string; alert_count: number }[]>`
      select id, alert_count from checks where batch_id = ${b1}`;
    const hit = checks.find((c) => c.id === alerts[0]?.check_id);
    expect(hit?.alert_count).toBe(alerts.length);
    expect(checks.filter((c) => c.id !== hit?.id).map((c) => c.alert_count)).toEqual([0]);
    const got = await withKey(tenant, 'GET', `/v1/alerts/${alerts[0]?.id}`);
    expect(got.body).toMatchObject({ check: { id: alerts[0]?.check_id, decision: 'MANUAL_REVIEW' } });
    const created = await t.app.sql<{ n: string }[]>`
      select count(*) as n from outbox_events where type = 'alert.created' and payload->>'batch_id' = ${b1}`;
    expect(Number(created[0]?.n)).toBe(alerts.length);

    // open: a rescreen in another batch raises no duplicate
    const b2 = await runBatch(records);
    expect(await alertsOf(tenant, `batch_id=${b2}`)).toEqual([]);
    // closed as false positive: neither a batch nor a flow for the same customer raises it again
    await closeAll(tenant, alerts);
    const b3 = await runBatch(records);
    expect(await alertsOf(tenant, `batch_id=${b3}`)).toEqual([]);
    const flow = await syncFlow(tenant, { ...LISTED, external_id: 'b-1' });
    expect(amlOf(flow).alert_count).toBe(0);
  });
});

describe('changed list data', () => {
  it('refreshes the evidence of a pending alert: the four-eyes approval is then stale (409); a change after a false-positive close raises a new alert', async () => {
    const tenant = await createTenant(t, { name: 'Stale' });
    await policy(tenant, true);
    const ops: Record<string, { id: string; cookie: string }> = {};
    for (const role of ['analyst', 'supervisor'] as const) {
      const email = `${role}@stale.test`;
      const o = await withKey<{ id: string }>(tenant, 'POST', '/v1/operators', {
        email,
        name: role,
        role,
        password: PASSWORD,
      });
      const s = await call(t.url, 'POST', '/v1/sessions', {
        body: { tenant_id: tenant.id, email, password: PASSWORD },
      });
      ops[role] = { id: o.body.id, cookie: s.headers.get('set-cookie')?.split(';')[0] ?? '' };
    }
    const as = <T = Alert>(role: string, path: string, body?: unknown) =>
      call<T>(t.url, 'POST', path, {
        headers: { cookie: ops[role]?.cookie ?? '', origin: t.url },
        ...(body !== undefined ? { body } : {}),
      });
    const newcomer = { legal_name_first: 'Quentin', legal_name_last: 'Newlylisted', external_id: 'q-1' };
    /** sync flows for the newcomer until one was screened against `version` (promotion reaches the matcher
     * asynchronously) */
    const flowOn = (version: string) =>
      waitFor(`a flow screened on ${version}`, async () => {
        const f = await syncFlow(tenant, newcomer);
        return amlOf(f).dataset_versions.includes(version) ? f : undefined;
      });

    const v2 = await buildAndPromote(await demoPlus());
    await flowOn(v2);
    const [alert] = await alertsOf(tenant, 'state=open');
    expect(alert?.source_entity_id).toBe('us_ofac_sdn:999777');
    const proposed = await as('analyst', `/v1/alerts/${alert?.id}/disposition`, {
      disposition: 'false_positive',
      reason: 'different person',
    });
    expect(proposed.body).toMatchObject({ state: 'pending_approval' });

    // the entity's list data changes; the next screening of the subject refreshes the pending alert's evidence
    const v4 = await buildAndPromote(await demoPlus(true));
    const onV4 = await flowOn(v4);
    expect(amlOf(onV4).alert_count).toBe(0);
    const refreshed = await withKey(tenant, 'GET', `/v1/alerts/${alert?.id}`);
    expect(refreshed.body.evidence.refreshed_by_check_id).toBe(amlOf(onV4).id);
    expect(refreshed.body.evidence.entity_fingerprint).not.toBe(alert?.evidence.entity_fingerprint);
    const stale = await as<ErrorBody>('supervisor', `/v1/alerts/${alert?.id}/approve`);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('alert_evidence_stale');
    expect((await withKey(tenant, 'GET', `/v1/alerts/${alert?.id}`)).body.state).toBe('pending_approval');
    const events = await t.app.sql<{ payload: { action: string } }[]>`
      select payload from outbox_events where resource_id = ${alert?.id ?? ''} and type = 'alert.updated' order by seq`;
    expect(events.map((e) => e.payload.action)).toEqual(['dispose', 'evidence_refreshed']);

    // sent back, proposed again on the new evidence, approved: closed as a false positive
    expect(
      (await as('supervisor', `/v1/alerts/${alert?.id}/reject`, { reason: 'list data changed' })).status,
    ).toBe(200);
    await as('analyst', `/v1/alerts/${alert?.id}/disposition`, {
      disposition: 'false_positive',
      reason: 'still a different person',
    });
    const ok = await as('supervisor', `/v1/alerts/${alert?.id}/approve`);
    expect(ok.body).toMatchObject({ state: 'closed_false_positive' });

    // remembered on the same data …
    expect(amlOf(await syncFlow(tenant, newcomer)).alert_count).toBe(0);
    // … and raised again when the entity's data changes after the close (back to the version without the alias)
    const v5 = await buildAndPromote(await demoPlus());
    const onV5 = await flowOn(v5);
    expect(amlOf(onV5).alert_count).toBe(1);
    expect((await alertsOf(tenant, 'state=open')).map((a) => a.source_entity_id)).toEqual([
      'us_ofac_sdn:999777',
    ]);
  });
});
