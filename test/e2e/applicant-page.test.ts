import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyFlow, journeyTemplate, mintLink, TINY_PNG } from '../helpers/journey.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { axeViolations, HAVE_CHROMIUM, launchBrowser, PHONE } from './applicant-browser.js';
import { ensureApplicantBuilt } from './dashboard-build.js';

/**
 * The applicant's hosted page as served (docs/journey.md "The hosted page"): its own small bundle, a strict CSP
 * that lets nobody frame it without a session, and the `link-invalid` step for links that cannot open a flow, in
 * English, Spanish and Arabic (right to left), with no serious or critical axe-core violation.
 */

/** the page's window, as the test's code sees it (the test is compiled without the DOM library) */
type DomWindow = { getComputedStyle(e: unknown): { direction: string } };

const SHOTS = join(REPO_ROOT, 'test-artifacts', 'screenshots');
let t: TestApp;

beforeAll(async () => {
  await ensureApplicantBuilt();
  await mkdir(SHOTS, { recursive: true });
  t = await startTestApp({ sources: null });
});
afterAll(async () => {
  await t?.close();
});

describe('the applicant page as served', () => {
  it('serves /applicant/ with a strict CSP, no framing without a session, and no cache', async () => {
    for (const path of ['/applicant/', '/applicant', '/applicant/?link=expired']) {
      const res = await fetch(t.url + path);
      const html = await res.text();
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(html).toContain('<meta name="veriscreen-embed-origins" content="" />');
    }
  });

  it('ships its JavaScript in at most 150 kB gzip, from its own origin only', async () => {
    const html = await (await fetch(`${t.url}/applicant/`)).text();
    const scripts = [...html.matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1] as string);
    expect(scripts.length).toBeGreaterThan(0);
    let gz = 0;
    for (const src of scripts) {
      expect(src.startsWith('/applicant/assets/')).toBe(true);
      const res = await fetch(t.url + src);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      gz += gzipSync(Buffer.from(await res.arrayBuffer())).length;
    }
    expect(gz).toBeLessThanOrEqual(150_000);
  });

  it('answers 404 JSON for a missing asset', async () => {
    const res = await fetch(`${t.url}/applicant/assets/..%2F..%2Fpackage.json`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe.skipIf(!HAVE_CHROMIUM)('link-invalid pages in Chromium at 360 × 740', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = async (locale: string, path: string) => {
    const ctx = await browser.newContext({ viewport: PHONE, locale });
    const page = await ctx.newPage();
    await page.goto(t.url + path);
    await page.locator('[data-step="link-invalid"]').waitFor();
    return { ctx, page };
  };

  it('says what happened to a used, expired, revoked or unknown link and what to do, with no axe issue', async () => {
    const said = {
      used: 'This link has already been used',
      expired: 'This link has expired.',
      revoked: 'This link has been withdrawn.',
      unknown: 'This link is not valid.',
    };
    for (const [problem, text] of Object.entries(said)) {
      const { ctx, page } = await open('en-GB', `/applicant/?link=${problem}`);
      await page.getByRole('heading', { name: 'This link cannot be used' }).waitFor();
      await page.getByText(text).waitFor();
      await page.getByText('Ask the organisation that sent you the link for a new one').waitFor();
      // nothing of a flow on it
      expect(await page.locator('[data-step="consent"], [data-step="document"]').count()).toBe(0);
      if (problem === 'expired') {
        expect(await axeViolations(page)).toEqual([]);
        await page.screenshot({ path: join(SHOTS, 'applicant-link-expired-360.png') });
      }
      await ctx.close();
    }
  });

  it('speaks Spanish and Arabic by Accept-Language; Arabic lays out right to left', async () => {
    const es = await open('es-ES', '/applicant/?link=used');
    expect(await es.page.locator('html').getAttribute('lang')).toBe('es');
    await es.page.getByText('Este enlace ya se ha usado').waitFor();
    await es.ctx.close();

    const ar = await open('ar-EG', '/applicant/?link=expired');
    expect(await ar.page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await ar.page.locator('html').getAttribute('lang')).toBe('ar');
    await ar.page.getByText('انتهت صلاحية هذا الرابط.').waitFor();
    // laid out right to left, not only marked so
    expect(
      await ar.page
        .locator('h1')
        .evaluate((h) => (globalThis as unknown as DomWindow).getComputedStyle(h).direction),
    ).toBe('rtl');
    expect(await axeViolations(ar.page)).toEqual([]);
    await ar.page.screenshot({ path: join(SHOTS, 'applicant-link-expired-360-rtl.png') });
    await ar.ctx.close();
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the document and done steps, in Chromium at 360 × 740', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("names the template's accepted issuing countries (ICAO codes) before the capture, in the page's language", async () => {
    const tenant = await createTenant(t, { name: 'Acme', plan: 'contract' });
    await journeyTemplate(t, tenant, 'eu', {
      required_checks: ['document'],
      allowed_document_types: ['passport', 'id_card'],
      required_documents: [{ min: 1, side: 'single', types: ['passport', 'id_card'] }],
      // ICAO 9303 codes as in the MRZ: D is Germany; GBR and FRA the ISO alpha-3 of the UK and France
      allowed_issuing_countries: ['D', 'GBR', 'FRA'],
    });
    for (const [locale, names] of [
      ['en-GB', 'France, Germany, United Kingdom'],
      ['es-ES', 'Alemania, Francia, Reino Unido'],
    ] as const) {
      const flow = await journeyFlow(t, tenant, 'eu', { legal_name_first: 'Ann', legal_name_last: 'Lee' });
      const link = await mintLink(t, tenant, flow.id);
      const ctx = await browser.newContext({ viewport: PHONE, locale });
      const page = await ctx.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(link.url);
      await page.locator('[data-action="accept"]').click();
      const step = page.locator('[data-step="document"]');
      await step.waitFor();
      expect(await step.textContent()).toContain(names);
      // nothing is asked that would change nothing: the document's reading decides its country
      expect(await page.locator('select').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await ctx.close();
    }
  }, 120_000);

  it("after submit, a flow that waits for its chip tells the applicant to read it with the tenant's app", async () => {
    const tenant = await createTenant(t, { name: 'Acme', plan: 'contract' });
    await journeyTemplate(t, tenant, 'chip', {
      required_checks: ['document'],
      allowed_document_types: ['passport'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
      passport_nfc_behavior: 'required',
    });
    const flow = await journeyFlow(t, tenant, 'chip', { legal_name_first: 'Ann', legal_name_last: 'Lee' });
    // the passport's image came through the tenant's API; the applicant consents and submits on the page
    const key = { token: tenant.secret_key };
    const doc = await call<{ id: string; upload: { url: string; headers: Record<string, string> } }>(
      t.url,
      'POST',
      `/v1/flows/${flow.id}/documents`,
      { ...key, body: { doc_type: 'passport', mime_type: 'image/png' } },
    );
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    const put = await fetch(doc.body.upload.url, {
      method: 'PUT',
      headers: doc.body.upload.headers,
      body: TINY_PNG,
    });
    await put.arrayBuffer();
    expect(put.status).toBe(200);
    const done = await call(t.url, 'POST', `/v1/flows/${flow.id}/documents/${doc.body.id}/complete`, key);
    expect(done.status).toBe(202);
    const link = await mintLink(t, tenant, flow.id);

    const ctx = await browser.newContext({ viewport: PHONE, locale: 'en-GB' });
    const page = await ctx.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(link.url);
    await page.locator('[data-step="consent"]').waitFor();
    await page.locator('[data-action="accept"]').click();
    await page.locator('[data-step="review"]').waitFor();
    await page.locator('[data-action="submit"]').click();
    await page.locator('[data-step="done"]').waitFor();
    await page
      .getByText("One more step: read your document's chip with Acme's app on a phone with NFC.")
      .waitFor();
    expect(await page.getByText('This usually takes less than a minute').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // and that is what the flow waits for, once its passport is read
    const f = await waitFor('the flow to wait for its chip', async () => {
      const r = await call<{ status: string; missing_inputs: string[] }>(
        t.url,
        'GET',
        `/v1/flows/${flow.id}`,
        key,
      );
      return r.body.missing_inputs?.includes('document_chip') ? r.body : undefined;
    });
    expect(f).toMatchObject({ status: 'AWAITING_INPUT', missing_inputs: ['document_chip'] });
    expect(await page.getByText("One more step: read your document's chip").count()).toBe(1);
    await ctx.close();
  }, 120_000);
});
