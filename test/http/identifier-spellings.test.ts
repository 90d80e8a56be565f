import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerSession, journeyFlow, kycTemplate, mintLink } from '../helpers/journey.js';
import { loadOpenApi } from '../helpers/openapi-check.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 32 items 4 and 5: one spelling of every identifier before it reaches a store (a UUID in any case is taken
// and answered in lower case; `urn:uuid:`, braces and other spellings are a 422 at the field), timestamps limited to
// what Postgres stores and gives back, and unknown query parameters refused on every route — never a 500.

type Json = Record<string, unknown>;
interface Detail {
  detail: { loc: (string | number)[]; type: string }[];
}

let t: TestApp;
let acme: Tenant;
let flowId: string;
let applicantId: string;
let openapi: Awaited<ReturnType<typeof loadOpenApi>>;
let cookie: string;
let applicantBearer: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  openapi = await loadOpenApi(t.url);
  const f = await call<Json>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
  });
  expect(f.status).toBe(201);
  flowId = f.body.id as string;
  applicantId = f.body.applicant_id as string;
  const op = { email: 'ops@acme.test', name: 'Ops', role: 'admin', password: 'correct horse battery staple' };
  expect((await call(t.url, 'POST', '/v1/operators', { token: acme.secret_key, body: op })).status).toBe(201);
  const s = await call(t.url, 'POST', '/v1/sessions', {
    body: { tenant_id: acme.id, email: op.email, password: op.password },
  });
  expect(s.status).toBe(201);
  cookie = (s.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  // an applicant's own session, for the operations only an applicant may call
  await kycTemplate(t, acme);
  const waiting = await journeyFlow(t, acme, 'kyc');
  applicantBearer = (await bearerSession(t, await mintLink(t, acme, waiting.id))).headers;
});
afterAll(async () => {
  await t?.close();
});

const get = (path: string) => call<Json>(t.url, 'GET', path, { token: acme.secret_key });

function expect422(r: { status: number; body: unknown }, loc: (string | number)[], type?: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect((r.body as Detail).detail).toContainEqual(
    expect.objectContaining({ loc, ...(type ? { type } : {}) }),
  );
}

/** Spellings of a UUID that are not its text (RFC 9562 §4): refused, not guessed. */
const otherSpellings = (id: string) => [
  `urn:uuid:${id}`,
  `URN:UUID:${id}`,
  `{${id}}`,
  id.replaceAll('-', ''),
  ` ${id}`,
  `${id}\t`,
];

