import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApi } from '../helpers/openapi-check.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 32 item 8: POST /v1/flows honours Idempotency-Key as POST /v1/check_batches does. A flow answered 503 but
// committed (seen during a Postgres freeze) was duplicated by the client's retry; now the flow and its key record
// commit together, so a retry replays the first answer and creates nothing.

type Json = Record<string, unknown>;
let t: TestApp;
let acme: Tenant;
let openapi: Awaited<ReturnType<typeof loadOpenApi>>;

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, {
    name: 'Acme',
    plan: 'self_serve',
    allowance: 1000,
    allowed_origins: ['https://app.acme.test'],
  });
  openapi = await loadOpenApi(t.url);
});
afterAll(async () => {
  await t?.close();
});

const sync = (last: string) => ({
  mode: 'sync',
  applicant: { legal_name_first: 'Ivan', legal_name_last: last },
});
const post = (body: unknown, key: string | undefined, token = acme.secret_key, headers: Json = {}) =>
  call<Json>(t.url, 'POST', '/v1/flows', {
    token,
    body,
    headers: { ...(key ? { 'idempotency-key': key } : {}), ...(headers as Record<string, string>) },
  });
const flowsNamed = async (last: string) =>
  Number(
    (
      await t.app.sql`
        select count(*)::int as n from flows f join applicants a on a.id = f.applicant_id
        where f.tenant_id = ${acme.id} and a.legal_name_last = ${last}`
    )[0]?.n,
  );
const consumed = async () =>
  Number((await t.app.sql`select consumed from tenants where id = ${acme.id}`)[0]?.consumed);

describe('Idempotency-Key on POST /v1/flows', () => {
  it('a retry of a sync flow replays the first answer: one flow, one audit row, one allowance unit', async () => {
    const before = await consumed();
    const first = await post(sync('Demovsky'), 'flow-retry-1');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await post(sync('Demovsky'), 'flow-retry-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(openapi.check('POST', '/v1/flows', again.status, again.body)).toBeNull();
    expect(await flowsNamed('Demovsky')).toBe(1);
    expect(await consumed()).toBe(before + 1);
    const audit = await t.app.sql`
      select 1 from audit_log where tenant_id = ${acme.id} and action = 'createFlow'
        and resource_id = ${first.body.id as string}`;
    expect(audit.length).toBe(1);
  });

  it('parallel requests with one key create one flow', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post(sync('Parallel'), 'flow-parallel')),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(await flowsNamed('Parallel')).toBe(1);
  });

  it('an async flow too; without a key each request is a new flow', async () => {
    const body = { applicant: { legal_name_first: 'Anna', legal_name_last: 'Async' } };
    const a = await post(body, 'flow-async');
    const b = await post(body, 'flow-async');
    expect(b.body.id).toBe(a.body.id);
    await post(body, undefined);
    expect(await flowsNamed('Async')).toBe(2);
  });

  it('the same key with another body is a 422 at the header', async () => {
    await post(sync('Keyed'), 'flow-reused');
    const other = await post(sync('Another'), 'flow-reused');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      error: { code: 'idempotency_key_reused' },
      detail: [expect.objectContaining({ loc: ['header', 'idempotency-key'] })],
    });
    expect(await flowsNamed('Another')).toBe(0);
  });

  it("a publishable key's keys are its own: redacted answers replay as redacted, never as a secret key's flow", async () => {
    const origin = { origin: 'https://app.acme.test' };
    const pk = await post(sync('Browser'), 'shared-key', acme.publishable_key, origin);
    expect(pk.status, JSON.stringify(pk.body)).toBe(201);
    expect(pk.headers.get('content-type')).toContain('application/vnd.veriscreen.redacted-flow+json');
    const pkAgain = await post(sync('Browser'), 'shared-key', acme.publishable_key, origin);
    expect(pkAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(pkAgain.headers.get('content-type')).toBe(pk.headers.get('content-type'));
    expect(pkAgain.body).toEqual(pk.body);
    // the secret key's request with the same key and body is another request: a full flow of its own
    const sk = await post(sync('Browser'), 'shared-key');
    expect(sk.status).toBe(201);
    expect(sk.headers.get('idempotent-replayed')).toBeNull();
    expect(sk.body.checks).toBeDefined();
    expect(await flowsNamed('Browser')).toBe(2);
  });

  it('is documented on the operation', () => {
    const op = openapi.doc.paths['/v1/flows']?.post;
    expect(op?.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
  });
});
