import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { HAVE_CHROMIUM, launchBrowser } from './applicant-browser.js';
import { ensureDashboardBuilt } from './dashboard-build.js';

/**
 * What operators see of the applicant's journey on the dashboard, in Chromium: on a flow, its verification links
 * (a supervisor mints one, sees its URL once, revokes it; an analyst sees no links) and how each document was
 * captured; the funnel of a template (links → opened → each step → submitted → decided).
 */

type Json = Record<string, unknown>;
/** the journey's server side (verification links, applicant sessions: docs/journey.md) */
const HAVE_JOURNEY_API = existsSync(join(REPO_ROOT, 'server', 'journey', 'journey-routes.ts'));
if (!HAVE_JOURNEY_API)
  console.warn('[journey e2e] skipped: the journey API (server/journey/) is not in this tree');
const SHOTS = join(REPO_ROOT, 'test-artifacts', 'screenshots');
const PASSWORD = 'correct horse battery staple';
const people = {
  supervisor: { email: 'sam@example.test', name: 'Sam Supervisor', role: 'supervisor' },
  analyst: { email: 'ana@example.test', name: 'Ana Analyst', role: 'analyst' },
} as const;

describe.skipIf(!HAVE_JOURNEY_API || !HAVE_CHROMIUM)('the journey on the operator dashboard', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  let flowId: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    await mkdir(SHOTS, { recursive: true });
    t = await startTestApp();
    tenant = await createTenant(t, { plan: 'contract', allowed_origins: ['https://app.acme.test'] });
    for (const p of Object.values(people)) {
      const r = await call(t.url, 'POST', '/v1/operators', {
        token: tenant.secret_key,
        body: { ...p, password: PASSWORD },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const tpl = await call(t.url, 'POST', '/v1/flow_templates', {
      token: tenant.secret_key,
      body: {
        slug: 'hosted',
        name: 'Passport and selfie',
        required_checks: ['aml_screen', 'document', 'selfie'],
        required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
        intake_fields: ['dob'],
      },
    });
    expect(tpl.status, JSON.stringify(tpl.body)).toBe(201);
    const f = await call<Json>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { template_slug: 'hosted', applicant: { legal_name_first: 'Anna', legal_name_last: 'Eriksson' } },
    });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    flowId = f.body.id as string;
    browser = await launchBrowser();
    page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' })
    ).newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(who: keyof typeof people) {
    await page.context().clearCookies();
    await page.goto(`${t.url}/dashboard/login?tenant=${tenant.id}`);
    await page.getByLabel('Workspace ID').fill(tenant.id);
    await page.getByLabel('E-mail').fill(people[who].email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.who-name').textContent()).toBe(people[who].name);
  }

  it('a supervisor mints a link on a flow (its URL shown once), the applicant opens it, the supervisor revokes another', async () => {
    await signIn('supervisor');
    await page.goto(`${t.url}/dashboard/flows/${flowId}`);
    await page.getByRole('heading', { name: 'Verification links' }).waitFor();
    await page.getByText('No links yet.').waitFor();
    await page.getByLabel('Valid for').selectOption('3600');
    await page.getByLabel('Language').selectOption('es');
    await page.getByRole('button', { name: 'Create link' }).click();
    const minted = page.getByLabel('New link (shown only now: send it to the applicant)');
    await minted.waitFor();
    const url = await minted.inputValue();
    expect(url.startsWith(`${t.url}/verify/`)).toBe(true);
    const row = page.locator('tr[data-link-id]');
    await expect.poll(() => row.count()).toBe(1);
    await expect(row.first().textContent()).resolves.toMatch(/active/i);
    await expect(row.first().locator('td').last().textContent()).resolves.toBe('Revoke');
    await expect(row.first().textContent()).resolves.toContain('es');
    await page.screenshot({ path: join(SHOTS, 'dashboard-verification-links.png'), fullPage: true });

    // the applicant opens it (one-time): the list then says used
    const opened = await fetch(url, { redirect: 'manual' });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('set-cookie')).toMatch(/^vs_applicant=aps_/);
    await page.reload();
    await expect.poll(() => page.locator('tr[data-link-id]').first().textContent()).toMatch(/used/i);

    // a second link, revoked from the dashboard: opening it shows the revoked page
    await page.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => page.locator('tr[data-link-id]').count()).toBe(2);
    const second = await minted.inputValue();
    const active = page.locator('tr[data-link-id]', { hasText: 'Active' });
    await active.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.locator('tr[data-link-id]', { hasText: 'Revoked' }).count()).toBe(1);
    const again = await fetch(second, { redirect: 'manual' });
    expect(again.headers.get('location')).toBe('/applicant/?link=revoked');
  });

  it('shows the funnel of the template: its stages in journey order, with counts', async () => {
    await page.getByRole('link', { name: 'Funnel' }).click();
    await page.getByRole('heading', { name: 'Verification funnel' }).waitFor();
    const table = page.locator('section[data-template="hosted"]');
    await table.waitFor();
    // one flow given links (two minted); every stage of the journey in order, nothing submitted yet
    await expect(table.locator('tr[data-stage="links"] td[data-count]').textContent()).resolves.toBe('1');
    expect(
      await table
        .locator('tr[data-stage]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-stage'))),
    ).toEqual([
      'links',
      'opened',
      'consent',
      'intake',
      'document',
      'selfie',
      'review',
      'submitted',
      'decided',
    ]);
    await expect(table.locator('tr[data-stage="submitted"] td[data-count]').textContent()).resolves.toBe('0');
    await page.screenshot({ path: join(SHOTS, 'dashboard-verification-funnel.png'), fullPage: true });
  });

  it('shows how each document was captured, and no links to an analyst', async () => {
    const doc = await call<{ id: string; upload: { url: string; headers: Record<string, string> } }>(
      t.url,
      'POST',
      `/v1/flows/${flowId}/documents`,
      { token: tenant.secret_key, body: { doc_type: 'passport', mime_type: 'image/jpeg' } },
    );
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    await signIn('analyst');
    await page.goto(`${t.url}/dashboard/flows/${flowId}`);
    await page.getByRole('heading', { name: 'How the documents were captured' }).waitFor();
    const row = page.locator(`tr[data-document-id="${doc.body.id}"]`);
    await expect(row.textContent()).resolves.toContain('API upload');
    expect(await page.getByRole('heading', { name: 'Verification links' }).count()).toBe(0);
  });
});
