import { createHash } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicantPrefix } from '../../server/documents/document-keys.js';
import { analyzeDocument } from '../../server/identity/document-analysis.js';
import { IdentityPool } from '../../server/identity/identity-pool.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 32 item 1: the bytes an operator previews and the identity worker reads are the bytes that were verified.
// A presigned PUT stays valid after `complete`; it used to write over the verified object (the preview then served
// the new bytes and a re-read analysed them). Now `complete` seals the upload (a copy the upload URL cannot reach),
// verification stores its SHA-256 and size, and every read of the object checks them: a mismatch rejects the
// document (`integrity_mismatch`) with an audit event. Erasure still removes everything.

interface Created {
  id: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}
interface Doc {
  upload_status: string;
  rejection_reason: string | null;
  size_bytes: number | null;
  sha256: string | null;
}

const jpeg = (text: string) =>
  Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from(`JFIF\0${text}`)]);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let t: TestApp;
let acme: Tenant;

beforeAll(async () => {
  t = await startTestApp({ sources: null });
  acme = await createTenant(t, { name: 'Acme' });
});
afterAll(async () => {
  await t?.close();
});

async function newFlow(last: string): Promise<{ id: string; applicant_id: string }> {
  const f = await call<{ id: string; applicant_id: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { applicant: { legal_name_first: 'Dora', legal_name_last: last } },
  });
  expect(f.status).toBe(201);
  return f.body;
}

async function newDocument(flowId: string): Promise<Created> {
  const c = await call<Created>(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
    token: acme.secret_key,
    body: { doc_type: 'passport', mime_type: 'image/jpeg' },
  });
  expect(c.status).toBe(201);
  return c.body;
}

async function put(c: Created, bytes: Buffer): Promise<number> {
  const res = await fetch(c.upload.url, { method: 'PUT', headers: c.upload.headers, body: bytes });
  await res.arrayBuffer();
  return res.status;
}

const docOf = (flowId: string, id: string) =>
  call<Doc>(t.url, 'GET', `/v1/flows/${flowId}/documents/${id}`, { token: acme.secret_key });
const complete = (flowId: string, id: string) =>
  call(t.url, 'POST', `/v1/flows/${flowId}/documents/${id}/complete`, { token: acme.secret_key });
const preview = (flowId: string, id: string) =>
  call<{ url: string }>(t.url, 'GET', `/v1/flows/${flowId}/documents/${id}/preview`, {
    token: acme.secret_key,
  });

async function verified(flowId: string, id: string): Promise<Doc> {
  return waitFor('verification', async () => {
    const d = await docOf(flowId, id);
    return d.body.upload_status === 'uploaded' ? undefined : d.body;
  });
}

async function previewBytes(flowId: string, id: string): Promise<Buffer> {
  const p = await preview(flowId, id);
  expect(p.status, JSON.stringify(p.body)).toBe(200);
  const got = await fetch(p.body.url);
  expect(got.status).toBe(200);
  return Buffer.from(await got.arrayBuffer());
}

