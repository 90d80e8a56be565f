import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asApplicant,
  bearerSession,
  cookiePair,
  cookieSession,
  journeyFlow,
  kycTemplate,
  type Link,
  mintLink,
  openInBrowser,
} from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 33, verification links and the exchange (docs/journey.md, "Links and sessions"): who may mint them, what
// they refuse, one-time use, expiry, revocation ending sessions, the cookie and the bearer exchange, links under a
// native app's tenant_path, the session's idle timeout and absolute lifetime.

let t: TestApp;
let acme: Tenant;
let globex: Tenant;
const ORIGIN = 'https://app.acme.test';
const PASSWORD = 'correct horse battery staple';

interface Detail {
  detail: { loc: (string | number)[]; type: string }[];
  error: { code: string };
}

const links = (flowId: string, token = acme.secret_key) =>
  call<{ items: Link[] }>(t.url, 'GET', `/v1/flows/${flowId}/verification_links`, { token });

async function operatorCookie(tenant: Tenant, role: string): Promise<string> {
  const email = `${role}@acme.test`;
  const c = await call(t.url, 'POST', '/v1/operators', {
    token: tenant.secret_key,
    body: { email, name: role, role, password: PASSWORD },
  });
  expect(c.status).toBe(201);
  const s = await call(t.url, 'POST', '/v1/sessions', {
    body: { tenant_id: tenant.id, email, password: PASSWORD },
  });
  return s.headers.get('set-cookie')?.split(';')[0] ?? '';
}

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme', allowed_origins: [ORIGIN] });
  globex = await createTenant(t, { name: 'Globex' });
  for (const tenant of [acme, globex]) await kycTemplate(t, tenant);
});
afterAll(async () => {
  await t?.close();
});

describe('minting links', () => {
  it('gives a one-time link on /verify with a 128-bit token, stored only as its hash', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const before = Date.now();
    const link = await mintLink(t, acme, f.id, { locale: 'es' });
    expect(link).toMatchObject({ flow_id: f.id, purpose: 'verification', status: 'active', locale: 'es' });
    expect(link.url).toMatch(new RegExp(`^${t.url}/verify/[A-Za-z0-9_-]{22}$`));
    const expires = Date.parse(link.expires_at) - before;
    expect(expires).toBeGreaterThan(86_000_000);
    expect(expires).toBeLessThan(86_500_000);
    const token = link.url.split('/').pop() as string;
    const [row] = await t.app.sql<{ token_hash: Buffer }[]>`
      select token_hash from verification_links where id = ${link.id}`;
    expect(row?.token_hash.length).toBe(32);
    expect(row?.token_hash.toString('latin1')).not.toContain(token);
    const listed = await links(f.id);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: link.id, url: null, status: 'active' }),
    ]);
  });

  it('refuses a redirect outside the allowed origins, an expiry out of range, and flows that collect nothing', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const post = (body: Record<string, unknown>, flowId = f.id) =>
      call<Detail>(t.url, 'POST', `/v1/flows/${flowId}/verification_links`, { token: acme.secret_key, body });
    const evil = await post({ redirect_url: 'https://evil.test/done' });
    expect(evil.status).toBe(422);
    expect(evil.body.detail[0]).toMatchObject({ loc: ['body', 'redirect_url'], type: 'origin_not_allowed' });
    const ok = await post({ redirect_url: `${ORIGIN}/done?x=1`, expires_in: 604_800 });
    expect(ok.status).toBe(201);
    for (const expires_in of [59, 604_801]) expect((await post({ expires_in })).status).toBe(422);
    // a decided sync flow, and a checks-only flow that asks the applicant nothing
    const sync = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    const aml = await journeyFlow(t, acme, 'default', {
      legal_name_first: 'Marigold',
      legal_name_last: 'Fennimore',
    });
    for (const id of [sync.body.id, aml.id]) {
      const r = await post({}, id);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('flow_not_collecting');
    }
    // another tenant's flow is not found
    const other = await journeyFlow(t, globex, 'kyc');
    expect((await post({}, other.id)).status).toBe(404);
  });

  it('is for the secret key and supervisors or admins; an analyst may not', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const as = (cookie: string) =>
      call<Detail>(t.url, 'POST', `/v1/flows/${f.id}/verification_links`, {
        headers: { cookie, origin: t.url },
        body: {},
      });
    const analyst = await as(await operatorCookie(acme, 'analyst'));
    expect(analyst.status).toBe(403);
    expect(analyst.body.error.code).toBe('insufficient_role');
    expect((await as(await operatorCookie(acme, 'supervisor'))).status).toBe(201);
    expect((await as(await operatorCookie(acme, 'admin'))).status).toBe(201);
  });
});

