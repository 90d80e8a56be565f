import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_IDENTITY_DATA } from '../helpers/identity-images.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { Receiver } from '../helpers/webhook-receiver.js';
import { axeViolations, HAVE_CHROMIUM, launchBrowser, PHONE } from './applicant-browser.js';
import {
  captureChallenge,
  captureScene,
  HOLDER,
  nextChallenge,
  PASSPORT_SCENE,
  renderJourneyVideo,
  TenantSite,
} from './applicant-driver.js';
import { ensureApplicantBuilt } from './dashboard-build.js';

/**
 * The applicant's journey end to end (issue 33, docs/journey.md), in Debian's Chromium at 360 × 740 with Chromium's
 * fake camera playing a video rendered here (a passport, then the holder's face in every pose): a link minted with a
 * secret key → consent → intake → passport → selfie challenge → submit → an APPROVED flow, its webhook, and the
 * redirect to the tenant; used, expired and revoked links; a reload that resumes; the hand-off from a desktop
 * without a camera to a phone; `live_only`; the Arabic page; axe-core on every screen.
 */

type Json = Record<string, unknown>;
/** the journey's server side (verification links, applicant sessions: docs/journey.md) */
const HAVE_JOURNEY_API = existsSync(join(REPO_ROOT, 'server', 'journey', 'journey-routes.ts'));
if (!HAVE_JOURNEY_API)
  console.warn('[journey e2e] skipped: the journey API (server/journey/) is not in this tree');
const SHOTS = join(REPO_ROOT, 'test-artifacts', 'screenshots');