describe('a document is immutable once complete is accepted', () => {
  it('a second PUT through the upload URL, before or after verification, changes nothing that is read', async () => {
    const flow = await newFlow('Sealed');
    const c = await newDocument(flow.id);
    const first = jpeg('the bytes the applicant sent');
    expect(await put(c, first)).toBe(200);
    expect((await complete(flow.id, c.id)).status).toBe(202);
    // at once, while verification may still be queued: other bytes through the same URL
    await put(c, jpeg('swapped in after complete, before verification'));
    const d = await verified(flow.id, c.id);
    expect(d).toMatchObject({ upload_status: 'verified', size_bytes: first.length, sha256: sha256(first) });
    expect(await previewBytes(flow.id, c.id)).toEqual(first);
    // and after verification
    await put(c, jpeg('swapped in after verification, a longer body than the first'));
    expect(await previewBytes(flow.id, c.id)).toEqual(first);
    expect((await docOf(flow.id, c.id)).body).toMatchObject({
      upload_status: 'verified',
      sha256: sha256(first),
    });
    // a second complete cannot seal other bytes either
    expect((await complete(flow.id, c.id)).status).toBe(409);
    expect(await previewBytes(flow.id, c.id)).toEqual(first);
  });

  it('bytes changed behind the service are refused at preview: rejection and an audit event', async () => {
    const flow = await newFlow('Tampered');
    const c = await newDocument(flow.id);
    const first = jpeg('verified bytes');
    await put(c, first);
    await complete(flow.id, c.id);
    expect((await verified(flow.id, c.id)).upload_status).toBe('verified');
    // someone with access to the bucket replaces the stored object
    const key = await sealedKey(flow.applicant_id, c.id);
    await t.app.store.put(key, jpeg('other bytes of another face'), 'image/jpeg');

    const p = await preview(flow.id, c.id);
    expect(p.status).toBe(409);
    expect(p.body).toMatchObject({ error: { code: 'document_integrity_failed' } });
    expect((await docOf(flow.id, c.id)).body).toMatchObject({
      upload_status: 'rejected',
      rejection_reason: 'integrity_mismatch',
      sha256: sha256(first),
    });
    const audit = await call<{
      items: { action: string; resource_id: string; details: Record<string, unknown> }[];
    }>(t.url, 'GET', `/v1/audit_events?action=document.integrity_failed&resource_id=${c.id}`, {
      token: acme.secret_key,
    });
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]?.details).toMatchObject({
      read_by: 'preview',
      expected_sha256: sha256(first),
    });
  });

  it('bytes changed behind the service are refused by the identity worker, which reads nothing of them', async () => {
    const flow = await newFlow('Reread');
    const c = await newDocument(flow.id);
    await put(c, jpeg('verified bytes to be read'));
    await complete(flow.id, c.id);
    expect((await verified(flow.id, c.id)).upload_status).toBe('verified');
    await t.app.store.put(await sealedKey(flow.applicant_id, c.id), jpeg('swapped'), 'image/jpeg');
    // the worker's own reading path (document_analyze), with a real identity pool that is never reached
    const pool = new IdentityPool(1, 1, t.app.log);
    try {
      const analysed = await analyzeDocument(
        {
          sql: t.app.sql,
          store: t.app.store,
          bus: t.app.bus,
          log: t.app.log,
          pool,
          maxBytes: 10 * 1024 * 1024,
          onAnalysed: async () => {},
          concurrency: 1,
        },
        c.id,
      );
      expect(analysed).toBe('noop');
    } finally {
      await pool.close();
    }
    expect((await docOf(flow.id, c.id)).body).toMatchObject({
      upload_status: 'rejected',
      rejection_reason: 'integrity_mismatch',
    });
    const [reading] = await t.app.sql`select 1 from document_readings where document_id = ${c.id}`;
    expect(reading).toBeUndefined();
    const audit = await call<{ items: { details: Record<string, unknown> }[] }>(
      t.url,
      'GET',
      `/v1/audit_events?action=document.integrity_failed&resource_id=${c.id}`,
      { token: acme.secret_key },
    );
    expect(audit.body.items[0]?.details).toMatchObject({ read_by: 'analysis' });
  });

  it('erasure removes the sealed object and the upload object', async () => {
    const flow = await newFlow('Erased');
    const c = await newDocument(flow.id);
    await put(c, jpeg('to be erased'));
    await complete(flow.id, c.id);
    await verified(flow.id, c.id);
    await put(c, jpeg('a late PUT through the upload URL'));
    await t.app.sql`update flows set status = 'APPROVED', decision = 'AUTO_APPROVED' where id = ${flow.id}`;
    const del = await call(t.url, 'DELETE', `/v1/applicants/${flow.applicant_id}`, {
      token: acme.secret_key,
    });
    expect(del.status).toBe(202);
    await waitFor('the purge', async () => {
      const [e] = await t.app
        .sql`select status from applicant_erasures where applicant_id = ${flow.applicant_id}`;
      return e?.status === 'completed' ? true : undefined;
    });
    expect(await objectsUnder(applicantPrefix(acme.id, flow.applicant_id))).toEqual([]);
  });
});

async function objectsUnder(prefix: string): Promise<string[]> {
  const listed = await t.app.store.client.send(
    new ListObjectsV2Command({ Bucket: t.app.store.bucket, Prefix: prefix }),
  );
  return (listed.Contents ?? []).map((o) => o.Key ?? '');
}

/** The key the verified bytes live under (the only object of the document the service reads). */
async function sealedKey(applicantId: string, documentId: string): Promise<string> {
  const [d] = await t.app.sql<
    { storage_key: string }[]
  >`select storage_key from documents where id = ${documentId}`;
  expect(d?.storage_key.startsWith(applicantPrefix(acme.id, applicantId))).toBe(true);
  return d?.storage_key ?? '';
}
