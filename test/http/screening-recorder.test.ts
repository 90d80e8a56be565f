// One screening recorder (server/checks/recorder.ts): a sync flow, a batch and a monitor screening the same subject
// under the same policy record the same decision, the same evidence shape and the same alert.created payload.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../server/paths.js';
import { expectCatalogueEvents } from '../helpers/events.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

type Json = Record<string, unknown>;
interface CheckRow {
  id: string;
  result: string;
  decision: string | null;
  reason_codes: string[];
  policy_version: string;
  alert_count: number;
  evidence: Json & { matches: Json[] };
}
interface AlertRow {
  id: string;
  check_id: string;
  source_entity_id: string;
  four_eyes_required: boolean;
  evidence: Json;
}

const SUBJECT = { name: 'Ivan Demovsky', type: 'person' };

describe('one screening recorder', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    const pol = await call(t.url, 'PUT', '/v1/check_policy', {
      token: tenant.secret_key,
      body: {
        default_datasets: ['sanctions'],
        four_eyes_required: true,
        aml_match_policy: { fail_threshold: 0.99 },
      },
    });
    expect(pol.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const checkOf = async (where: { flow?: string; batch?: string; check?: string }) => {
    const [c] = await t.app.sql<CheckRow[]>`
      select id, result, decision, reason_codes, policy_version, alert_count, evidence from checks
      where tenant_id = ${tenant.id}
        and (${where.flow ?? null}::uuid is null or flow_id = ${where.flow ?? null}::uuid)
        and (${where.batch ?? null}::uuid is null or batch_id = ${where.batch ?? null}::uuid)
        and (${where.check ?? null}::uuid is null or id = ${where.check ?? null}::uuid)`;
    if (!c) throw new Error(`no check for ${JSON.stringify(where)}`);
    return c;
  };
  const alertsOf = (checkId: string) =>
    t.app.sql<AlertRow[]>`
      select id, check_id, source_entity_id, four_eyes_required, evidence from alerts where check_id = ${checkId}`;
  const createdPayload = async (alertId: string) => {
    const [e] = await t.app.sql<{ payload: Json }[]>`
      select payload from outbox_events where type = 'alert.created' and resource_id = ${alertId}`;
    return e?.payload;
  };

  it('records the same decision, evidence shape and alert.created payload for a sync flow, a batch and a monitor', async () => {
    // a sync flow
    const flow = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
    });
    expect(flow.status).toBe(201);
    const fromFlow = await checkOf({ flow: flow.body.id });

    // a batch of one record
    const batch = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: [{ external_id: 'batch-cust', subjects: [SUBJECT] }], datasets: ['sanctions'] },
    });
    expect(batch.status).toBe(202);
    await waitFor('batch', async () => {
      const b = await call<{ status: string }>(t.url, 'GET', `/v1/check_batches/${batch.body.id}`, {
        token: tenant.secret_key,
      });
      return b.body.status === 'completed' ? true : undefined;
    });
    const fromBatch = await checkOf({ batch: batch.body.id });

    // a monitor, run at once
    const monitor = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: tenant.secret_key,
      body: { subjects: [SUBJECT], external_id: 'monitor-cust', datasets: ['sanctions'] },
    });
    expect(monitor.status).toBe(201);
    const checkId = await waitFor('monitor run', async () => {
      const m = await call<{ last_check_id: string | null }>(
        t.url,
        'GET',
        `/v1/monitors/${monitor.body.id}`,
        {
          token: tenant.secret_key,
        },
      );
      return m.body.last_check_id ?? undefined;
    });
    const fromMonitor = await checkOf({ check: checkId });

    const checks = [fromFlow, fromBatch, fromMonitor];
    // the same decision, by the tenant's policy and rules (not "any hit → MANUAL_REVIEW")
    for (const c of checks) {
      expect(c).toMatchObject({
        result: 'hit',
        decision: 'MANUAL_REVIEW',
        policy_version: 'v1',
        alert_count: 1,
      });
      expect(c.reason_codes).toEqual(fromFlow.reason_codes);
    }
    expect(fromFlow.reason_codes).toContain('aml_sanctions_match');
    // the same check evidence shape (a monitor adds the monitor it ran for), the same matches
    const core = (e: Json) =>
      Object.keys(e)
        .filter((k) => k !== 'monitor_id')
        .sort();
    expect(core(fromBatch.evidence)).toEqual(core(fromFlow.evidence));
    expect(core(fromMonitor.evidence)).toEqual(core(fromFlow.evidence));
    expect(fromMonitor.evidence.monitor_id).toBe(monitor.body.id);
    expect(fromBatch.evidence.matches).toEqual(fromFlow.evidence.matches);
    expect(fromMonitor.evidence.matches).toEqual(fromFlow.evidence.matches);
    expect(fromFlow.evidence.subject).toEqual(SUBJECT);

    // the same alert: one per matched entity, the same evidence (the dashboard reads `features`)
    const alerts = await Promise.all(checks.map((c) => alertsOf(c.id)));
    const [flowAlert, batchAlert, monitorAlert] = alerts.map((a) => {
      expect(a).toHaveLength(1);
      return a[0] as AlertRow;
    }) as [AlertRow, AlertRow, AlertRow];
    expect(flowAlert.evidence).toMatchObject({
      features: expect.any(Object),
      strong: expect.any(Boolean),
      entity_fingerprint: expect.any(String),
    });
    expect(batchAlert.evidence).toEqual(flowAlert.evidence);
    expect(monitorAlert.evidence).toEqual(flowAlert.evidence);
    for (const a of [flowAlert, batchAlert, monitorAlert]) expect(a.four_eyes_required).toBe(true);

    // the same alert.created payload
    const payloads = await Promise.all(
      [flowAlert, batchAlert, monitorAlert].map((a) => createdPayload(a.id)),
    );
    const base = (a: AlertRow) => ({
      alert_id: a.id,
      check_id: a.check_id,
      source_entity_id: a.source_entity_id,
      state: 'open',
      four_eyes_required: true,
    });
    expect(payloads).toEqual([
      { ...base(flowAlert), flow_id: flow.body.id, batch_id: null, monitor_id: null },
      { ...base(batchAlert), flow_id: null, batch_id: batch.body.id, monitor_id: null },
      { ...base(monitorAlert), flow_id: null, batch_id: null, monitor_id: monitor.body.id },
    ]);
  });

  it('migrates alerts recorded in the old monitor shape (evidence nested under `match`) to the one shape', async () => {
    const [alert] = await t.app.sql<(AlertRow & { fp: string })[]>`
      select a.id, a.check_id, a.source_entity_id, a.four_eyes_required, a.evidence from alerts a
      where a.tenant_id = ${tenant.id} order by a.created_at limit 1`;
    if (!alert) throw new Error('no alert');
    const [check] = await t.app.sql<CheckRow[]>`select evidence from checks where id = ${alert.check_id}`;
    const match = check?.evidence.matches.find((m) => m.entity_id === alert.source_entity_id);
    const ev = alert.evidence;
    const old = {
      match,
      entity_fingerprint: ev.entity_fingerprint,
      dataset_version: ev.dataset_version,
      monitor_id: 'a monitor',
    };
    await t.app.sql`update alerts set evidence = ${t.app.sql.json(old as never)} where id = ${alert.id}`;
    const sql = await readFile(join(MIGRATIONS_DIR, '010_alert_evidence_one_shape.sql'), 'utf8');
    await t.app.sql.unsafe(sql);
    const [after] = await t.app.sql<AlertRow[]>`select evidence from alerts where id = ${alert.id}`;
    expect(after?.evidence).toEqual(ev);
  });

  it('writes only events that match the catalogue', async () => {
    expect(await expectCatalogueEvents(t.app.sql)).toBeGreaterThan(0);
  });
});
