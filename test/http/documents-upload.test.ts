import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let flowId: string;

// smallest valid-looking headers of each format (verification sniffs the first bytes)
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0fake-jpeg-body'),
]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('fake-png'),
]);

interface Created {
  id: string;
  flow_id: string;
  submission_id?: string;
  upload_status: string;
  upload: {
    url: string;
    method: string;
    headers: Record<string, string>;
    expires_in: number;
    max_bytes: number;
  };
}
interface Doc {
  upload_status: string;
  rejection_reason: string | null;
  size_bytes: number | null;
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const getDoc = (docId: string) =>
  call<Doc>(t.url, 'GET', `/v1/flows/${flowId}/documents/${docId}`, { token: acme.secret_key });

async function upload(c: Created, bytes: Buffer): Promise<number> {
  const res = await fetch(c.upload.url, { method: c.upload.method, headers: c.upload.headers, body: bytes });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  t = await startTestApp({ sources: null, env: { DOCUMENT_PREVIEW_TTL_SECONDS: '3' } });
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  const f = await call<{ id: string; status: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: { legal_name_first: 'Dora', legal_name_last: 'Docs' } },
  });
  expect(f.status).toBe(201);
  flowId = f.body.id;
});
afterAll(async () => {
  await t?.close();
});

describe('documents on S3', () => {
  it('presigned PUT from a plain HTTP client uploads a JPEG; complete verifies it; preview returns the bytes', async () => {
    const c = await call<Created>(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
      token: acme.secret_key,
      body: { doc_type: 'passport', mime_type: 'image/jpeg', side: 'single' },
    });
    expect(c.status).toBe(201);
    expect(c.body.upload_status).toBe('pending');
    expect(c.body.upload.method).toBe('PUT');
    expect(c.body.upload.headers).toEqual({ 'content-type': 'image/jpeg' });
    expect(c.body.upload.expires_in).toBe(900);
    expect(c.body.upload.max_bytes).toBe(10 * 1024 * 1024);
    expect(c.body.upload.url).toContain(`tenants/${acme.id}/applicants/`);
    expect(c.body.upload.url).toContain('X-Amz-Signature=');

    expect(await upload(c.body, JPEG)).toBe(200);
    const done = await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`, {
      token: acme.secret_key,
    });
    expect(done.status).toBe(202);
    expect(done.body).toEqual({ document_id: c.body.id, upload_status: 'uploaded' });

    const d = await waitFor(
      () => getDoc(c.body.id),
      (r) => r.body.upload_status !== 'uploaded',
    );
    expect(d.body).toMatchObject({
      upload_status: 'verified',
      rejection_reason: null,
      size_bytes: JPEG.length,
    });

    // complete again: the document is final
    const again = await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`, {
      token: acme.secret_key,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'document_state_conflict' } });

    const p = await call<{ url: string; method: string; expires_in: number; content_type: string }>(
      t.url,
      'GET',
      `/v1/flows/${flowId}/documents/${c.body.id}/preview`,
      { token: acme.secret_key },
    );
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ method: 'GET', expires_in: 3, content_type: 'image/jpeg' });
    const got = await fetch(p.body.url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(JPEG);

    // the preview address is short-lived: after its lifetime S3 refuses it (X-Amz-Date has whole seconds, so a
    // 1 s lifetime could lapse before the first fetch; 3 s leaves room on a loaded machine)
    await new Promise((r) => setTimeout(r, 4_500));
    const expired = await fetch(p.body.url);
    await expired.arrayBuffer();
    expect(expired.status).toBe(403);
  });

  it('rejects a PNG declared as PDF (magic bytes) and deletes the object', async () => {
    const c = await call<Created>(t.url, 'POST', '/v1/documents', {
      token: acme.secret_key,
      body: { submission_id: flowId, doc_type: 'proof_of_address', mime_type: 'application/pdf' },
    });
    expect(c.status).toBe(201);
    expect(c.body.submission_id).toBe(flowId);
    expect(c.body.upload.headers['content-type']).toBe('application/pdf');
    expect(await upload(c.body, PNG)).toBe(200);
    await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`, {
      token: acme.secret_key,
    });
    const d = await waitFor(
      () => getDoc(c.body.id),
      (r) => r.body.upload_status !== 'uploaded',
    );
    expect(d.body).toMatchObject({ upload_status: 'rejected', rejection_reason: 'content_mismatch' });
    const listed = await t.app.store.client.send(
      new ListObjectsV2Command({ Bucket: t.app.store.bucket, Prefix: `tenants/${acme.id}/` }),
    );
    expect((listed.Contents ?? []).some((o) => o.Key?.endsWith(c.body.id))).toBe(false);
    const p = await call(t.url, 'GET', `/v1/flows/${flowId}/documents/${c.body.id}/preview`, {
      token: acme.secret_key,
    });
    expect(p.status).toBe(409);
  });

  it('rejects a completed document whose bytes never arrived', async () => {
    const c = await call<Created>(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
      token: acme.secret_key,
      body: { doc_type: 'id_card', side: 'front' },
    });
    expect(c.body.upload.headers['content-type']).toBe('image/jpeg'); // the documented default
    await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`, {
      token: acme.secret_key,
    });
    const d = await waitFor(
      () => getDoc(c.body.id),
      (r) => r.body.upload_status !== 'uploaded',
    );
    expect(d.body).toMatchObject({ upload_status: 'rejected', rejection_reason: 'object_missing' });
  });

  it('lists the flow documents and validates input', async () => {
    const list = await call<{ items: { id: string }[] }>(t.url, 'GET', `/v1/flows/${flowId}/documents`, {
      token: acme.secret_key,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBe(3); // of the first flow
    const bad = await call<{ detail: { loc: unknown[] }[] }>(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
      token: acme.secret_key,
      body: { doc_type: 'passport', mime_type: 'image/gif' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]?.loc).toEqual(['body', 'mime_type']);
  });

  it('hands a flow waiting in AWAITING_INPUT back to processing once its required documents are verified', async () => {
    // a template that needs one passport (templates belong to the flows issue: inserted directly)
    await t.app.sql`
      insert into flow_templates (tenant_id, slug, name, required_checks, allowed_document_types, required_documents)
      values (${acme.id}, 'passport-only', 'Passport only', ${['document']}, ${['passport']},
              ${t.app.sql.json([{ min: 1, side: 'single', types: ['passport'] }])})`;
    const f = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: {
        applicant: { legal_name_first: 'Ada', legal_name_last: 'Awaiting' },
        template_slug: 'passport-only',
      },
    });
    expect(f.status).toBe(201);
    expect(
      (await call(t.url, 'POST', `/v1/flows/${f.body.id}/process`, { token: acme.secret_key })).status,
    ).toBe(202);
    const flowState = () =>
      t.app.sql<{ status: string; process_run: number }[]>`
        select status, process_run from flows where id = ${f.body.id}`.then((r) => r[0]);
    const waiting = await waitFor(flowState, (r) => r?.status === 'AWAITING_INPUT');
    expect(waiting).toMatchObject({ status: 'AWAITING_INPUT', process_run: 1 });

    const c = await call<Created>(t.url, 'POST', `/v1/flows/${f.body.id}/documents`, {
      token: acme.secret_key,
      body: { doc_type: 'passport' },
    });
    expect(await upload(c.body, JPEG)).toBe(200);
    await call(t.url, 'POST', `/v1/flows/${f.body.id}/documents/${c.body.id}/complete`, {
      token: acme.secret_key,
    });
    // verification moved it on: a second processing run started (AWAITING_INPUT → PROCESSING)
    const resumed = await waitFor(flowState, (r) => (r?.process_run ?? 0) >= 2);
    expect(resumed?.process_run).toBe(2);
  });

  it('keeps documents per tenant and away from publishable keys', async () => {
    const other = await call(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
      token: globex.secret_key,
      body: { doc_type: 'passport' },
    });
    expect(other.status).toBe(404);
    const otherList = await call(t.url, 'GET', `/v1/flows/${flowId}/documents`, { token: globex.secret_key });
    expect(otherList.status).toBe(404);
    const pk = await call(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
      token: acme.publishable_key,
      body: { doc_type: 'passport' },
    });
    expect(pk.status).toBe(403);
  });
});
