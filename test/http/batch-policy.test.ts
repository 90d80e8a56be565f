import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCheck } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 32 item 11: a batch recorded policy_version v1 while its checks ran under v2 (the policy changed while its
// chunks were queued). A batch screens every record with the policy it recorded. Deterministic here: the batch is
// accepted by an API-only process (nothing consumes its chunks), the policy changes, and only then does a worker
// process join and screen the chunks.

type Check = ApiCheck<{ review_threshold: number; fail_threshold: number }>;

let api: TestApp;
let worker: TestApp | undefined;
let acme: Tenant;

beforeAll(async () => {
  api = await startTestApp({ env: { ROLE: 'api' } });
  acme = await createTenant(api, { name: 'Acme' });
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
});

const putPolicy = async (review: number, fail: number) => {
  const r = await call<{ policy_version: string }>(api.url, 'PUT', '/v1/check_policy', {
    token: acme.secret_key,
    body: {
      default_datasets: ['sanctions', 'pep'],
      aml_match_policy: { review_threshold: review, fail_threshold: fail },
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.policy_version;
};

describe('a batch and the check policy', () => {
  it('screens every record with the policy the batch recorded, though the policy changed while it was queued', async () => {
    const v1 = await putPolicy(0.8, 0.9);
    const records = Array.from({ length: 30 }, (_, i) => ({
      external_id: `r${i}`,
      subjects: [{ name: i % 2 ? 'Ivan Demovsky' : `Marigold Number${i} Fennimore`, type: 'person' }],
    }));
    const b = await call<{ id: string; policy_version: string }>(api.url, 'POST', '/v1/check_batches', {
      token: acme.secret_key,
      body: { records },
    });
    expect(b.status, JSON.stringify(b.body)).toBe(202);
    expect(b.body.policy_version).toBe(v1);
    const v2 = await putPolicy(0.86, 0.97);
    expect(v2).not.toBe(v1);

    worker = await startTestApp({ join: api, env: { ROLE: 'worker' } });
    await waitFor('the batch to complete', async () => {
      const g = await call<{ status: string }>(api.url, 'GET', `/v1/check_batches/${b.body.id}`, {
        token: acme.secret_key,
      });
      return g.body.status === 'completed' ? g : undefined;
    });
    const checks = await call<{ items: Check[] }>(
      api.url,
      'GET',
      `/v1/checks?batch_id=${b.body.id}&limit=100`,
      { token: acme.secret_key },
    );
    expect(checks.body.items).toHaveLength(30);
    const versions = new Set(checks.body.items.map((c) => c.policy_version));
    expect([...versions]).toEqual([v1]);
    for (const c of checks.body.items) {
      expect(c.evidence).toMatchObject({ review_threshold: 0.8, fail_threshold: 0.9 });
    }
  });
});