describe('opening links', () => {
  it('exchanges a link once for an HttpOnly, Secure, SameSite=Lax cookie and the page; then says it was used', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const link = await mintLink(t, acme, f.id);
    // a link preview's HEAD does not use it up
    expect((await openInBrowser(link.url, 'HEAD')).status).toBe(303);
    // the page itself answers, not a redirect to it (one round trip less on a phone): never cached, no referrer
    const first = await openInBrowser(link.url);
    expect([first.status, first.location]).toEqual([200, null]);
    expect(first.page?.text).toContain('<main id="app"');
    expect(first.page?.headers.get('cache-control')).toBe('no-store');
    expect(first.page?.headers.get('referrer-policy')).toBe('no-referrer');
    // framed only by the allowed origins of the link's tenant
    expect(first.page?.headers.get('content-security-policy')).toContain(`frame-ancestors ${ORIGIN}`);
    expect(first.page?.text).toContain(`content="${ORIGIN}"`);
    const attrs = (first.setCookie ?? '').split(';').map((s) => s.trim());
    expect(attrs).toEqual(
      expect.arrayContaining(['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=14400']),
    );
    const session = { cookie: cookiePair(first.setCookie) };
    const view = await call<{ flow_id: string; purpose: string }>(t.url, 'GET', '/v1/applicant_session', {
      headers: session,
    });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ flow_id: f.id, purpose: 'verification' });
    const again = await openInBrowser(link.url);
    expect(again).toMatchObject({
      status: 303,
      location: '/applicant/?link=used',
      setCookie: null,
      page: undefined,
    });
    expect((await links(f.id)).body.items[0]?.status).toBe('used');
    const bearer = await call<Detail & { error: { details: { reason: string } } }>(
      t.url,
      'POST',
      '/v1/applicant_sessions',
      { body: { token: link.url.split('/').pop() } },
    );
    expect(bearer.status).toBe(410);
    expect(bearer.body.error).toMatchObject({ code: 'link_unusable', details: { reason: 'used' } });
  });

  it('sends expired, revoked and unknown links to the page that says so, never to the flow', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const expired = await mintLink(t, acme, f.id, { expires_in: 60 });
    await t.app
      .sql`update verification_links set expires_at = now() - interval '1 second' where id = ${expired.id}`;
    const revoked = await mintLink(t, acme, f.id);
    expect(
      (
        await call(t.url, 'DELETE', `/v1/flows/${f.id}/verification_links/${revoked.id}`, {
          token: acme.secret_key,
        })
      ).status,
    ).toBe(200);
    const unknown = `${t.url}/verify/${'A'.repeat(22)}`;
    for (const [url, why] of [
      [expired.url, 'expired'],
      [revoked.url, 'revoked'],
      [unknown, 'unknown'],
    ] as const) {
      expect(await openInBrowser(url)).toEqual({
        status: 303,
        location: `/applicant/?link=${why}`,
        setCookie: null,
        page: undefined,
      });
    }
    const statuses = Object.fromEntries((await links(f.id)).body.items.map((l) => [l.id, l.status]));
    expect(statuses).toEqual({ [expired.id]: 'expired', [revoked.id]: 'revoked' });
  });

  it('gives a native app or an own front end a bearer session with the same rules', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const link = await mintLink(t, acme, f.id);
    const token = link.url.split('/').pop();
    const r = await call<Record<string, unknown>>(t.url, 'POST', '/v1/applicant_sessions', {
      body: { token },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      token_type: 'Bearer',
      flow_id: f.id,
      purpose: 'verification',
      idle_timeout_seconds: 1800,
    });
    expect(r.body.access_token).toMatch(/^aps_[A-Za-z0-9_-]{43}$/);
    const headers = { authorization: `Bearer ${r.body.access_token}` };
    expect((await call(t.url, 'GET', '/v1/applicant_session', { headers })).status).toBe(200);
    const bad = await call<Detail>(t.url, 'POST', '/v1/applicant_sessions', { body: { token: 'short' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]?.loc).toEqual(['body', 'token']);
  });

  it('revoking a link ends the sessions it opened; sessions end when idle or at their lifetime', async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    const [a, b, c] = [
      await mintLink(t, acme, f.id),
      await mintLink(t, acme, f.id),
      await mintLink(t, acme, f.id),
    ];
    const byCookie = await cookieSession(t, a as Link);
    const byBearer = await bearerSession(t, b as Link);
    const idle = await bearerSession(t, c as Link);
    for (const s of [byCookie, byBearer, idle]) {
      expect((await asApplicant(t, s, 'GET', '/v1/applicant_session')).status).toBe(200);
    }
    await call(t.url, 'DELETE', `/v1/flows/${f.id}/verification_links/${a?.id}`, { token: acme.secret_key });
    expect((await asApplicant(t, byCookie, 'GET', '/v1/applicant_session')).status).toBe(401);
    expect((await asApplicant(t, byBearer, 'GET', '/v1/applicant_session')).status).toBe(200);
    await t.app.sql`
      update applicant_sessions set last_seen_at = now() - interval '1801 seconds' where link_id = ${c?.id as string}`;
    expect((await asApplicant(t, idle, 'GET', '/v1/applicant_session')).status).toBe(401);
    await t.app.sql`
      update applicant_sessions set expires_at = now() - interval '1 second' where link_id = ${b?.id as string}`;
    expect((await asApplicant(t, byBearer, 'GET', '/v1/applicant_session')).status).toBe(401);
  });

  it("the flow's first opening writes verification.started once", async () => {
    const f = await journeyFlow(t, acme, 'kyc');
    await bearerSession(t, await mintLink(t, acme, f.id));
    await bearerSession(t, await mintLink(t, acme, f.id));
    const events = await t.app.sql<{ payload: { flow_id: string; link_id: string } }[]>`
      select payload from outbox_events where resource_id = ${f.id} and type = 'verification.started'`;
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.flow_id).toBe(f.id);
  });
});

