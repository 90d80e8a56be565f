import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let acme: Tenant;
let globex: Tenant;

const FP = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(
  ':',
);
type Issue = { loc: (string | number)[]; type: string };

const post = (body: unknown, tenant = acme) =>
  call<{ id: string; detail: Issue[] } & Record<string, unknown>>(t.url, 'POST', '/v1/native-apps', {
    token: tenant.secret_key,
    body,
  });
const locs = (r: { body: { detail: Issue[] } }) => r.body.detail.map((d) => d.loc.join('.'));

beforeAll(async () => {
  t = await startTestApp({ sources: null });
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
});
afterAll(async () => {
  await t?.close();
});

describe('native apps', () => {
  it('registers an iOS app (bundle id + team id) and an Android app (package + SHA-256 fingerprints)', async () => {
    const ios = await post({
      platform: 'ios',
      identifier: 'com.acme.kyc-app',
      tenant_path: '/acme',
      ios_team_id: 'ABCDE12345',
      environments: ['staging', 'production'],
    });
    expect(ios.status).toBe(201);
    expect(ios.body).toMatchObject({
      platform: 'ios',
      identifier: 'com.acme.kyc-app',
      ios_team_id: 'ABCDE12345',
      android_signing_fingerprints: [],
      enabled: true,
      environments: ['staging', 'production'],
    });
    const android = await post({
      platform: 'android',
      identifier: 'com.acme.kyc_app',
      tenant_path: '/acme',
      android_signing_fingerprints: [FP.toLowerCase()],
    });
    expect(android.status).toBe(201);
    expect(android.body).toMatchObject({ android_signing_fingerprints: [FP], environments: ['production'] });

    const list = await call<{ items: { id: string }[] }>(t.url, 'GET', '/v1/native-apps?platform=ios', {
      token: acme.secret_key,
    });
    expect(list.body.items.map((a) => a.id)).toEqual([ios.body.id]);
    const got = await call(t.url, 'GET', `/v1/native-apps/${android.body.id}`, { token: acme.secret_key });
    expect(got.status).toBe(200);
    expect(
      (await call(t.url, 'GET', `/v1/native-apps/${android.body.id}`, { token: globex.secret_key })).status,
    ).toBe(404);
    const dup = await post({
      platform: 'ios',
      identifier: 'com.acme.kyc-app',
      tenant_path: '/x',
      ios_team_id: 'ABCDE12345',
    });
    expect(dup.status).toBe(409);
  });

  it.each([
    [
      { platform: 'ios', identifier: 'not a bundle', tenant_path: '/a', ios_team_id: 'ABCDE12345' },
      ['body.identifier'],
    ],
    [
      { platform: 'ios', identifier: 'com.acme', tenant_path: '/a', ios_team_id: 'abc' },
      ['body.ios_team_id'],
    ],
    [{ platform: 'ios', identifier: 'com.acme', tenant_path: '/a' }, ['body.ios_team_id']],
    [
      {
        platform: 'ios',
        identifier: 'com.acme',
        tenant_path: '/a',
        ios_team_id: 'ABCDE12345',
        android_signing_fingerprints: [FP],
      },
      ['body.android_signing_fingerprints'],
    ],
    [
      { platform: 'android', identifier: 'acme', tenant_path: '/a', android_signing_fingerprints: [FP] },
      ['body.identifier'],
    ],
    [
      { platform: 'android', identifier: 'com.1acme', tenant_path: '/a', android_signing_fingerprints: [FP] },
      ['body.identifier'],
    ],
    [
      { platform: 'android', identifier: 'com.acme', tenant_path: '/a' },
      ['body.android_signing_fingerprints'],
    ],
    [
      {
        platform: 'android',
        identifier: 'com.acme',
        tenant_path: '/a',
        android_signing_fingerprints: [FP.slice(3)],
      },
      ['body.android_signing_fingerprints.0'],
    ],
    [
      {
        platform: 'android',
        identifier: 'com.acme',
        tenant_path: '/a',
        android_signing_fingerprints: [FP],
        ios_team_id: 'ABCDE12345',
      },
      ['body.ios_team_id'],
    ],
    [{ platform: 'web', identifier: 'com.acme', tenant_path: '/a' }, ['body.platform']],
    [
      {
        platform: 'ios',
        identifier: 'com.acme',
        tenant_path: '/a',
        ios_team_id: 'ABCDE12345',
        environments: ['qa'],
      },
      ['body.environments.0'],
    ],
    [
      {
        platform: 'ios',
        identifier: 'com.acme',
        tenant_path: '/a',
        ios_team_id: 'ABCDE12345',
        environments: [],
      },
      ['body.environments'],
    ],
    [
      { platform: 'ios', identifier: 'com.acme', tenant_path: 'no-slash', ios_team_id: 'ABCDE12345' },
      ['body.tenant_path'],
    ],
    [{ platform: 'ios', identifier: 'com.acme', ios_team_id: 'ABCDE12345' }, ['body.tenant_path']],
  ])('422 naming the field: %j', async (body, expected) => {
    const r = await post(body);
    expect(r.status).toBe(422);
    expect(locs(r)).toEqual(expected);
  });

  it('patch re-validates against the platform and keeps the platform fixed', async () => {
    const ios = await post({
      platform: 'ios',
      identifier: 'com.acme.patch',
      tenant_path: '/p',
      ios_team_id: 'ZZZZZ99999',
    });
    const bad = await call<{ detail: Issue[] }>(t.url, 'PATCH', `/v1/native-apps/${ios.body.id}`, {
      token: acme.secret_key,
      body: { ios_team_id: 'short' },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad)).toEqual(['body.ios_team_id']);
    const platform = await call(t.url, 'PATCH', `/v1/native-apps/${ios.body.id}`, {
      token: acme.secret_key,
      body: { platform: 'android' },
    });
    expect(platform.status).toBe(422);
    const ok = await call(t.url, 'PATCH', `/v1/native-apps/${ios.body.id}`, {
      token: acme.secret_key,
      body: { enabled: false, environments: ['development'] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      enabled: false,
      environments: ['development'],
      ios_team_id: 'ZZZZZ99999',
    });
  });
});
