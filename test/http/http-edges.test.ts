import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 12 item 10: /openapi.json built once, and an authenticated request's body still read. What a transport
// must do with bodies, refusals and connections that never read is in transport-contract.test.ts, run on both.

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ sources: null });
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t?.close();
});

describe('body after authentication', () => {
  it('still reads the body of an authenticated request', async () => {
    const r = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: [{ subjects: [{ name: 'Marigold Fennimore', type: 'person' }] }] },
    });
    expect(r.status).toBe(202);
  });
});

describe('GET /openapi.json', () => {
  it('is serialised once: a strong ETag, and If-None-Match → 304 without a body', async () => {
    const first = await fetch(`${t.url}/openapi.json`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('content-type')).toContain('application/json');
    const doc = (await first.json()) as { openapi: string };
    expect(doc.openapi).toMatch(/^3\.1/);
    const again = await fetch(`${t.url}/openapi.json`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});
