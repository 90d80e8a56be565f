import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmlMatch, ApiFlow } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, unknown>;
type Flow = ApiFlow<{ matches: (AmlMatch & { evidence: Json })[] }>;

let t: TestApp;
let acme: Tenant;
let globex: Tenant;

const listed = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };
const clean = { legal_name_first: 'Zephyrine', legal_name_last: 'Quorrelby-Atwater' };

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
});
afterAll(async () => {
  await t?.close();
});

describe('health', () => {
  it('livez answers without dependency checks', async () => {
    const r = await call(t.url, 'GET', '/livez');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('readyz reports each component once the dataset is loaded', async () => {
    const r = await call(t.url, 'GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', database: 'ok', matcher: 'ok', redis: 'ok', nats: 'ok' });
    expect(r.body.dataset_version).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a given X-Request-Id', async () => {
    const r = await call(t.url, 'GET', '/livez', { headers: { 'x-request-id': 'req-abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('req-abc-123');
  });
});

describe('admin tenants', () => {
  it('refuses a missing or wrong admin token with 401', async () => {
    const missing = await call(t.url, 'POST', '/admin/tenants', { body: { name: 'x' } });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: { code: 'unauthorized' } });
    const wrong = await call(t.url, 'POST', '/admin/tenants', {
      admin: `${t.adminToken}x`,
      body: { name: 'x' },
    });
    expect(wrong.status).toBe(401);
  });

  it('creates a tenant and shows its keys once', async () => {
    const r = await call(t.url, 'POST', '/admin/tenants', {
      admin: t.adminToken,
      body: { name: 'Initech', plan: 'self_serve', allowed_origins: ['https://app.initech.test'] },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Initech', plan: 'self_serve', status: 'active', allowance: 250 });
    expect(r.body.secret_key).toMatch(/^tnk_/);
    expect(r.body.publishable_key).toMatch(/^pk_/);
    // stored hashed: the plaintext is nowhere in the database
    const rows = await t.app.sql`select key_hash from api_keys where tenant_id = ${r.body.id as string}`;
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(await t.app.sql`select * from api_keys`);
    expect(dump).not.toContain(r.body.secret_key as string);
  });

  it('rejects an allowance on a contract tenant with the field named', async () => {
    const r = await call(t.url, 'POST', '/admin/tenants', {
      admin: t.adminToken,
      body: { name: 'x', plan: 'contract', allowance: 5 },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'allowance'] })]);
  });
});

describe('sync aml_screen flow', () => {
  it('routes a listed name to manual review with the list entry as evidence', async () => {
    const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: listed, datasets: ['sanctions'] },
    });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('NEEDS_REVIEW');
    expect(r.body.decision).toBe('MANUAL_REVIEW');
    expect(r.body.result).toBe('review');
    expect(r.body.decision_reason_codes).toContain('aml_sanctions_match');
    const check = r.body.checks[0];
    expect(check?.check_type).toBe('aml_screen');
    expect(check?.decision).toBe('MANUAL_REVIEW');
    expect(check?.dataset_versions).toHaveLength(1);
    expect(check?.latency_ms).toBeGreaterThan(0);
    const top = check?.evidence.matches[0];
    expect(top).toMatchObject({ source: 'us_ofac_sdn', source_id: '900001' });
    expect(top?.score).toBeGreaterThanOrEqual(0.8);
    expect(top?.evidence).toHaveProperty('matched_name');
  });

  it('approves a clean name automatically', async () => {
    const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: clean },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'APPROVED', decision: 'AUTO_APPROVED', result: 'approved' });
    expect(r.body.checks[0]?.evidence.matches.filter((m) => m.score >= 0.8) ?? []).toEqual([]);
  });

  it('creates an async flow as PENDING and undecided', async () => {
    const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { applicant: clean },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: 'PENDING',
      decision: null,
      execution_mode: 'async',
      result: 'pending',
    });
  });

  it('stores the applicant and returns the flow by id, with its checks', async () => {
    const created = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: { ...listed, email: 'Ivan@Example.test', external_id: 'cust-1' } },
    });
    const got = await call<Flow>(t.url, 'GET', `/v1/flows/${created.body.id}`, { token: acme.secret_key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const checkId = created.body.checks[0]?.id as string;
    const check = await call(t.url, 'GET', `/v1/checks/${checkId}`, { token: acme.secret_key });
    expect(check.status).toBe(200);
    expect(check.body).toEqual(created.body.checks[0]);
    expect((await call(t.url, 'GET', `/v1/checks/${checkId}`, { token: globex.secret_key })).status).toBe(
      404,
    );
    const [applicant] = await t.app.sql`select * from applicants where id = ${created.body.applicant_id}`;
    expect(applicant).toMatchObject({ external_id: 'cust-1', legal_name_last: 'Demovsky' });
    expect(applicant?.email_hash).toMatch(/^[0-9a-f]{64}$/);
    // the audit row is written in the same statement as the flow, exactly once
    const audit = await t.app
      .sql`select action, actor_type from audit_log where resource_id = ${created.body.id}`;
    expect(audit).toEqual([{ action: 'createFlow', actor_type: 'secret_key' }]);
    expect(JSON.stringify(applicant)).not.toContain('Example.test');
  });

  it('writes concurrent flows grouped in shared statements, each with its own checks and decision', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? listed : { legal_name_first: `Clean${i}`, legal_name_last: 'Quorrelby-Atwater' },
    );
    const results = await Promise.all(
      bodies.map((applicant) =>
        call<Omit<Flow, 'checks'> & { checks: { flow_id: string }[] }>(t.url, 'POST', '/v1/flows', {
          token: acme.secret_key,
          body: { mode: 'sync', applicant },
        }),
      ),
    );
    results.forEach((r, i) => {
      expect(r.status).toBe(201);
      expect(r.body.status).toBe(i % 2 === 0 ? 'NEEDS_REVIEW' : 'APPROVED');
      expect(r.body.checks.map((c) => c.flow_id)).toEqual([r.body.id]);
    });
    const ids = results.map((r) => r.body.id);
    const stored = await t.app.sql<{ flow_id: string; n: string }[]>`
      select flow_id, count(*) as n from checks where flow_id in ${t.app.sql(ids)} group by flow_id`;
    expect(stored).toHaveLength(40);
    expect(stored.every((r) => r.n === '1')).toBe(true);
  });

  it('keeps checks insert-only at the database level', async () => {
    const [c] = await t.app.sql`select id from checks limit 1`;
    await expect(
      t.app.sql`update checks set status = 'failed' where id = ${c?.id as string}`,
    ).rejects.toThrow(/insert-only/);
  });
});

