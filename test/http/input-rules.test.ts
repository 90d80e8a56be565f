import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApi } from '../helpers/openapi-check.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 12 items 9, 12 (malformed JSON) and 13: bad text anywhere is a 422 with detail[] from one rule in the
// validation layer; error bodies never echo the request; every 422 matches the server's own OpenAPI.

type Json = Record<string, unknown>;
interface Detail {
  detail: { loc: (string | number)[]; msg: string; type: string }[];
  error?: { code: string };
}

let t: TestApp;
let acme: Tenant;
let openapi: Awaited<ReturnType<typeof loadOpenApi>>;

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  openapi = await loadOpenApi(t.url);
});
afterAll(async () => {
  await t?.close();
});

const BAD = {
  nul: 'Ivan\u0000Demovsky',
  loneHigh: 'Ivan\uD800',
  loneLow: '\uDC00Ivan',
  bell: 'Ivan\u0007',
  escape: 'Ivan\u001b[31m',
  del: 'Ivan\u007f',
  c1: 'Ivan\u0085',
  cr: 'Ivan\rDemovsky',
};

function expect422(
  r: { status: number; body: unknown },
  loc: (string | number)[],
  type = 'string_invalid_character',
) {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect((r.body as Detail).detail).toContainEqual(expect.objectContaining({ loc, type }));
}

