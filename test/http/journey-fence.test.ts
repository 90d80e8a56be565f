import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Applicant,
  asApplicant,
  bearerSession,
  cookieSession,
  journeyFlow,
  kycTemplate,
  mintLink,
} from '../helpers/journey.js';
import type { OpenApiDoc } from '../helpers/openapi-check.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 33, the applicant session's fence (docs/journey.md): an applicant session — as the hosted page's cookie and
// as a bearer token — against every operation of /openapi.json. Only the operations the contract lists accept it,
// and those only for its own flow; everything else is 401 (an applicant session is no tenant credential) or 403
// applicant_session_forbidden, and no answer carries another flow's data.

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let own: { id: string; applicant_id: string };
let sibling: { id: string; applicant_id: string };
let foreign: { id: string; applicant_id: string };
let sessions: Applicant[];

/** Every operation an applicant session may call (docs/journey.md, "What an applicant session may do"). */
const CONTRACT = new Set([
  'GET /v1/applicant_session',
  'POST /v1/applicant_session/consent',
  'PUT /v1/applicant_session/intake',
  'POST /v1/applicant_session/handoff',
  'POST /v1/applicant_session/submit',
  'POST /v1/applicant_session/cancel',
  'POST /v1/documents',
  'POST /v1/flows/{flow_id}/documents',
  'POST /v1/flows/{flow_id}/documents/{document_id}/complete',
  'POST /v1/flows/{flow_id}/documents/{document_id}/quality',
  'POST /v1/flows/{flow_id}/liveness_challenges',
  'POST /v1/flows/{flow_id}/documents/{document_id}/chip/challenges',
  'POST /v1/flows/{flow_id}/documents/{document_id}/chip',
]);

type Op = { method: string; path: string; operationId: string; security: Record<string, string[]>[] };

function operations(doc: OpenApiDoc): Op[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      security: op.security ?? [],
    })),
  );
}

const acceptsApplicant = (op: Op) =>
  op.security.some((s) => 'applicantSession' in s || 'applicantToken' in s);

/** The path with its parameters: flow ids as given, any other id a fresh UUID. */
const fill = (path: string, flowId: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'flow_id' ? flowId : randomUUID()));

const send = (a: Applicant, op: Op, flowId: string) =>
  asApplicant<{ error?: { code: string } }>(
    t,
    a,
    op.method,
    fill(op.path, flowId),
    // a well-formed upload (a malformed body is a 422 before any flow is looked at, and tells nothing either)
    ['POST', 'PUT', 'PATCH'].includes(op.method)
      ? { submission_id: flowId, doc_type: 'passport', capture: 'camera' }
      : undefined,
  );

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  for (const tenant of [acme, globex]) await kycTemplate(t, tenant);
  own = await journeyFlow(t, acme, 'kyc');
  sibling = await journeyFlow(t, acme, 'kyc');
  foreign = await journeyFlow(t, globex, 'kyc');
  sessions = [
    await cookieSession(t, await mintLink(t, acme, own.id)),
    await bearerSession(t, await mintLink(t, acme, own.id)),
  ];
});
afterAll(async () => {
  await t?.close();
});

describe('the applicant session fence', () => {
  it('only the operations of the contract accept an applicant session', async () => {
    const doc = (await call<OpenApiDoc>(t.url, 'GET', '/openapi.json')).body;
    const open = operations(doc)
      .filter(acceptsApplicant)
      .map((op) => `${op.method} ${op.path}`);
    expect(open.length).toBe(CONTRACT.size);
    expect(open.filter((o) => !CONTRACT.has(o))).toEqual([]);
  });

  it('every other operation answers 401 to it (cookie and bearer), even on its own flow', async () => {
    const doc = (await call<OpenApiDoc>(t.url, 'GET', '/openapi.json')).body;
    const closed = operations(doc).filter((op) => op.security.length > 0 && !acceptsApplicant(op));
    expect(closed.length).toBeGreaterThan(60);
    for (const a of sessions) {
      for (const op of closed) {
        const r = await send(a, op, own.id);
        expect(r.status, `${a.transport} ${op.method} ${op.path}`).toBe(401);
        expect(r.body.error?.code).toBe('unauthorized');
      }
    }
  });

  it("the contract's operations answer 403 for another flow of the tenant or of another tenant", async () => {
    const doc = (await call<OpenApiDoc>(t.url, 'GET', '/openapi.json')).body;
    const withFlow = operations(doc).filter(
      (op) => acceptsApplicant(op) && (op.path.includes('{flow_id}') || op.path === '/v1/documents'),
    );
    expect(withFlow.length).toBeGreaterThanOrEqual(3);
    for (const a of sessions) {
      for (const other of [sibling, foreign]) {
        for (const op of withFlow) {
          const r = await send(a, op, other.id);
          expect(r.status, `${a.transport} ${op.method} ${op.path}`).toBe(403);
          expect(r.body.error?.code).toBe('applicant_session_forbidden');
          expect(JSON.stringify(r.body)).not.toContain(other.applicant_id);
        }
      }
    }
    // nothing was written on the other flows
    const docs = await t.app.sql`select 1 from documents where flow_id in (${sibling.id}, ${foreign.id})`;
    expect(docs).toHaveLength(0);
  });

  it('a tenant credential is no applicant session on the applicant-only operations', async () => {
    for (const path of ['/v1/applicant_session', '/v1/applicant_session/submit']) {
      const method = path.endsWith('submit') ? 'POST' : 'GET';
      const r = await call(t.url, method, path, { token: acme.secret_key });
      expect(r.status, path).toBe(401);
    }
  });
});