describe('UUIDs: either case is the same id; other spellings are a 422 at the field', () => {
  it('in a path: upper case finds the flow (answered in lower case), urn:uuid: and braces are 422', async () => {
    const upper = await get(`/v1/flows/${flowId.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body.id).toBe(flowId);
    for (const s of otherSpellings(flowId)) {
      expect422(await get(`/v1/flows/${encodeURIComponent(s)}`), ['path', 'flow_id']);
    }
  });

  it('in a query filter: upper case filters like lower case, other spellings are 422', async () => {
    const lower = await get(`/v1/alerts?flow_id=${flowId}`);
    const upper = await get(`/v1/alerts?flow_id=${flowId.toUpperCase()}`);
    expect(lower.status).toBe(200);
    expect((lower.body.items as unknown[]).length).toBeGreaterThan(0);
    expect(upper.body).toEqual(lower.body);
    for (const s of otherSpellings(flowId)) {
      expect422(await get(`/v1/alerts?flow_id=${encodeURIComponent(s)}`), ['query', 'flow_id']);
      expect422(await get(`/v1/checks?applicant_id=${encodeURIComponent(s)}`), ['query', 'applicant_id']);
    }
    // an operator id, "me" or "none": an upper-case id is the same operator, a urn is refused
    expect((await get(`/v1/alerts?assignee=${flowId.toUpperCase()}`)).status).toBe(200);
    expect422(await get(`/v1/alerts?assignee=urn:uuid:${flowId}`), ['query', 'assignee']);
  });

  it('in a body: an applicant reference in upper case is the applicant, urn:uuid: is 422', async () => {
    const ok = await call<Json>(t.url, 'POST', '/v1/monitors', {
      token: acme.secret_key,
      body: { applicant_id: applicantId.toUpperCase(), subjects: [{ name: 'Ivan' }], run_immediately: false },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.applicant_id).toBe(applicantId);
    for (const s of otherSpellings(applicantId)) {
      const r = await call(t.url, 'POST', '/v1/check_batches', {
        token: acme.secret_key,
        body: { records: [{ applicant_id: s, subjects: [{ name: 'Anna' }] }] },
      });
      expect422(r, ['body', 'records', 0, 'applicant_id']);
    }
  });

  it('at sign-in, unauthenticated: a urn:uuid: workspace id is a 422, not a 500', async () => {
    for (const s of otherSpellings(acme.id)) {
      const r = await call(t.url, 'POST', '/v1/sessions', {
        body: { tenant_id: s, email: 'nobody@acme.test', password: 'a wrong password' },
      });
      expect422(r, ['body', 'tenant_id']);
      expect(openapi.check('POST', '/v1/sessions', r.status, r.body)).toBeNull();
    }
  });
});

describe('timestamps: what Postgres stores and gives back, else a 422 at the field', () => {
  const refused = [
    '0000-01-01T00:00:00Z', // there is no year 0
    '2016-12-31T23:59:60Z', // a leap second
    '2020-01-01T12:30:60+01:00',
    '9999-12-31T23:00:00-05:00', // year 10000 in UTC
    '9999-12-31T23:59:59.9999999Z', // rounds to year 10000 at microseconds
    '0001-01-01T00:30:00+01:00', // year 0 in UTC
    '2020-01-01T00:00:00+24:00',
    '2021-02-29T00:00:00Z',
    '2020-01-01T00:00:00', // no offset: which instant?
    '+012020-01-01T00:00:00Z',
  ];
  const accepted = ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z', '2024-02-29T23:59:59.5+14:00'];

  it('refuses year 0000, leap seconds, instants past 9999 in UTC and impossible days on every timestamp filter', async () => {
    for (const v of refused) {
      const q = encodeURIComponent(v);
      expect422(await get(`/v1/alerts?due_before=${q}`), ['query', 'due_before']);
      expect422(await get(`/v1/audit_events?since=${q}`), ['query', 'since']);
      expect422(await get(`/v1/audit_events?until=${q}`), ['query', 'until']);
    }
  });

  it('answers the first and last instant it accepts', async () => {
    for (const v of accepted) {
      const q = encodeURIComponent(v);
      expect((await get(`/v1/alerts?due_before=${q}`)).status).toBe(200);
      expect((await get(`/v1/audit_events?since=${q}`)).status).toBe(200);
      expect((await get(`/v1/audit_events?until=${q}`)).status).toBe(200);
    }
  });
});

describe('unknown query parameters: 422 extra_forbidden on every route (docs/decisions.md)', () => {
  it('on every operation of /openapi.json without a body, with ordinary and hostile names', async () => {
    let tried = 0;
    const freeForm: string[] = [];
    for (const [template, methods] of Object.entries(openapi.doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (op.requestBody || method === 'delete') continue;
        // a route that declares a query of any names (a verification link's tracking parameters) is the exception
        if (op.parameters?.some((p) => p.in === 'query' && p.schema?.type === 'object')) {
          freeForm.push(`${method} ${template}`);
          continue;
        }
        const path = template.replace(/\{[^}]+\}/g, flowId);
        const security = op.security ?? [];
        const headers: Record<string, string> = security.some((s) => 'adminToken' in s)
          ? { 'x-admin-token': t.adminToken }
          : security.some((s) => 'secretKey' in s)
            ? { authorization: `Bearer ${acme.secret_key}` }
            : security.some((s) => 'operatorSession' in s)
              ? { cookie }
              : security.some((s) => 'applicantToken' in s)
                ? applicantBearer
                : {};
        for (const name of ['not_a_parameter', '%7F']) {
          const r = await call(t.url, method.toUpperCase(), `${path}?${name}=1`, { headers });
          const where = `${method} ${template}?${name}`;
          expect(r.status, `${where} ${JSON.stringify(r.body)}`).toBe(422);
          expect(openapi.check(method.toUpperCase(), template, r.status, r.body), where).toBeNull();
        }
        const nul = await call(t.url, method.toUpperCase(), `${path}?%00=1`, { headers });
        expect(nul.status, `${method} ${template}?%00`).toBe(422);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(20);
    expect(freeForm).toEqual(['get /verify/{token}']);
    const r = await get(`/v1/flows/${flowId}?not_a_parameter=1`);
    expect422(r, ['query', 'not_a_parameter'], 'extra_forbidden');
  });

  it('on a POST with a valid body too', async () => {
    const r = await call(t.url, 'POST', '/v1/flows?mode=sync', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Anna', legal_name_last: 'Query' } },
    });
    expect422(r, ['query', 'mode'], 'extra_forbidden');
  });

  it('the dashboard pages keep their own query (a sign-in link names the workspace)', async () => {
    const r = await fetch(`${t.url}/dashboard/login?tenant=${acme.id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
  });
});
