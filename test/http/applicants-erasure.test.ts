import { createHmac } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureHooks } from '../../server/applicants/applicant-erasure.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let acme: Tenant;

const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0erin-passport'),
]);
const erin = {
  external_id: 'ERASE-ME-77',
  legal_name_first: 'Erinhild',
  legal_name_last: 'Erasabella',
  email: 'erin.erasable@example.net',
  dob: '1985-04-12',
  address_line1: '221B Bakerstreetish',
  address_country: 'GB',
};
const sam = { external_id: 'ERASE-ME-78', legal_name_first: 'Sammyjo', legal_name_last: 'Cleanwaterford' };
const keep = { external_id: 'KEEP-ME-1', legal_name_first: 'Keeperine', legal_name_last: 'Staysalot' };

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Rows of every table of the database whose JSON text contains any needle (case-insensitive). */
async function rowsContaining(needles: string[], except: (table: string, row: string) => boolean) {
  const tables = await t.app.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`;
  const hits: string[] = [];
  for (const { table_name } of tables) {
    const rows = await t.app.sql<{ j: string }[]>`
      select row_to_json(x)::text as j from ${t.app.sql(table_name)} x
      where row_to_json(x)::text ilike any(${needles.map((n) => `%${n}%`)})`;
    for (const r of rows) if (!except(table_name, r.j)) hits.push(`${table_name}: ${r.j.slice(0, 300)}`);
  }
  return hits;
}

let erinFlow: { id: string; applicant_id: string };
let samFlow: { id: string; applicant_id: string; checks: { id: string }[] };
let keepFlow: { id: string; applicant_id: string };
let docId: string;

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  const e = await call<typeof erinFlow>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: erin },
  });
  expect(e.status).toBe(201);
  erinFlow = e.body;
  const s = await call<typeof samFlow>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: sam, mode: 'sync' },
  });
  expect(s.status).toBe(201);
  samFlow = s.body;
  const k = await call<typeof keepFlow>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: keep, mode: 'sync' },
  });
  keepFlow = k.body;
  // a verified document of erin's in the bucket
  const d = await call<{ id: string; upload: { url: string; headers: Record<string, string> } }>(
    t.url,
    'POST',
    `/v1/flows/${erinFlow.id}/documents`,
    { token: acme.secret_key, body: { doc_type: 'passport', mime_type: 'image/jpeg' } },
  );
  docId = d.body.id;
  const put = await fetch(d.body.upload.url, { method: 'PUT', headers: d.body.upload.headers, body: JPEG });
  await put.arrayBuffer();
  await call(t.url, 'POST', `/v1/flows/${erinFlow.id}/documents/${docId}/complete`, {
    token: acme.secret_key,
  });
  await waitFor(
    () =>
      call<{ upload_status: string }>(t.url, 'GET', `/v1/flows/${erinFlow.id}/documents/${docId}`, {
        token: acme.secret_key,
      }),
    (r) => r.body.upload_status === 'verified',
  );
});
afterAll(async () => {
  erasureHooks.afterObjectsDeleted = undefined;
  await t?.close();
});

describe('data-subject erasure', () => {
  it('is refused with 409 while a flow is open, and needs admin authority', async () => {
    const r = await call<{
      error: { code: string; details: { open_flows: { id: string; status: string }[] } };
    }>(t.url, 'DELETE', `/v1/applicants/${erinFlow.applicant_id}`, { token: acme.secret_key });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('applicant_has_open_flows');
    expect(r.body.error.details.open_flows).toEqual([{ id: erinFlow.id, status: 'PENDING' }]);
    const pk = await call(t.url, 'DELETE', `/v1/applicants/${erinFlow.applicant_id}`, {
      token: acme.publishable_key,
    });
    expect(pk.status).toBe(403);
    const still = await call(t.url, 'GET', `/v1/applicants/${erinFlow.applicant_id}`, {
      token: acme.secret_key,
    });
    expect(still.status).toBe(200);
  });

  it('is accepted once no flow is open; the applicant vanishes at once; the purge survives a crash', async () => {
    // the flow is decided (flow processing belongs to the flows issue: the test moves it directly)
    await t.app
      .sql`update flows set status = 'APPROVED', decision = 'AUTO_APPROVED' where id = ${erinFlow.id}`;
    // the first purge attempt crashes after deleting the objects and before touching the database
    let crashes = 0;
    let crashed: string | undefined;
    erasureHooks.afterObjectsDeleted = (erasureId) => {
      crashes++;
      if (crashed === undefined) {
        crashed = erasureId;
        throw new Error('simulated worker crash');
      }
    };
    const r = await call<{ id: string; applicant_id: string; status: string; erased_at: string }>(
      t.url,
      'DELETE',
      `/v1/applicants/${erinFlow.applicant_id}`,
      { token: acme.secret_key },
    );
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ applicant_id: erinFlow.applicant_id, status: 'scheduled' });
    expect(r.body.erased_at).toBeTruthy();
    expect(
      (await call(t.url, 'GET', `/v1/applicants/${erinFlow.applicant_id}`, { token: acme.secret_key }))
        .status,
    ).toBe(404);
    const listed = await call<{ items: { id: string }[] }>(t.url, 'GET', '/v1/applicants?q=erasabella', {
      token: acme.secret_key,
    });
    expect(listed.body.items).toEqual([]);
    expect(
      (await call(t.url, 'DELETE', `/v1/applicants/${erinFlow.applicant_id}`, { token: acme.secret_key }))
        .status,
    ).toBe(404);

    const s = await call(t.url, 'DELETE', `/v1/applicants/${samFlow.applicant_id}`, {
      token: acme.secret_key,
    });
    expect(s.status).toBe(202);

    const done = await waitFor(
      () => t.app.sql<{ id: string; applicant_id: string; status: string; attempts: number }[]>`
        select id, applicant_id, status, attempts from applicant_erasures order by requested_at`,
      (rows) => rows.length === 2 && rows.every((x) => x.status === 'completed'),
    );
    expect(done.map((x) => x.status)).toEqual(['completed', 'completed']);
    // the crashed purge was redelivered and finished
    expect(crashed).toBeDefined();
    expect(done.find((x) => x.id === crashed)?.attempts).toBeGreaterThanOrEqual(2);
    expect(crashes).toBeGreaterThanOrEqual(3);
  });

  it('leaves no personal data in any table or in the bucket', async () => {
    const emailHash = createHmac('sha256', t.app.config.PII_HASH_KEY).update(erin.email).digest('hex');
    const pii = [
      erin.external_id,
      erin.legal_name_first,
      erin.legal_name_last,
      erin.email,
      emailHash,
      erin.dob,
      erin.address_line1,
      sam.external_id,
      sam.legal_name_first,
      sam.legal_name_last,
    ];
    expect(await rowsContaining(pii, () => false)).toEqual([]);
    // identifiers may stay only in the audit trail, the erasure records and the applicant.erased event
    const identifiers = [erinFlow.applicant_id, erinFlow.id, docId, samFlow.applicant_id, samFlow.id];
    for (const c of samFlow.checks ?? []) identifiers.push(c.id);
    const left = await rowsContaining(
      identifiers,
      (table, row) =>
        table === 'audit_log' ||
        table === 'applicant_erasures' ||
        (table === 'outbox_rows' && row.includes('"type":"applicant.erased"')),
    );
    expect(left).toEqual([]);

    const objects = await t.app.store.client.send(new ListObjectsV2Command({ Bucket: t.app.store.bucket }));
    const keys = (objects.Contents ?? []).map((o) => o.Key ?? '');
    expect(keys.filter((k) => k.includes(erinFlow.applicant_id) || k.includes(samFlow.applicant_id))).toEqual(
      [],
    );

    // the control applicant is untouched
    const kept = await call(t.url, 'GET', `/v1/applicants/${keepFlow.applicant_id}`, {
      token: acme.secret_key,
    });
    expect(kept.status).toBe(200);
    expect((await call(t.url, 'GET', `/v1/flows/${keepFlow.id}`, { token: acme.secret_key })).status).toBe(
      200,
    );
  });

  it('writes the applicant.erased tombstone with hashes only; audit rows survive', async () => {
    const r = await call<{
      items: { action: string; resource_id: string; actor_type: string; details: Record<string, unknown> }[];
    }>(t.url, 'GET', `/v1/audit_events?resource_id=${erinFlow.applicant_id}`, { token: acme.secret_key });
    expect(r.status).toBe(200);
    const actions = r.body.items.map((i) => i.action);
    expect(actions).toEqual(['applicant.erased', 'applicant.erasure_requested']);
    const tomb = r.body.items[0];
    expect(tomb?.actor_type).toBe('system');
    expect(tomb?.details.external_id_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tomb?.details.objects).toBe(1);
    expect(tomb?.details.rows).toMatchObject({ applicants: 1, flows: 1, documents: 1 });
    const sams = await call<{ items: { details: { rows: Record<string, number> } }[] }>(
      t.url,
      'GET',
      `/v1/audit_events?action=applicant.erased&resource_id=${samFlow.applicant_id}`,
      { token: acme.secret_key },
    );
    expect(sams.body.items[0]?.details.rows).toMatchObject({ applicants: 1, flows: 1, checks: 1 });
  });
});
