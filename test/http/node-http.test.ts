import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uwsNativeAvailable } from '../../server/http/transport.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Node 22/24 have no uWebSockets.js binary: there node:http serves (HTTP_SERVER=auto). The whole suite passes
// with HTTP_SERVER=node on Node 20 as well; this file pins the node:http transport in every run.
describe('node:http transport (HTTP_SERVER=node)', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ env: { HTTP_SERVER: 'node' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('uses uWebSockets.js only where its native binary exists for this Node', () => {
    // the installed build ships binaries for the Node 16/18/20 ABIs (93, 108, 115) only
    expect(uwsNativeAvailable()).toBe(['93', '108', '115'].includes(process.versions.modules));
  });

  it('serves a sync flow, HEAD, errors and the 413 of an oversized body', async () => {
    const flow = await call<{ status: string; decision: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
    });
    expect(flow.status).toBe(201);
    expect(flow.headers.get('x-request-id')).toBeTruthy();
    const head = await fetch(`${t.url}/livez`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    const missing = await call(t.url, 'GET', '/v1/nothing?x=1');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'not_found' } });
    const bad = await call(t.url, 'POST', '/v1/flows', { token: tenant.secret_key, body: { mode: 'nope' } });
    expect(bad.status).toBe(422);
    const big = await fetch(`${t.url}/v1/flows`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(t.app.config.MAX_BODY_BYTES + 1) }),
    });
    expect(big.status).toBe(413);
  });
});
