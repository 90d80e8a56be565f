import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resweepLateUploads } from '../../server/applicants/applicant-erasure.js';
import { applicantPrefix } from '../../server/documents/document-keys.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

describe('an upload that lands after the erasure purge', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ sources: null, env: { DOCUMENT_UPLOAD_TTL_SECONDS: '1' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is deleted by the resweep once every presigned upload URL has expired', async () => {
    const flow = await call<{ id: string; applicant_id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { applicant: { legal_name_first: 'Late', legal_name_last: 'Uploader' } },
    });
    await t.app
      .sql`update flows set status = 'APPROVED', decision = 'AUTO_APPROVED' where id = ${flow.body.id}`;
    const del = await call(t.url, 'DELETE', `/v1/applicants/${flow.body.applicant_id}`, {
      token: tenant.secret_key,
    });
    expect(del.status).toBe(202);
    await waitFor('the purge', async () => {
      const [e] = await t.app
        .sql`select status from applicant_erasures where applicant_id = ${flow.body.applicant_id}`;
      return e?.status === 'completed' ? true : undefined;
    });
    // a client that got its upload URL before the erasure finishes its PUT now
    const key = `${applicantPrefix(tenant.id, flow.body.applicant_id)}late-upload.jpg`;
    await t.app.store.put(key, Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    expect(await resweepLateUploads(t.app, 1)).toBe(0); // URLs may still be valid: too early
    await new Promise((r) => setTimeout(r, 6500));
    expect(await resweepLateUploads(t.app, 1)).toBe(1);
    expect(await t.app.store.get(key)).toBeUndefined();
    const [e] = await t.app
      .sql`select resweep_done_at, stats from applicant_erasures where applicant_id = ${flow.body.applicant_id}`;
    expect(e?.resweep_done_at).toBeInstanceOf(Date);
    expect(e?.stats).toMatchObject({ late_objects: 1 });
    expect(await resweepLateUploads(t.app, 1)).toBe(0); // once only
  });
});
