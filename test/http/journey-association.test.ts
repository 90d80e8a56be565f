import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyFlow, journeyTemplate, mintLink } from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 33, native apps open the links: the association files list exactly the enabled apps of active tenants in
// this deployment's environment (development here), each held to its tenant_path; a tenant with a link host of
// its own gets its links built there and its apps listed only there.

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let delta: Tenant;
const FP = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0')).join(':');

/** A GET with the Host header a browser would send for that host (fetch does not let one set it). */
function getAs(
  host: string,
  path: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function app(tenant: Tenant, body: Record<string, unknown>) {
  const r = await call(t.url, 'POST', '/v1/native-apps', {
    token: tenant.secret_key,
    body: { environments: ['development'], ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

const ios = (identifier: string, tenant_path: string, extra: Record<string, unknown> = {}) => ({
  platform: 'ios',
  identifier,
  ios_team_id: 'ABCDE12345',
  tenant_path,
  ...extra,
});
const android = (identifier: string, tenant_path: string, extra: Record<string, unknown> = {}) => ({
  platform: 'android',
  identifier,
  android_signing_fingerprints: [FP],
  tenant_path,
  ...extra,
});

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  delta = await createTenant(t, { name: 'Delta' });
  await app(acme, ios('com.acme.kyc', '/acme'));
  await app(acme, android('com.acme.kyc', '/acme'));
  await app(acme, ios('com.acme.disabled', '/acme-old', { enabled: false }));
  await app(acme, ios('com.acme.prod', '/acme', { environments: ['production'] }));
  await app(globex, android('com.globex.verify', '/globex/verify/'));
  await app(delta, android('com.delta.id', '/delta', { link_host: 'verify.delta.test' }));
  await app(delta, ios('com.delta.id', '/delta', { link_host: 'verify.delta.test' }));
});
afterAll(async () => {
  await t?.close();
});

describe('association files', () => {
  it("Apple: the deployment's enabled iOS apps, each limited to its tenant_path, as JSON with no redirect", async () => {
    const r = await getAs('verify.example.test', '/.well-known/apple-app-site-association');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['cache-control']).toBe('public, max-age=3600');
    expect(r.body).toEqual({
      applinks: {
        details: [
          {
            appIDs: ['ABCDE12345.com.acme.kyc'],
            components: [{ '/': '/acme/*', comment: 'Veriscreen verification links' }],
          },
        ],
      },
    });
  });

  it('Android: handle_all_urls with upper-case SHA-256 fingerprints, paths for Android 15+', async () => {
    const r = await getAs('verify.example.test', '/.well-known/assetlinks.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const statement = (pkg: string, path: string) => ({
      relation: ['delegate_permission/common.handle_all_urls'],
      target: { namespace: 'android_app', package_name: pkg, sha256_cert_fingerprints: [FP.toUpperCase()] },
      relation_extensions: {
        'delegate_permission/common.handle_all_urls': { dynamic_app_link_components: [{ '/': path }] },
      },
    });
    expect(r.body).toEqual(
      expect.arrayContaining([
        statement('com.acme.kyc', '/acme/*'),
        statement('com.globex.verify', '/globex/verify/*'),
      ]),
    );
    expect(r.body).toHaveLength(2);
  });

  it("a tenant's own link host: its links are built there, and there only its apps are listed", async () => {
    const host = await getAs('verify.delta.test', '/.well-known/assetlinks.json');
    expect((host.body as { target: { package_name: string } }[]).map((s) => s.target.package_name)).toEqual([
      'com.delta.id',
    ]);
    const apple = await getAs('verify.delta.test:443', '/.well-known/apple-app-site-association');
    expect(apple.body).toMatchObject({ applinks: { details: [{ appIDs: ['ABCDE12345.com.delta.id'] }] } });
    await journeyTemplate(t, delta, 'kyc', { required_checks: ['selfie'] });
    const f = await journeyFlow(t, delta, 'kyc');
    const link = await mintLink(t, delta, f.id);
    expect(link.url).toMatch(/^https:\/\/verify\.delta\.test\/delta\/[A-Za-z0-9_-]{22}$/);
    // another tenant cannot name it
    const taken = await call<{ error: { code: string } }>(t.url, 'POST', '/v1/native-apps', {
      token: acme.secret_key,
      body: ios('com.acme.other', '/acme2', {
        link_host: 'verify.delta.test',
        environments: ['development'],
      }),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('already_exists');
  });
});
