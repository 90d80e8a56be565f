import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, type LogLine } from '../helpers/log-capture.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// everything the app logs, at debug
const { log, lines, output } = captureLogs();

let t: TestApp;
let acme: Tenant;

beforeAll(async () => {
  t = await startTestApp({ sources: null, log });
  acme = await createTenant(t, { name: 'Acme' });
});
afterAll(async () => {
  await t?.close();
});

const accessLines = (request_id: string) =>
  lines().filter((l) => l.msg === 'request' && l.request_id === request_id);

describe('access log', () => {
  it('writes one line per request with the route template, status, duration, request id and tenant; never secrets', async () => {
    const ok = await call(t.url, 'GET', '/v1/applicants?q=querymarker', {
      token: acme.secret_key,
      headers: { 'x-request-id': 'alog-ok' },
    });
    expect(ok.status).toBe(200);
    const missing = await call(t.url, 'GET', '/v1/applicants/00000000-0000-4000-8000-000000000000', {
      token: acme.secret_key,
      headers: { 'x-request-id': 'alog-missing' },
    });
    expect(missing.status).toBe(404);
    const noRoute = await call(t.url, 'GET', '/no/such/pathmarker', {
      headers: { 'x-request-id': 'alog-noroute' },
    });
    expect(noRoute.status).toBe(404);
    const invalid = await call(t.url, 'GET', '/v1/applicants?after=nope', {
      token: acme.secret_key,
      headers: { 'x-request-id': 'alog-invalid' },
    });
    expect(invalid.status).toBe(422);
    const badJson = await call(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      raw: '{"bodymarker": ',
      headers: { 'x-request-id': 'alog-body' },
    });
    expect(badJson.status).toBe(422);
    const cookie = await call(t.url, 'GET', '/v1/applicants', {
      headers: { cookie: 'vs_session=cookiemarker', 'x-request-id': 'alog-cookie' },
    });
    expect(cookie.status).toBe(401);
    const wrongKey = await call(t.url, 'GET', '/v1/applicants', {
      token: 'sk_test_wrongkeymarker',
      headers: { 'x-request-id': 'alog-wrongkey' },
    });
    expect(wrongKey.status).toBe(401);
    const live = await call(t.url, 'GET', '/livez', { headers: { 'x-request-id': 'alog-livez' } });
    expect(live.status).toBe(200);

    const one = (id: string): LogLine => {
      const found = accessLines(id);
      expect(found, id).toHaveLength(1);
      return found[0] as LogLine;
    };
    const okLine = one('alog-ok');
    expect(okLine).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/v1/applicants',
      status: 200,
      request_id: 'alog-ok',
      tenant_id: acme.id,
    });
    expect(typeof okLine.duration_ms).toBe('number');
    expect(okLine.duration_ms as number).toBeGreaterThanOrEqual(0);
    expect(ok.headers.get('x-request-id')).toBe('alog-ok');
    expect(one('alog-missing')).toMatchObject({
      route: '/v1/applicants/{applicant_id}',
      status: 404,
      tenant_id: acme.id,
    });
    const unrouted = one('alog-noroute');
    expect(unrouted).toMatchObject({ route: 'unmatched', status: 404 });
    expect(unrouted.tenant_id).toBeUndefined();
    expect(one('alog-invalid')).toMatchObject({ route: '/v1/applicants', status: 422, tenant_id: acme.id });
    expect(one('alog-body')).toMatchObject({
      method: 'POST',
      route: '/v1/flows',
      status: 422,
      tenant_id: acme.id,
    });
    expect(one('alog-cookie')).toMatchObject({ status: 401 });
    expect(one('alog-wrongkey')).toMatchObject({ status: 401 });
    // probes are logged at debug, not info
    expect(one('alog-livez')).toMatchObject({ level: 20, route: '/livez', status: 200 });
    // the tenant create (admin) was logged too, without the admin token
    expect(lines().some((l) => l.msg === 'request' && l.route === '/admin/tenants' && l.status === 201)).toBe(
      true,
    );

    for (const secret of [
      acme.secret_key,
      acme.publishable_key,
      t.adminToken,
      'wrongkeymarker',
      'cookiemarker',
      'querymarker',
      'bodymarker',
      'pathmarker',
      'nope',
    ]) {
      expect(output()).not.toContain(secret);
    }
  });
});