describe('tenant isolation', () => {
  it('hides another tenant’s flow behind 404', async () => {
    const mine = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: clean },
    });
    const theirs = await call(t.url, 'GET', `/v1/flows/${mine.body.id}`, { token: globex.secret_key });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: { code: 'not_found' } });
    const list = await call<{ items: { flow_id: string }[] }>(
      t.url,
      'GET',
      `/v1/checks?flow_id=${mine.body.id}`,
      {
        token: globex.secret_key,
      },
    );
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
  });
});

describe('checks listing', () => {
  it('pages newest first with an opaque cursor and filters combine', async () => {
    const tenant = await createTenant(t, { name: 'Lister' });
    const flows: Flow[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: `Name${i}`, legal_name_last: 'Nobody' } },
      });
      flows.push(r.body);
    }
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const q: string = `/v1/checks?limit=2${after ? `&after=${after}` : ''}`;
      const r: { status: number; body: { items: { flow_id: string }[]; next_cursor: string | null } } =
        await call(t.url, 'GET', q, { token: tenant.secret_key });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items.map((c) => c.flow_id));
      after = r.body.next_cursor;
    } while (after);
    expect(seen).toEqual(flows.map((f) => f.id).reverse());

    const one = flows[2] as Flow;
    const filtered = await call<{ items: { flow_id: string }[] }>(
      t.url,
      'GET',
      `/v1/checks?check_type=aml_screen&flow_id=${one.id}&applicant_id=${one.applicant_id}`,
      { token: tenant.secret_key },
    );
    expect(filtered.body.items.map((c) => c.flow_id)).toEqual([one.id]);
  });

  it('rejects limits outside 1..200 and a forged cursor', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc']) {
      const r = await call(t.url, 'GET', `/v1/checks?${q}`, { token: acme.secret_key });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'] })]);
    }
    const bad = await call(t.url, 'GET', '/v1/checks?after=not-a-cursor', { token: acme.secret_key });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'after'] })]);
  });
});