describe("links under a native app's tenant_path", () => {
  it("builds links under the app's path and opens them there; another tenant's path opens nothing", async () => {
    const app = await call(t.url, 'POST', '/v1/native-apps', {
      token: acme.secret_key,
      body: {
        platform: 'ios',
        identifier: 'test.acme.verify',
        ios_team_id: 'ABCDE12345',
        tenant_path: '/acme/verify',
        environments: ['development'],
      },
    });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const f = await journeyFlow(t, acme, 'kyc');
    const link = await mintLink(t, acme, f.id);
    expect(link.url).toMatch(new RegExp(`^${t.url}/acme/verify/[A-Za-z0-9_-]{22}$`));
    const opened = await openInBrowser(link.url);
    expect([opened.status, opened.location]).toEqual([200, null]);
    expect(opened.page?.text).toContain('<main id="app"');
    cookiePair(opened.setCookie);
    // the web fallback /verify works for the same kind of link; another tenant's link under Acme's path does not
    const g = await journeyFlow(t, globex, 'kyc');
    const theirs = await mintLink(t, globex, g.id);
    expect(theirs.url).toMatch(/\/verify\/[A-Za-z0-9_-]{22}$/);
    const token = theirs.url.split('/').pop();
    expect((await openInBrowser(`${t.url}/acme/verify/${token}`)).location).toBe('/applicant/?link=unknown');
    const theirsOpened = await openInBrowser(theirs.url);
    expect(theirsOpened.status).toBe(200);
    // Globex's page: Acme's allowed origins do not frame it
    expect(theirsOpened.page?.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // a path that is no link base at all is not found
    expect((await openInBrowser(`${t.url}/nowhere/${'B'.repeat(22)}`)).status).toBe(404);
  });
});