describe.skipIf(!HAVE_JOURNEY_API || !HAVE_CHROMIUM || !HAS_IDENTITY_DATA)(
  'the applicant journey in Chromium at 360 × 740',
  () => {
    let t: TestApp;
    let tenant: Tenant;
    let site: TenantSite;
    let hooks: Receiver;
    let phone: Browser;
    let desktop: Browser;
    let dir: string;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      await ensureApplicantBuilt();
      await mkdir(SHOTS, { recursive: true });
      dir = await mkdtemp(join(tmpdir(), 'vs-journey-'));
      const video = join(dir, 'camera.y4m');
      await renderJourneyVideo(video);
      site = await new TenantSite().start();
      hooks = await new Receiver().start();
      t = await startTestApp();
      tenant = await createTenant(t, { plan: 'contract', allowed_origins: [site.origin] });
      await template('journey', {});
      await template('journey-live-only', { document_capture_mode: 'live_only' });
      const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url: hooks.url, events: ['flow.decided', 'verification.started', 'verification.submitted'] },
      });
      expect(ep.status, JSON.stringify(ep.body)).toBe(201);
      phone = await launchBrowser({ video });
      desktop = await launchBrowser();
    }, 240_000);

    afterAll(async () => {
      for (const c of contexts) await c.close().catch(() => {});
      await phone?.close();
      await desktop?.close();
      await t?.close();
      await site?.stop();
      await hooks?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    async function template(slug: string, extra: Json) {
      const r = await call(t.url, 'POST', '/v1/flow_templates', {
        token: tenant.secret_key,
        body: {
          slug,
          name: slug,
          required_checks: ['aml_screen', 'document', 'selfie'],
          allowed_document_types: ['passport'],
          required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
          intake_fields: ['dob'],
          ...extra,
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }

    /** A flow on `slug` for the holder (no date of birth, no consent: the page collects them) and a link to it. */
    async function flowWithLink(slug = 'journey', link: Json = {}) {
      const f = await call<Json>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: {
          template_slug: slug,
          applicant: { legal_name_first: HOLDER.legal_name_first, legal_name_last: HOLDER.legal_name_last },
        },
      });
      expect(f.status, JSON.stringify(f.body)).toBe(201);
      const flowId = f.body.id as string;
      const l = await call<Json>(t.url, 'POST', `/v1/flows/${flowId}/verification_links`, {
        token: tenant.secret_key,
        body: { redirect_url: `${site.origin}/done`, ...link },
      });
      expect(l.status, JSON.stringify(l.body)).toBe(201);
      return { flowId, linkId: l.body.id as string, url: l.body.url as string };
    }

    async function open(browser: Browser, url: string, locale = 'en-GB'): Promise<Page> {
      const ctx = await browser.newContext({ viewport: PHONE, locale });
      contexts.push(ctx);
      const page = await ctx.newPage();
      // a capture is uploaded and judged by the server before the next screen: slow on a loaded machine
      page.setDefaultTimeout(90_000);
      await page.goto(url);
      return page;
    }

    const step = (page: Page, name: string) => page.locator(`[data-step="${name}"]`).waitFor();
    const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
    async function axeClean(page: Page) {
      expect(await axeViolations(page)).toEqual([]);
    }

    async function consentAndIntake(page: Page, shots = false) {
      await step(page, 'consent');
      if (shots) await shot(page, 'applicant-01-consent-360');
      await page.getByLabel(/biometric data/).check();
      await page.locator('[data-action="accept"]').click();
      await step(page, 'intake');
      await page.locator('input[name="dob"]').fill(HOLDER.dob);
      if (shots) await shot(page, 'applicant-02-intake-360');
      await page.locator('[data-action="next"]').click();
      await step(page, 'document');
    }

    type Frame = { pose: string; face_count: number; pose_shown: boolean; same_person: boolean };

    /** The selfie check's sub-checks and the challenge's frames of a decided flow, its document check clear. */
    function selfieOf(flow: Json) {
      const checks = flow.checks as { check_type: string; result: string; evidence: Json }[];
      const doc = checks.find((c) => c.check_type === 'document');
      const selfie = checks.find((c) => c.check_type === 'selfie');
      expect(doc?.result, JSON.stringify(doc?.evidence.sub_checks)).toBe('clear');
      const subs = selfie?.evidence.sub_checks as { name: string; passed: boolean | null }[];
      const challenge = selfie?.evidence.liveness_challenge as { frames: Frame[] } | undefined;
      const frames = challenge?.frames ?? [];
      return { subs, frames };
    }

    /** A whole journey's flow: the passport read and accepted, the selfie matching it, every frame of the challenge
     * one face of the same person in the pose asked, and so APPROVED with no reason code. */
    function approved(flow: Json) {
      const { subs, frames } = selfieOf(flow);
      expect(subs.filter((x) => x.passed === false)).toEqual([]);
      expect(subs.find((x) => x.name === 'liveness_challenge')?.passed).toBe(true);
      expect(frames.map((f) => [f.face_count, f.pose_shown, f.same_person])).toEqual(
        Array(4).fill([1, true, true]),
      );
      expect({ status: flow.status, codes: flow.decision_reason_codes }).toEqual({
        status: 'APPROVED',
        codes: [],
      });
    }

    let journey: { flowId: string; url: string };

    it('takes an applicant from a link to an APPROVED flow, its webhook and the redirect, axe-clean throughout', async () => {
      journey = await flowWithLink();
      const page = await open(phone, journey.url);
      await step(page, 'consent');
      // the link answered with the page itself, whose address is then the page's: a reload resumes the session
      expect(page.url()).toBe(`${t.url}/applicant/`);
      await page.reload();
      await step(page, 'consent');
      await axeClean(page);
      // consent is required: nothing moves without the box ticked
      await page.locator('[data-action="accept"]').click();
      await page.getByText('Tick the box to agree before you continue.').waitFor();
      await consentAndIntake(page, true);

      // the passport, from the live camera, with live feedback
      await page.locator('[data-action="capture"]').waitFor();
      await page.locator('.feedback').waitFor();
      await axeClean(page);
      await shot(page, 'applicant-03-document-camera-360');
      const challenge = nextChallenge(page);
      await captureScene(page, PASSPORT_SCENE, 'document');
      await step(page, 'selfie');
      const poses = await challenge;
      expect(poses[0]).toBe('front');
      expect(poses).toHaveLength(4);
      await page.getByText('Pose 1 of 4').waitFor();
      await axeClean(page);
      await shot(page, 'applicant-04-selfie-challenge-360');
      await captureChallenge(page, poses);

      await step(page, 'review');
      await axeClean(page);
      await shot(page, 'applicant-05-review-360');
      await page.locator('[data-action="submit"]').click();
      await step(page, 'done');
      await page.locator('[data-step="done"] [data-status="done"]').waitFor({ timeout: 120_000 });
      await axeClean(page);
      await shot(page, 'applicant-06-done-360');

      const flow = await call<Json>(t.url, 'GET', `/v1/flows/${journey.flowId}`, {
        token: tenant.secret_key,
      });
      approved(flow.body);
      const docs = flow.body.documents as { doc_type: string; capture: string }[];
      expect(docs.filter((d) => d.doc_type === 'passport').map((d) => d.capture)).toContain('hosted_camera');
      expect(docs.filter((d) => d.doc_type === 'selfie').map((d) => d.capture)).toEqual(
        Array(4).fill('hosted_camera'),
      );
      await waitFor('the flow.decided webhook', () =>
        hooks.got.find(
          (h) => h.body.type === 'flow.decided' && JSON.stringify(h.body.data).includes(journey.flowId),
        ),
      );
      // back to the tenant with the flow id and a status, nothing personal
      await page.waitForURL(`${site.origin}/done?*`);
      const back = new URL(page.url());
      expect([...back.searchParams.keys()].sort()).toEqual(['flow_id', 'status']);
      expect(back.searchParams.get('flow_id')).toBe(journey.flowId);
      expect(back.searchParams.get('status')).toBe('submitted');
      await page.getByRole('heading', { name: 'Welcome back to Acme' }).waitFor();
    }, 420_000);

    it('a used link cannot open the flow again', async () => {
      const page = await open(phone, journey.url);
      await step(page, 'link-invalid');
      expect(page.url()).toBe(`${t.url}/applicant/?link=used`);
      await page.getByText('This link has already been used').waitFor();
      expect(await page.locator('[data-step="consent"], [data-step="done"]').count()).toBe(0);
    });

    it('expired and revoked links give their pages', async () => {
      const revoked = await flowWithLink();
      const del = await call(
        t.url,
        'DELETE',
        `/v1/flows/${revoked.flowId}/verification_links/${revoked.linkId}`,
        {
          token: tenant.secret_key,
        },
      );
      expect(del.status).toBe(200);
      const r = await open(phone, revoked.url);
      await step(r, 'link-invalid');
      await r.getByText('This link has been withdrawn.').waitFor();

      const expired = await flowWithLink('journey', { expires_in: 60 });
      await t.app.sql`update verification_links set expires_at = now() - interval '1 second'
      where id = ${expired.linkId}`;
      const e = await open(phone, expired.url);
      await step(e, 'link-invalid');
      await e.getByText('This link has expired.').waitFor();
      await shot(e, 'applicant-link-expired-360');
    });

    it('intake fields are required, and a reload mid-way resumes where the applicant was', async () => {
      const { url } = await flowWithLink();
      const page = await open(phone, url);
      await step(page, 'consent');
      await page.getByLabel(/biometric data/).check();
      await page.locator('[data-action="accept"]').click();
      await step(page, 'intake');
      await page.locator('[data-action="next"]').click();
      await page.getByRole('link', { name: 'Fill in Date of birth.' }).waitFor();
      expect(await page.locator('input[name="dob"]').getAttribute('aria-invalid')).toBe('true');
      await step(page, 'intake');
      await page.reload();
      await step(page, 'intake');
      await page.locator('input[name="dob"]').fill(HOLDER.dob);
      await page.locator('[data-action="next"]').click();
      await step(page, 'document');
      await page.reload();
      await step(page, 'document');
      await page.locator('[data-action="capture"]').waitFor();
    });

    it('live_only shows no file picker, and the API refuses a hosted upload', async () => {
      const { flowId, url } = await flowWithLink('journey-live-only');
      const page = await open(phone, url);
      await consentAndIntake(page);
      await page.locator('[data-action="capture"]').waitFor();
      expect(await page.locator('input[type="file"]').count()).toBe(0);
      expect(await page.locator('[data-action="upload"]').count()).toBe(0);
      const status = await page.evaluate(
        `fetch('/v1/documents', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ submission_id: ${JSON.stringify(flowId)}, doc_type: 'passport', side: 'single', capture: 'upload' }) })
        .then(async (r) => [r.status, (await r.json()).error?.code])`,
      );
      expect(status).toEqual([422, 'capture_mode_not_allowed']);
    });

    it('desktop without a camera → explains it and hands off to a phone, then continues when the phone is done; a pose not shown sends the flow to review', async () => {
      const { flowId, url } = await flowWithLink();
      const page = await open(desktop, url);
      await consentAndIntake(page);
      await page.getByText('No camera could be used on this device.').waitFor();
      await axeClean(page);
      await shot(page, 'applicant-07-no-camera-360');
      await page.locator('[data-action="handoff"]').click();
      const linkInput = page.getByLabel('Link for your phone', { exact: true });
      await linkInput.waitFor();
      await page.getByRole('img', { name: 'QR code with the link for your phone' }).waitFor();
      await axeClean(page);
      await shot(page, 'applicant-08-handoff-qr-360');
      const handoffUrl = await linkInput.inputValue();
      expect(handoffUrl).toMatch(/^http/);

      const mobile = await open(phone, handoffUrl);
      await step(mobile, 'document');
      const challenge = nextChallenge(mobile);
      await captureScene(mobile, PASSPORT_SCENE, 'document');
      await step(mobile, 'selfie');
      // the applicant on the phone keeps facing the camera where the challenge asks for its first turn
      const poses = await challenge;
      const wrong = poses[1] as string;
      await captureChallenge(
        mobile,
        poses.map((p) => (p === wrong ? 'front' : p)),
      );
      await step(mobile, 'done');
      await mobile.getByText('All done on this phone').waitFor();
      // the desktop followed and continues to the review
      await step(page, 'review');
      await page.locator('[data-action="submit"]').click();
      await step(page, 'done');
      // submitted from the desktop, decided on the phone's captures: the frame that did not show its pose fails the
      // challenge, which routes the flow to review and nothing else does
      const f = await waitFor(
        'the flow to be decided',
        async () => {
          const r = await call<Json>(t.url, 'GET', `/v1/flows/${flowId}`, { token: tenant.secret_key });
          return ['APPROVED', 'NEEDS_REVIEW', 'REJECTED'].includes(r.body.status as string)
            ? r.body
            : undefined;
        },
        120_000,
      );
      expect({ status: f.status, codes: f.decision_reason_codes }).toEqual({
        status: 'NEEDS_REVIEW',
        codes: ['liveness_challenge_failed'],
      });
      const { subs, frames } = selfieOf(f);
      expect(subs.filter((x) => x.passed === false).map((x) => x.name)).toEqual(['liveness_challenge']);
      expect(frames.map((fr) => [fr.pose, fr.pose_shown, fr.same_person])).toEqual(
        poses.map((p) => [p, p !== wrong, true]),
      );
      const docs = f.documents as { doc_type: string; capture: string }[];
      expect(new Set(docs.map((d) => d.capture))).toEqual(new Set(['hosted_camera']));
    }, 360_000);

    it('the Arabic page lays out right to left, axe-clean', async () => {
      const { url } = await flowWithLink('journey', { locale: 'ar' });
      const page = await open(phone, url, 'en-GB');
      await step(page, 'consent');
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      expect(await page.locator('html').getAttribute('lang')).toBe('ar');
      await page.getByRole('heading', { name: 'قبل أن تبدأ' }).waitFor();
      await axeClean(page);
      await shot(page, 'applicant-01-consent-360-rtl');
      await page.getByLabel(/بيانات بيومترية/).check();
      await page.locator('[data-action="accept"]').click();
      await step(page, 'intake');
      await shot(page, 'applicant-02-intake-360-rtl');
    });
  },
);