describe('bad input gets a documented 4xx', () => {
  const flow = (body: unknown, raw?: string, headers?: Record<string, string>) =>
    call(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      ...(raw !== undefined ? { raw } : { body }),
      ...(headers ? { headers } : {}),
    });

  it('malformed JSON → 422 json_invalid', async () => {
    const r = await flow(undefined, '{"mode": "sync", ');
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_invalid' })]);
  });

  it('wrong types → 422 naming the field', async () => {
    const r = await flow({ mode: 'sync', applicant: { legal_name_last: 42 } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'applicant', 'legal_name_last'] }),
    ]);
  });

  it('unknown fields are rejected, not ignored', async () => {
    const r = await flow({ mode: 'sync', applicant: clean, colour: 'blue' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'colour'], type: 'extra_forbidden' }),
    ]);
  });

  it('an empty datasets list → 422', async () => {
    const r = await flow({ mode: 'sync', applicant: clean, datasets: [] });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'datasets'] })]);
  });

  it('an unknown dataset → 422 at its index', async () => {
    const r = await flow({ mode: 'sync', applicant: clean, datasets: ['sanctions', 'gossip'] });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'datasets', 1] })]);
  });

  it('a missing name when screening → 422', async () => {
    const r = await flow({ mode: 'sync', applicant: { dob: '1980-01-01' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'applicant', 'legal_name_last'] }),
    ]);
  });

  it('an unknown template → 422', async () => {
    const r = await flow({ mode: 'sync', applicant: clean, template_slug: 'nope' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'template_slug'] })]);
  });

  it('a non-JSON content type → 415', async () => {
    const r = await flow(undefined, 'mode=sync', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('an oversize body → 413', async () => {
    const big = JSON.stringify({ mode: 'sync', applicant: clean, pad: 'x'.repeat(2 * 1024 * 1024) });
    const r = await flow(undefined, big);
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: { code: 'payload_too_large', details: { max_bytes: 1048576 } } });
  });

  it('missing, malformed and unknown keys → 401', async () => {
    const none = await call(t.url, 'GET', '/v1/checks');
    expect(none.status).toBe(401);
    const malformed = await call(t.url, 'GET', '/v1/checks', { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    const unknown = await call(t.url, 'GET', '/v1/checks', { token: `tnk_${'A'.repeat(32)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('a tenant pending verification → 403 tenant_pending_verification', async () => {
    const pending = await createTenant(t, { name: 'Pending', status: 'pending_verification' });
    const r = await call(t.url, 'GET', '/v1/checks', { token: pending.secret_key });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: { code: 'tenant_pending_verification' } });
  });

  it('a publishable key cannot read → 403', async () => {
    const r = await call(t.url, 'GET', '/v1/checks', { token: acme.publishable_key });
    expect(r.status).toBe(403);
  });

  it('unknown path → 404, wrong method → 405 with Allow', async () => {
    const nf = await call(t.url, 'GET', '/v1/nothing-here', { token: acme.secret_key });
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ error: { code: 'not_found' } });
    const na = await call(t.url, 'DELETE', '/v1/flows', { token: acme.secret_key });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toContain('POST');
  });

  it('a malformed flow id → 422 on the path parameter', async () => {
    const r = await call(t.url, 'GET', '/v1/flows/not-a-uuid', { token: acme.secret_key });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'flow_id'] })]);
  });
});

describe('publishable key', () => {
  it('creates a sync flow from an allowed origin and gets the redacted flow', async () => {
    const shop = await createTenant(t, { name: 'Shop', allowed_origins: ['https://shop.example'] });
    const ok = await call(t.url, 'POST', '/v1/flows', {
      token: shop.publishable_key,
      headers: { origin: 'https://shop.example' },
      body: { mode: 'sync', applicant: clean },
    });
    expect(ok.status).toBe(201);
    expect(Object.keys(ok.body).sort()).toEqual(['id', 'reason_codes', 'result']);
    // its own media type, so that typed clients get one answer type per credential (issue 16)
    expect(ok.headers.get('content-type')).toBe('application/vnd.veriscreen.redacted-flow+json');
    expect(ok.body.result).toBe('approved');
    const wrongOrigin = await call(t.url, 'POST', '/v1/flows', {
      token: shop.publishable_key,
      headers: { origin: 'https://evil.example' },
      body: { mode: 'sync', applicant: clean },
    });
    expect(wrongOrigin.status).toBe(403);
    expect(wrongOrigin.body).toMatchObject({ error: { code: 'origin_not_allowed' } });
    const asyncFlow = await call(t.url, 'POST', '/v1/flows', {
      token: shop.publishable_key,
      headers: { origin: 'https://shop.example' },
      body: { applicant: clean },
    });
    expect(asyncFlow.status).toBe(403);
  });
});

describe('self-serve allowance', () => {
  it('returns 402 with the spec body once the allowance is used up', async () => {
    const small = await createTenant(t, { name: 'Small', plan: 'self_serve', allowance: 2 });
    const results = await Promise.all(
      [0, 1, 2, 3].map(() =>
        call(t.url, 'POST', '/v1/flows', {
          token: small.secret_key,
          body: { mode: 'sync', applicant: clean },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 402, 402]);
    const refused = results.find((r) => r.status === 402);
    expect(refused?.body).toEqual({
      error: {
        code: 'allowance_exhausted',
        message: expect.any(String),
        details: { allowance: 2, consumed: 2 },
      },
    });
  });
});

describe('openapi and metrics', () => {
  it('serves an OpenAPI 3.1 document that validates and lists the implemented routes', async () => {
    const r = await call<Json>(t.url, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(r.body) as never);
    const paths = r.body.paths as Record<string, Json>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/v1/flows',
        '/v1/flows/{flow_id}',
        '/v1/checks',
        '/admin/tenants',
        '/livez',
        '/readyz',
      ]),
    );
    expect(Object.keys(paths['/v1/flows'] ?? {})).toEqual(expect.arrayContaining(['post', 'get']));
  });

  it('exposes Prometheus metrics with route templates', async () => {
    await call(t.url, 'GET', `/v1/flows/00000000-0000-4000-8000-000000000000`, { token: acme.secret_key });
    const r = await call<string>(t.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.body).toContain('http_request_duration_seconds_bucket');
    expect(r.body).toContain('route="/v1/flows/{flow_id}"');
    expect(r.body).toContain('matcher_screen_duration_seconds');
    expect(r.body).toContain('matcher_pool_queue_depth');
    expect(r.body).toContain('process_cpu_user_seconds_total');
  });
});
