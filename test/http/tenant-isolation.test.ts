import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 items 1 and 2: applicant ids are checked against the caller's tenant; another tenant's rows never
// block an erasure; a publishable key never narrows screening.

interface Detail {
  detail: { loc: (string | number)[]; msg: string; type: string }[];
}

let t: TestApp;
let a: Tenant;
let b: Tenant;
let sql: postgres.Sql;

const clean = { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' };
const listed = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };

async function applicantOf(tenant: Tenant, applicant = clean): Promise<string> {
  const r = await call<{ applicant_id: string }>(t.url, 'POST', '/v1/flows', {
    token: tenant.secret_key,
    body: { mode: 'sync', applicant },
  });
  expect(r.status).toBe(201);
  return r.body.applicant_id;
}

beforeAll(async () => {
  t = await startTestApp();
  a = await createTenant(t, { name: 'A' });
  b = await createTenant(t, { name: 'B', allowed_origins: ['https://b.example'] });
  sql = postgres(t.dbUrl, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await t?.close();
});

describe('applicant_id ownership (item 1)', () => {
  it('a batch record naming another tenant’s applicant gets the same 422 as an unknown id', async () => {
    const aApplicant = await applicantOf(a);
    const bApplicant = await applicantOf(b);
    const batch = (id: string) =>
      call<Detail>(t.url, 'POST', '/v1/check_batches', {
        token: b.secret_key,
        body: {
          records: [
            { applicant_id: bApplicant, subjects: [{ name: 'Anna Own' }] },
            { applicant_id: id, subjects: [{ name: 'Anna Other' }] },
          ],
        },
      });
    const foreign = await batch(aApplicant);
    const unknown = await batch(randomUUID());
    for (const r of [foreign, unknown]) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.detail).toEqual([
        { loc: ['body', 'records', 1, 'applicant_id'], msg: expect.any(String), type: 'not_found' },
      ]);
    }
    expect(foreign.body.detail).toEqual(unknown.body.detail);
    const own = await call(t.url, 'POST', '/v1/check_batches', {
      token: b.secret_key,
      body: { records: [{ applicant_id: bApplicant, subjects: [{ name: 'Anna Own' }] }] },
    });
    expect(own.status).toBe(202);
    // nothing of tenant A was touched
    const [n] = await sql<{ n: number }[]>`
      select count(*)::int as n from checks where applicant_id = ${aApplicant} and tenant_id <> ${a.id}`;
    expect(n?.n).toBe(0);
  });

  it('a monitor naming another tenant’s applicant gets the same 422 as an unknown id', async () => {
    const aApplicant = await applicantOf(a);
    const monitor = (id: string) =>
      call<Detail>(t.url, 'POST', '/v1/monitors', {
        token: b.secret_key,
        body: { applicant_id: id, subjects: [{ name: 'Anna Other' }], run_immediately: false },
      });
    const foreign = await monitor(aApplicant);
    const unknown = await monitor(randomUUID());
    for (const r of [foreign, unknown]) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.detail).toEqual([
        { loc: ['body', 'applicant_id'], msg: expect.any(String), type: 'not_found' },
      ]);
    }
    expect(foreign.body.detail).toEqual(unknown.body.detail);
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from monitors where tenant_id = ${b.id}`;
    expect(n?.n).toBe(0);
  });

  it('an erasure completes even when another tenant holds rows naming the applicant (written before the fix)', async () => {
    const aApplicant = await applicantOf(a);
    // what the unchecked batch route used to write: tenant B's check and alert naming A's applicant. Written with
    // constraint triggers off, as rows that predate the tenant-scoped references.
    const checkId = randomUUID();
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`
        insert into checks (id, tenant_id, applicant_id, applicant_name, check_type, status, result, mode, latency_ms)
        values (${checkId}, ${b.id}, ${aApplicant}, 'Anna Other', 'aml_screen', 'completed', 'clear', 'async', 1)`;
    });
    const del = await call(t.url, 'DELETE', `/v1/applicants/${aApplicant}`, { token: a.secret_key });
    expect(del.status).toBe(202);
    const done = await waitFor(
      'the erasure to complete',
      async () => {
        const [e] = await sql<{ status: string }[]>`
          select status from applicant_erasures where applicant_id = ${aApplicant}`;
        return e?.status === 'completed' ? e : undefined;
      },
      20_000,
    );
    expect(done.status).toBe('completed');
    const [gone] = await sql<
      { n: number }[]
    >`select count(*)::int as n from applicants where id = ${aApplicant}`;
    expect(gone?.n).toBe(0);
    // tenant B's own row is B's data: A's erasure does not reach into another tenant
    const [kept] = await sql<{ n: number }[]>`select count(*)::int as n from checks where id = ${checkId}`;
    expect(kept?.n).toBe(1);
  });

  it('the database itself refuses a reference across tenants', async () => {
    const aApplicant = await applicantOf(a);
    await expect(
      sql`
        insert into checks (tenant_id, applicant_id, check_type, status, result, mode, latency_ms)
        values (${b.id}, ${aApplicant}, 'aml_screen', 'completed', 'clear', 'async', 1)`,
    ).rejects.toThrow(/foreign key/);
  });
});

describe('publishable keys never narrow screening (item 2)', () => {
  const pk = (body: Record<string, unknown>) =>
    call<Detail & { result: string }>(t.url, 'POST', '/v1/flows', {
      token: b.publishable_key,
      headers: { origin: 'https://b.example' },
      body: { mode: 'sync', ...body },
    });

  it('refuses datasets from a publishable key with a 422 naming the field', async () => {
    for (const datasets of [['soe'], ['sanctions', 'pep']]) {
      const r = await pk({ applicant: listed, datasets });
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'datasets'], type: 'forbidden' }),
      ]);
    }
    const [n] = await sql<
      { n: number }[]
    >`select count(*)::int as n from flows where tenant_id = ${b.id} and datasets = '{soe}'`;
    expect(n?.n).toBe(0);
  });

  it('screens a publishable key’s flow against the policy’s datasets: a listed person is not approved', async () => {
    const r = await pk({ applicant: listed });
    expect(r.status).toBe(201);
    expect(r.body.result).toBe('review');
  });
});
