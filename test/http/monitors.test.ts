import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../server/monitors/monitor-jobs.js';
import {
  call,
  createTenant,
  DEMO_SOURCE,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface Monitor {
  id: string;
  status: string;
  last_check_id: string | null;
  last_checked_at: string | null;
  last_dataset_partition: string | null;
  next_due_at: string | null;
}

/** The demo list plus one added person (and, when `changed`, a new alias on that person). */
async function demoPlus(dir: string, changed = false): Promise<string> {
  for (const f of ['sdn.csv', 'alt.csv', 'add.csv', 'sdn_comments.csv']) {
    let text = (await readFile(join(DEMO_SOURCE.uri, `demo-${f}`), 'latin1')).replace(
      new RegExp(String.fromCharCode(0x1a) + '$'),
      '',
    );
    if (f === 'sdn.csv')
      text +=
        '999777,"NEWLYLISTED, Quentin Archibald","individual","DEMO",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"FICTIONAL DEMO ENTRY; DOB 1971."\r\n';
    if (f === 'alt.csv' && changed) text += '999777,999001,"aka","NEWLISTED, Quent",-0- \r\n';
    await writeFile(join(dir, f), `${text}\x1a`, 'latin1');
  }
  return pathToFileURL(dir).toString();
}

describe('monitors', () => {
  let t: TestApp;
  let tenant: Tenant;
  const dirs: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const create = (body: Record<string, unknown>) =>
    call<Monitor>(t.url, 'POST', '/v1/monitors', { token: tenant.secret_key, body });
  const get = async (id: string) =>
    (await call<Monitor>(t.url, 'GET', `/v1/monitors/${id}`, { token: tenant.secret_key })).body;
  const alertsFor = (id: string) =>
    t.app.sql<{ source_entity_id: string; state: string }[]>`
      select source_entity_id, state from alerts where subject_ref = ${`monitor:${id}`} order by created_at`;
  const buildVersion = async (uri: string) => {
    const v = await call<{ id: string }>(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: { sources: [{ format: 'ofac_sdn_csv', uri }] },
    });
    return waitFor('build', async () => {
      const g = await call<{ status: string }>(t.url, 'GET', `/admin/dataset_versions/${v.body.id}`, {
        admin: t.adminToken,
      });
      return g.body.status === 'ready' ? v.body.id : undefined;
    });
  };
  const promote = async (id: string) => {
    expect(
      (await call(t.url, 'POST', `/admin/dataset_versions/${id}/promote`, { admin: t.adminToken })).status,
    ).toBe(200);
  };

  it('validates input and runs immediately: a listed subject gets a check and one alert', async () => {
    const bad = await create({ subjects: [] });
    expect(bad.status).toBe(422);
    expect((bad.body as unknown as { detail: unknown }).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'subjects'] }),
    ]);
    // a date of birth may be partial, but never a day or month the calendar does not have
    for (const dob of ['1965-13', '1965-00', '2023-02-29', '1965-04-31']) {
      const impossible = await create({ subjects: [{ name: 'Ivan Demovsky', date_of_birth: dob }] });
      expect(impossible.status, dob).toBe(422);
      expect((impossible.body as unknown as { detail: unknown }).detail, dob).toEqual([
        expect.objectContaining({ loc: ['body', 'subjects', 0, 'date_of_birth'] }),
      ]);
    }
    const m = await create({
      subjects: [{ name: 'Ivan Demovsky', type: 'person' }],
      external_id: 'cust-9',
      datasets: ['sanctions'],
    });
    expect(m.status).toBe(201);
    const ran = await waitFor('first run', async () => {
      const x = await get(m.body.id);
      return x.last_check_id ? x : undefined;
    });
    expect(ran.next_due_at && new Date(ran.next_due_at).getTime()).toBeGreaterThan(
      Date.now() + 23 * 3600_000,
    );
    expect(await alertsFor(m.body.id)).toEqual([{ source_entity_id: 'us_ofac_sdn:900001', state: 'open' }]);
    const [check] = await t.app
      .sql`select result, input_ref from checks where id = ${ran.last_check_id as string}`;
    expect(check).toMatchObject({ result: 'hit', input_ref: `monitor:${m.body.id}` });
  });

  it('lists with filters and a cursor, pauses, resumes and deletes', async () => {
    const a = await create({
      subjects: [{ name: 'Alpha Clean' }],
      external_id: 'alpha-1',
      run_immediately: false,
    });
    const b = await create({
      subjects: [{ name: 'Beta Clean' }],
      external_id: 'beta-1',
      run_immediately: false,
    });
    const search = await call<{ items: Monitor[] }>(t.url, 'GET', '/v1/monitors?search=ALPHA', {
      token: tenant.secret_key,
    });
    expect(search.body.items.map((m) => m.id)).toEqual([a.body.id]);
    const p1 = await call<{ items: Monitor[]; next_cursor: string }>(t.url, 'GET', '/v1/monitors?limit=1', {
      token: tenant.secret_key,
    });
    expect(p1.body.items[0]?.id).toBe(b.body.id);
    const p2 = await call<{ items: Monitor[] }>(
      t.url,
      'GET',
      `/v1/monitors?limit=1&cursor=${p1.body.next_cursor}`,
      { token: tenant.secret_key },
    );
    expect(p2.body.items[0]?.id).toBe(a.body.id);
    const paused = await call<Monitor>(t.url, 'POST', `/v1/monitors/${a.body.id}/pause`, {
      token: tenant.secret_key,
    });
    expect(paused.body.status).toBe('paused');
    const filtered = await call<{ items: Monitor[] }>(t.url, 'GET', '/v1/monitors?status=paused', {
      token: tenant.secret_key,
    });
    expect(filtered.body.items.map((m) => m.id)).toEqual([a.body.id]);
    expect(
      (await call<Monitor>(t.url, 'POST', `/v1/monitors/${a.body.id}/resume`, { token: tenant.secret_key }))
        .body.status,
    ).toBe('active');
    expect(
      (await call(t.url, 'DELETE', `/v1/monitors/${b.body.id}`, { token: tenant.secret_key })).status,
    ).toBe(204);
    expect((await call(t.url, 'GET', `/v1/monitors/${b.body.id}`, { token: tenant.secret_key })).status).toBe(
      404,
    );
    const other = await createTenant(t, { name: 'Other' });
    expect((await call(t.url, 'GET', `/v1/monitors/${a.body.id}`, { token: other.secret_key })).status).toBe(
      404,
    );
  });

  it('runs a due monitor once even when several processes claim at the same time', async () => {
    const m = await create({ subjects: [{ name: 'Gamma Clean' }], run_immediately: false });
    await t.app.sql`update monitors set next_due_at = now() - interval '1 minute' where id = ${m.body.id}`;
    const before = Number(
      (await t.app.sql`select count(*) as n from checks where input_ref = ${`monitor:${m.body.id}`}`)[0]?.n,
    );
    const claims = await Promise.all([claimDue(t.app), claimDue(t.app), claimDue(t.app)]);
    // one claim at most across the three racing passes (the app's own scheduler may win the race)
    expect(claims.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
    await waitFor('the scheduled run', async () => ((await get(m.body.id)).last_check_id ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    const after = Number(
      (await t.app.sql`select count(*) as n from checks where input_ref = ${`monitor:${m.body.id}`}`)[0]?.n,
    );
    expect(after - before).toBe(1);
  });

  it('rescreens on promotion against the delta only: one alert for a new hit, none for unchanged or remembered false positives', async () => {
    const newcomer = await create({
      subjects: [{ name: 'Quentin Newlylisted', type: 'person' }],
      datasets: ['sanctions'],
    });
    const ivan = await call<{ items: Monitor[] }>(t.url, 'GET', '/v1/monitors?search=cust-9', {
      token: tenant.secret_key,
    });
    const ivanId = ivan.body.items[0]?.id as string;
    await waitFor('newcomer first run', async () =>
      (await get(newcomer.body.id)).last_check_id ? true : undefined,
    );
    expect(await alertsFor(newcomer.body.id)).toEqual([]);

    const d1 = await mkdtemp(join(tmpdir(), 'vs-mon-'));
    dirs.push(d1);
    const v2 = await buildVersion(await demoPlus(d1));
    await promote(v2);
    await waitFor('delta rescreen', async () =>
      (await get(newcomer.body.id)).last_dataset_partition === v2 ? true : undefined,
    );
    await waitFor('alert for the newly listed entity', async () =>
      (await alertsFor(newcomer.body.id)).length === 1 ? true : undefined,
    );
    expect(await alertsFor(newcomer.body.id)).toEqual([
      { source_entity_id: 'us_ofac_sdn:999777', state: 'open' },
    ]);
    expect((await alertsFor(ivanId)).length).toBe(1); // unchanged entity: no duplicate

    // the analyst closes it as a false positive; the same data promoted again raises nothing
    await t.app
      .sql`update alerts set state = 'closed_false_positive' where subject_ref = ${`monitor:${newcomer.body.id}`}`;
    const d2 = await mkdtemp(join(tmpdir(), 'vs-mon-'));
    dirs.push(d2);
    const v1 = (
      await t.app.sql`select id from dataset_versions where status = 'ready' order by created_at limit 1`
    )[0]?.id as string;
    await promote(v1);
    const v3 = await buildVersion(await demoPlus(d2));
    await promote(v3);
    await waitFor('delta rescreen v3', async () =>
      (await get(newcomer.body.id)).last_dataset_partition === v3 ? true : undefined,
    );
    expect((await alertsFor(newcomer.body.id)).length).toBe(1);

    // the entity's list data changes (a new alias): the false positive no longer holds, one new alert
    const d3 = await mkdtemp(join(tmpdir(), 'vs-mon-'));
    dirs.push(d3);
    const v4 = await buildVersion(await demoPlus(d3, true));
    await promote(v4);
    await waitFor('alert after the entity changed', async () =>
      (await alertsFor(newcomer.body.id)).length === 2 ? true : undefined,
    );
    expect((await alertsFor(newcomer.body.id)).map((a) => a.state)).toEqual([
      'closed_false_positive',
      'open',
    ]);
  });
});
