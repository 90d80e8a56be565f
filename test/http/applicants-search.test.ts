import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApplicant } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Applicant = ApiApplicant;
interface Page {
  items: Applicant[];
  next_cursor: string | null;
}

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
const ids: Record<string, string> = {};

async function applicant(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
  const r = await call<{ applicant_id: string }>(t.url, 'POST', '/v1/flows', {
    token: tenant.secret_key,
    body: { applicant: body },
  });
  if (r.status !== 201) throw new Error(`flow create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.applicant_id;
}

const list = (q: string, tenant = acme) =>
  call<Page>(t.url, 'GET', `/v1/applicants${q}`, { token: tenant.secret_key });

beforeAll(async () => {
  t = await startTestApp({ sources: null });
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  // created oldest → newest
  ids.anna = await applicant(acme, {
    external_id: 'CUST-0001',
    legal_name_first: 'Anna',
    legal_name_last: 'Karenina',
    email: 'Anna.K@Example.com',
  });
  ids.boris = await applicant(acme, {
    external_id: 'CUST-0002',
    legal_name_first: 'Boris',
    legal_name_last: 'Godunov',
  });
  ids.carla = await applicant(acme, {
    external_id: 'cust-0003',
    legal_name_first: 'Carla',
    legal_name_last: 'Annaberg',
  });
  ids.dmitri = await applicant(acme, {
    external_id: 'X-9',
    legal_name_first: 'Dmitri',
    legal_name_last: 'Karamazov',
  });
  ids.biz = await applicant(acme, { entity_type: 'business', business_name: 'Annapurna Trading 100%_Ltd' });
  ids.other = await applicant(globex, {
    external_id: 'CUST-0001',
    legal_name_first: 'Anna',
    legal_name_last: 'Other',
  });
});
afterAll(async () => {
  await t?.close();
});

describe('applicant list and search', () => {
  it('lists newest first with cursor pages, tenant-scoped', async () => {
    const p1 = await list('?limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.items.map((a) => a.id)).toEqual([ids.biz, ids.dmitri]);
    expect(p1.body.next_cursor).toBeTruthy();
    const p2 = await list(`?limit=2&after=${p1.body.next_cursor}`);
    expect(p2.body.items.map((a) => a.id)).toEqual([ids.carla, ids.boris]);
    const p3 = await list(`?limit=2&after=${p2.body.next_cursor}`);
    expect(p3.body.items.map((a) => a.id)).toEqual([ids.anna]);
    expect(p3.body.next_cursor).toBeNull();
    const g = await list('', globex);
    expect(g.body.items.map((a) => a.id)).toEqual([ids.other]);
  });

  it('q is a case-insensitive substring over external_id, names and business_name', async () => {
    const anna = await list('?q=ANNA');
    expect(anna.body.items.map((a) => a.id)).toEqual([ids.biz, ids.carla, ids.anna]);
    const cust = await list('?q=cust-000');
    expect(cust.body.items.map((a) => a.id).sort()).toEqual([ids.anna, ids.boris, ids.carla].sort());
    const kara = await list('?q=KAR&limit=1');
    expect(kara.body.items.map((a) => a.id)).toEqual([ids.dmitri]);
    const kara2 = await list(`?q=KAR&limit=1&after=${kara.body.next_cursor}`);
    expect(kara2.body.items.map((a) => a.id)).toEqual([ids.anna]);
    expect(kara2.body.next_cursor).toBeNull();
    // LIKE wildcards in q are literal
    const pct = await list(`?q=${encodeURIComponent('100%_l')}`);
    expect(pct.body.items.map((a) => a.id)).toEqual([ids.biz]);
    const wild = await list(`?q=${encodeURIComponent('%')}`);
    expect(wild.body.items.map((a) => a.id)).toEqual([ids.biz]);
  });

  it('stores the e-mail only as hash + hint; q finds it by the address or part of the hash', async () => {
    const a = await call<Applicant>(t.url, 'GET', `/v1/applicants/${ids.anna}`, { token: acme.secret_key });
    expect(a.status).toBe(200);
    expect(a.body.email_hash).toMatch(/^[0-9a-f]{64}$/);
    const [row] = await t.app.sql<
      { t: string }[]
    >`select row_to_json(a)::text as t from applicants a where id = ${ids.anna ?? ''}`;
    expect(row?.t.toLowerCase()).not.toContain('anna.k@example.com');
    const byEmail = await list(`?q=${encodeURIComponent('anna.k@example.COM')}`);
    expect(byEmail.body.items.map((x) => x.id)).toEqual([ids.anna]);
    const byHash = await list(`?q=${a.body.email_hash?.slice(10, 30)}`);
    expect(byHash.body.items.map((x) => x.id)).toEqual([ids.anna]);
  });

  it('validates q, limit and cursor', async () => {
    expect((await list('?q=')).status).toBe(422);
    expect((await list(`?q=${'a'.repeat(201)}`)).status).toBe(422);
    expect((await list('?limit=0')).status).toBe(422);
    expect((await list('?limit=201')).status).toBe(422);
    const bad = await call<{ detail: { loc: unknown[] }[] }>(t.url, 'GET', '/v1/applicants?after=nope', {
      token: acme.secret_key,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]?.loc).toEqual(['query', 'after']);
    expect((await list('?status=bogus')).status).toBe(422);
  });

  it('filters by internal_status (set by admin authority) and combines with q', async () => {
    const r = await call<Applicant>(t.url, 'PATCH', `/v1/applicants/${ids.boris}`, {
      token: acme.secret_key,
      body: { internal_status: 'blocked', risk_tier: 'high' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ internal_status: 'blocked', risk_tier: 'high' });
    const blocked = await list('?status=blocked');
    expect(blocked.body.items.map((a) => a.id)).toEqual([ids.boris]);
    expect((await list('?status=blocked&q=anna')).body.items).toEqual([]);
    expect((await list('?status=active&q=anna')).body.items.length).toBe(3);
  });
});

describe('applicant get and patch', () => {
  it('patches contact, name and custom attributes (merge; null removes)', async () => {
    const r1 = await call<Applicant>(t.url, 'PATCH', `/v1/applicants/${ids.carla}`, {
      token: acme.secret_key,
      body: {
        legal_name_last: 'Zyxwvut',
        email: 'carla@example.org',
        address_city: 'Lisbon',
        custom_attributes: { tier: 'gold', crm: 42 },
      },
    });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      legal_name_last: 'Zyxwvut',
      email_hint: 'c•••@example.org',
      address_city: 'Lisbon',
      custom_attributes: { tier: 'gold', crm: 42 },
    });
    const r2 = await call<Applicant>(t.url, 'PATCH', `/v1/applicants/${ids.carla}`, {
      token: acme.secret_key,
      body: { custom_attributes: { crm: null }, address_city: null },
    });
    expect(r2.body.custom_attributes).toEqual({ tier: 'gold' });
    expect(r2.body.address_city).toBeNull();
    // the search index follows the change
    expect((await list('?q=zyxw')).body.items.map((a) => a.id)).toEqual([ids.carla]);
  });

  it('refuses unknown fields, empty patches and other tenants', async () => {
    const extra = await call<{ detail: { loc: unknown[]; type: string }[] }>(
      t.url,
      'PATCH',
      `/v1/applicants/${ids.carla}`,
      { token: acme.secret_key, body: { email_hash: 'x' } },
    );
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'email_hash'], type: 'extra_forbidden' });
    const empty = await call(t.url, 'PATCH', `/v1/applicants/${ids.carla}`, {
      token: acme.secret_key,
      body: {},
    });
    expect(empty.status).toBe(422);
    const other = await call(t.url, 'GET', `/v1/applicants/${ids.carla}`, { token: globex.secret_key });
    expect(other.status).toBe(404);
    const otherPatch = await call(t.url, 'PATCH', `/v1/applicants/${ids.carla}`, {
      token: globex.secret_key,
      body: { legal_name_first: 'X' },
    });
    expect(otherPatch.status).toBe(404);
    const pk = await call(t.url, 'GET', '/v1/applicants', { token: acme.publishable_key });
    expect(pk.status).toBe(403);
  });
});
