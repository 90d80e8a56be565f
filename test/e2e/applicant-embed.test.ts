import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyFlow, kycTemplate, mintLink } from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { axeViolations, HAVE_CHROMIUM, launchBrowser, PHONE } from './applicant-browser.js';
import { TenantSite } from './applicant-driver.js';
import { ensureApplicantBuilt } from './dashboard-build.js';

/**
 * The hosted page embedded in a tenant's site of another site than the service (docs/journey.md "The hosted page"):
 * the tenant's site is `localhost`, the service `127.0.0.1`, so the iframe is cross-site and gets no SameSite=Lax
 * cookie. The tenant's backend exchanges the link (POST /v1/applicant_sessions) and frames the answer's `page_url`;
 * the page works on the bearer token of its fragment, survives a reload of the frame, is framed only for that
 * tenant's allowed origins, and tells its parent when the applicant cancels, then returns to the tenant.
 */

type Json = Record<string, unknown>;

describe.skipIf(!HAVE_CHROMIUM)('the hosted page in a cross-site iframe', () => {
  let t: TestApp;
  let tenant: Tenant;
  let site: TenantSite;
  let siteOrigin: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    await ensureApplicantBuilt();
    site = await new TenantSite().start();
    // the same server by another name: another site for the browser
    siteOrigin = site.origin.replace('127.0.0.1', 'localhost');
    t = await startTestApp();
    tenant = await createTenant(t, { plan: 'contract', allowed_origins: [siteOrigin] });
    await kycTemplate(t, tenant);
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
    await site?.stop();
  });

  /** A waiting flow, its link exchanged by the tenant's backend: the page_url to frame. */
  async function embedded() {
    const flow = await journeyFlow(t, tenant, 'kyc');
    const link = await mintLink(t, tenant, flow.id, { redirect_url: `${siteOrigin}/done` });
    const s = await call<Json>(t.url, 'POST', '/v1/applicant_sessions', {
      body: { token: link.url.split('/').pop() },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    return { flowId: flow.id, pageUrl: s.body.page_url as string, token: s.body.access_token as string };
  }

  const cspOf = async (path: string) => {
    const r = await fetch(`${t.url}${path}`);
    await r.arrayBuffer();
    return { csp: r.headers.get('content-security-policy') ?? '', xfo: r.headers.get('x-frame-options') };
  };

  it('page_url: the session in the query, its token in the fragment; framed for its tenant only', async () => {
    const { pageUrl, token } = await embedded();
    const u = new URL(pageUrl);
    expect(`${u.origin}${u.pathname}`).toBe(`${t.url}/applicant/`);
    expect(u.hash).toBe(`#token=${token}`);
    const sessionId = u.searchParams.get('session') ?? '';
    const [row] = await t.app.sql<{ transport: string }[]>`
      select transport from applicant_sessions where id = ${sessionId}`;
    expect(row?.transport).toBe('bearer');
    const own = await cspOf(`/applicant/?session=${sessionId}`);
    expect(own.csp).toContain(`frame-ancestors ${siteOrigin}`);
    expect(own.xfo).toBeNull();
    // no session, an unknown one, or a malformed one: framed by nobody
    for (const q of ['', `?session=${randomUUID()}`]) {
      const other = await cspOf(`/applicant/${q}`);
      expect(other.csp, q).toContain("frame-ancestors 'none'");
      expect(other.xfo).toBe('DENY');
    }
    expect((await fetch(`${t.url}/applicant/?session=not-a-uuid`)).status).toBe(422);
  });

  it('works in the frame on its bearer token, resumes after a reload of the frame, and tells its parent on cancel', async () => {
    const { flowId, pageUrl } = await embedded();
    const ctx = await browser.newContext({ viewport: { width: PHONE.width, height: 900 } });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${siteOrigin}/embed?src=${encodeURIComponent(pageUrl)}`);
    const frame = page.frameLocator('#journey');
    await frame.locator('[data-step="consent"]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await frame.getByLabel(/biometric data/).check();
    await frame.locator('[data-action="accept"]').click();
    await frame.locator('[data-step="intake"]').waitFor();
    // the write went through as the bearer session, from the frame
    const f = await call<Json>(t.url, 'GET', `/v1/flows/${flowId}`, { token: tenant.secret_key });
    expect(f.body.missing_inputs).not.toContain('consent');

    // a reload of the frame resumes on the token of its fragment
    const inner = page.frames().find((fr) => fr.url().startsWith(`${t.url}/applicant/`));
    await inner?.evaluate('location.reload()');
    await frame.locator('[data-step="intake"]').waitFor();

    await frame.getByRole('button', { name: 'Cancel verification' }).click();
    const received = await waitFor('the message to the parent', async () => {
      const got = (await page.evaluate('window.received')) as { origin: string; data: Json }[] | undefined;
      return got?.length ? got : undefined;
    });
    expect(received).toEqual([
      { origin: t.url, data: { type: 'veriscreen.verification', flow_id: flowId, status: 'cancelled' } },
    ]);
    // and the frame returns to the tenant, with the flow id and the status only
    await waitFor('the frame back on the tenant', () =>
      site.visits.includes(`/done?flow_id=${flowId}&status=cancelled`),
    );
    // the session is over: its token opens nothing
    const [s] = await t.app.sql<{ ended_at: Date | null }[]>`
      select ended_at from applicant_sessions where flow_id = ${flowId}`;
    expect(s?.ended_at).not.toBeNull();
  }, 120_000);
});
