import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeApplicant } from '../../server/applicants/applicant-erasure.js';
import { startBatchWorker } from '../../server/batches/batch-worker.js';
import type { RunningWorker } from '../../server/bus/jetstream.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 12 (left over): a batch accepted just before its applicant's erasure. ROLE=api: this process queues jobs
// but runs none, so the test orders them: the batch is stored, the erasure purges, then the batch's chunk runs.

const NAME = { legal_name_first: 'Zephyrine', legal_name_last: 'Quorrelby' };

describe('a batch record whose applicant is erased before it is screened', () => {
  let t: TestApp;
  let tenant: Tenant;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'api' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('fails with a readable reason, the others are screened, the batch ends, and no personal data is left', async () => {
    const flow = await call<{ applicant_id: string; status: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: NAME },
    });
    expect(flow.status).toBe(201);
    const applicantId = flow.body.applicant_id;
    const batch = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: {
        records: [
          { applicant_id: applicantId, subjects: [{ name: 'Zephyrine Quorrelby', type: 'person' }] },
          { external_id: 'other', subjects: [{ name: 'Marigold Fennimore', type: 'person' }] },
        ],
      },
    });
    expect(batch.status).toBe(202);
    const erase = await call<{ id: string }>(t.url, 'DELETE', `/v1/applicants/${applicantId}`, {
      token: tenant.secret_key,
    });
    expect(erase.status).toBe(202);
    const { sql, store, bus, pool, metrics, log } = t.app;
    expect(await purgeApplicant({ sql, store, bus, log }, erase.body.id)).toBe('completed');

    // no personal data of the erased applicant is left in the stored batch, even before its chunk ran
    const stored = await sql<
      { subjects: unknown }[]
    >`select subjects from batch_chunks where batch_id = ${batch.body.id}`;
    expect(JSON.stringify(stored)).not.toMatch(/Zephyrine|Quorrelby/);

    worker = await startBatchWorker({ sql, bus, pool, metrics, log });
    const done = await waitFor('the batch to end', async () => {
      const b = await call<Record<string, unknown>>(t.url, 'GET', `/v1/check_batches/${batch.body.id}`, {
        token: tenant.secret_key,
      });
      return b.body.status === 'completed' || b.body.status === 'failed' ? b.body : undefined;
    });
    expect(done).toMatchObject({ status: 'completed', subject_count: 2, completed_count: 1, error_count: 1 });
    expect(done.error).toMatch(/record 0: the applicant was erased before this record was screened/);
    const [record] = await sql<{ status: string; error: string }[]>`
      select status, error from batch_records where batch_id = ${batch.body.id} and idx = 0`;
    expect(record).toMatchObject({ status: 'error', error: expect.stringMatching(/erased/) });
    const checks = await sql<{ applicant_id: string | null; reference: string | null }[]>`
      select applicant_id, reference from checks where batch_id = ${batch.body.id}`;
    expect(checks).toEqual([{ applicant_id: null, reference: 'other' }]);
  });
});