describe('the text rule (every string, body and query, one rule in the validation layer)', () => {
  it('refuses U+0000, lone surrogates and control characters in a screened name, never a 500', async () => {
    for (const [label, bad] of Object.entries(BAD)) {
      const r = await call<Detail>(t.url, 'POST', '/v1/flows', {
        token: acme.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: bad, legal_name_last: 'Demovsky' } },
      });
      expect422(r, ['body', 'applicant', 'legal_name_first']);
      expect(openapi.check('POST', '/v1/flows', r.status, r.body), label).toBeNull();
    }
  });

  it('allows tab and newline in free text and ordinary non-ASCII names (paired surrogates included)', async () => {
    const r = await call<Json>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: {
        mode: 'sync',
        applicant: {
          legal_name_first: 'Zoë 😀',
          legal_name_last: 'Ørsted-Łukasiewicz',
          custom_attributes: { note: 'line one\nline\ttwo' },
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('reaches strings the schema does not describe: custom attribute values and keys', async () => {
    const value = await call<Detail>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: {
        mode: 'sync',
        applicant: { legal_name_last: 'Fennimore', custom_attributes: { crm: BAD.nul } },
      },
    });
    expect422(value, ['body', 'applicant', 'custom_attributes', 'crm']);
    const key = await call<Detail>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: {
        mode: 'sync',
        applicant: { legal_name_last: 'Fennimore', custom_attributes: { 'a\u0000': 'x' } },
      },
    });
    expect422(key, ['body', 'applicant', 'custom_attributes', 'a\u0000']);
  });

  it('covers the unauthenticated POST /v1/sessions', async () => {
    for (const field of ['email', 'password'] as const) {
      const body = {
        tenant_id: acme.id,
        email: 'a@example.com',
        password: 'correct horse battery',
        [field]: BAD.nul,
      };
      const r = await call<Detail>(t.url, 'POST', '/v1/sessions', { body });
      expect422(r, ['body', field]);
      expect(openapi.check('POST', '/v1/sessions', r.status, r.body)).toBeNull();
    }
    const lone = await call<Detail>(t.url, 'POST', '/v1/sessions', {
      body: { tenant_id: acme.id, email: 'a@example.com', password: BAD.loneHigh },
    });
    expect422(lone, ['body', 'password']);
  });

  it('covers query strings (percent-encoded NUL, surrogate halves, controls)', async () => {
    for (const q of ['search=%00', 'search=a%07b', 'reference=%C2%85']) {
      const r = await call<Detail>(t.url, 'GET', `/v1/checks?${q}`, { token: acme.secret_key });
      expect422(r, ['query', q.split('=')[0] as string]);
      expect(openapi.check('GET', '/v1/checks', r.status, r.body)).toBeNull();
    }
  });

  it('refuses invalid UTF-8 in a body instead of replacing it with U+FFFD', async () => {
    const head = Buffer.from('{"mode":"sync","applicant":{"legal_name_last":"Iv');
    const tail = Buffer.from('an"}}');
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80] /* an encoded surrogate */]) {
      const res = await fetch(`${t.url}/v1/flows`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acme.secret_key}`, 'content-type': 'application/json' },
        body: Buffer.concat([head, Buffer.from(bad), tail]),
      });
      const body = (await res.json()) as Detail;
      expect(res.status).toBe(422);
      expect(body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'utf8_invalid' })]);
    }
  });

  it('refuses a percent-encoding in the query that is not UTF-8', async () => {
    const r = await call<Detail>(t.url, 'GET', '/v1/checks?search=%FF%FE', { token: acme.secret_key });
    expect422(r, ['query', 'search'], 'utf8_invalid');
  });

  it('refuses JSON nested deeper than the limit with a 422, not a stack overflow', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const raw = `{"mode":"sync","applicant":{"legal_name_last":"X","custom_attributes":${deep}}}`;
    const r = await call<Detail>(t.url, 'POST', '/v1/flows', { token: acme.secret_key, raw });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]?.type).toBe('too_deep');
  });
});

describe('error bodies never echo the request', () => {
  it('a malformed JSON body is named by position, not quoted', async () => {
    const secret = 'tnk_SECRETSECRETSECRETSECRETSECRET12';
    for (const raw of [`${secret} is my key`, `{"key": "${secret}"`, `{"a": 1, ${secret}}`]) {
      const r = await call<Detail>(t.url, 'POST', '/v1/flows', { token: acme.secret_key, raw });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]?.type).toBe('json_invalid');
      expect(JSON.stringify(r.body)).not.toContain('SECRET');
    }
  });
});

describe('every 422 carries detail[] and matches the OpenAPI document', () => {
  it('unsupported_operation on process and decide', async () => {
    const flow = await call<{ id: string; status: string }>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.body.status).toBe('APPROVED');
    const process = await call<Detail>(t.url, 'POST', `/v1/flows/${flow.body.id}/process`, {
      token: acme.secret_key,
    });
    expect(process.status).toBe(422);
    expect(process.body.error?.code).toBe('unsupported_operation');
    expect(process.body.detail).toEqual([
      expect.objectContaining({ loc: ['path', 'flow_id'], type: 'unsupported_operation' }),
    ]);
    expect(openapi.check('POST', '/v1/flows/{flow_id}/process', 422, process.body)).toBeNull();
    const decide = await call<Detail>(t.url, 'POST', `/v1/flows/${flow.body.id}/decide`, {
      token: acme.secret_key,
      body: { decision: 'REJECTED' },
    });
    expect(decide.status).toBe(422);
    expect(decide.body.detail[0]?.type).toBe('unsupported_operation');
    expect(openapi.check('POST', '/v1/flows/{flow_id}/decide', 422, decide.body)).toBeNull();
  });

  it('idempotency_key_reused', async () => {
    const key = `k-${Date.now()}`;
    const records = (name: string) => ({ records: [{ subjects: [{ name }] }] });
    const first = await call(t.url, 'POST', '/v1/check_batches', {
      token: acme.secret_key,
      body: records('Anna One'),
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(202);
    const other = await call<Detail>(t.url, 'POST', '/v1/check_batches', {
      token: acme.secret_key,
      body: records('Anna Two'),
      headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body.error?.code).toBe('idempotency_key_reused');
    expect(other.body.detail).toEqual([
      expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' }),
    ]);
    expect(openapi.check('POST', '/v1/check_batches', 422, other.body)).toBeNull();
  });
});
