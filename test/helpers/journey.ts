import { expect } from 'vitest';
import { call, type Tenant, type TestApp } from './test-app.js';

/** Helpers of the applicant's journey tests (docs/journey.md): templates, flows, links and applicant sessions. */

export async function journeyTemplate(
  t: TestApp,
  tenant: Tenant,
  slug: string,
  body: Record<string, unknown>,
) {
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    token: tenant.secret_key,
    body: { slug, name: slug, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

/** The journey tests' usual template `kyc`: passport + selfie + AML, with the legal name and date of birth asked. */
export const kycTemplate = (t: TestApp, tenant: Tenant) =>
  journeyTemplate(t, tenant, 'kyc', {
    required_checks: ['aml_screen', 'document', 'selfie'],
    allowed_document_types: ['passport'],
    required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    intake_fields: ['legal_name', 'dob'],
  });

/** A flow on `slug` with the applicant data given (none by default). */
export async function journeyFlow(
  t: TestApp,
  tenant: Tenant,
  slug: string,
  applicant: Record<string, unknown> = {},
): Promise<{ id: string; applicant_id: string; status: string }> {
  const r = await call<{ id: string; applicant_id: string; status: string }>(t.url, 'POST', '/v1/flows', {
    token: tenant.secret_key,
    body: { template_slug: slug, applicant },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

export interface Link {
  id: string;
  url: string;
  status: string;
  expires_at: string;
  purpose: string;
}

export async function mintLink(
  t: TestApp,
  tenant: Tenant,
  flowId: string,
  body: Record<string, unknown> = {},
): Promise<Link> {
  const r = await call<Link>(t.url, 'POST', `/v1/flows/${flowId}/verification_links`, {
    token: tenant.secret_key,
    body,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** Opens a link as a browser would (no redirect followed): the answer's status, Location and Set-Cookie. */
export async function openInBrowser(url: string, method = 'GET') {
  const res = await fetch(url, { method, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get('location'),
    setCookie: res.headers.get('set-cookie'),
    /** the hosted page, when the link answered with it */
    page: res.headers.get('content-type')?.startsWith('text/html')
      ? { text, headers: res.headers }
      : undefined,
  };
}

/** The `vs_applicant=…` pair of a Set-Cookie header. */
export function cookiePair(setCookie: string | null): string {
  const pair = setCookie?.split(';')[0];
  if (!pair?.startsWith('vs_applicant=aps_')) throw new Error(`no applicant cookie in ${setCookie}`);
  return pair;
}

/** An applicant session for a link: the cookie as the hosted page has it, or a bearer token. */
export interface Applicant {
  headers: Record<string, string>;
  transport: 'cookie' | 'bearer';
}

export async function cookieSession(t: TestApp, link: Link): Promise<Applicant> {
  const opened = await openInBrowser(link.url);
  expect(opened.status).toBe(200);
  // the page's own requests: same origin, so writes carry the API's Origin
  return { headers: { cookie: cookiePair(opened.setCookie), origin: t.url }, transport: 'cookie' };
}

export async function bearerSession(t: TestApp, link: Link): Promise<Applicant> {
  const token = link.url.split('/').pop();
  const r = await call<{ access_token: string }>(t.url, 'POST', '/v1/applicant_sessions', {
    body: { token },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { headers: { authorization: `Bearer ${r.body.access_token}` }, transport: 'bearer' };
}

export function asApplicant<T = Record<string, unknown>>(
  t: TestApp,
  a: Applicant,
  method: string,
  path: string,
  body?: unknown,
) {
  return call<T>(t.url, method, path, { headers: a.headers, ...(body !== undefined ? { body } : {}) });
}

/** Registers an upload as the applicant, PUTs the bytes to the presigned URL and completes it. */
export async function applicantUpload(
  t: TestApp,
  a: Applicant,
  flowId: string,
  doc: Record<string, unknown>,
  bytes: Buffer,
): Promise<string> {
  const c = await asApplicant<{
    id: string;
    upload: { url: string; method: string; headers: Record<string, string> };
  }>(t, a, 'POST', '/v1/documents', { submission_id: flowId, ...doc });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const put = await fetch(c.body.upload.url, {
    method: c.body.upload.method,
    headers: c.body.upload.headers,
    body: bytes,
  });
  await put.arrayBuffer();
  expect(put.status).toBe(200);
  const done = await asApplicant(t, a, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`);
  expect(done.status, JSON.stringify(done.body)).toBe(202);
  return c.body.id;
}

/** A 1×1 PNG: a valid image for uploads that are verified but not read (proof_of_address). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
