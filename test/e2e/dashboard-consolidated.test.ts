// The dashboard's alert detail names every list entry of a consolidated entity (issue 30): a flow screening
// Tanchon Commercial Bank against the real UN, UK and OFAC lists raises one alert, and an analyst opening it in
// Chromium sees the bank's three entries, each with its list, id, best-matching name and programmes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, HAVE_CHROMIUM } from '../helpers/chromium.js';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { ensureDashboardBuilt } from './dashboard-build.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_CHROMIUM || !HAS_SHARED_DATA)('dashboard: the alert of a consolidated entity', () => {
  let t: TestApp;
  let tenant: Tenant;
  let ctx: BrowserContext;
  let page: Page;
  let profile: string;
  let alertId: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    t = await startTestApp({
      sources: [
        { format: 'un_xml', uri: sharedPath('un_sc', 'UN_consolidated.xml') },
        { format: 'uk_csv', uri: sharedPath('uk_sanctions_list_derived') },
        { format: 'ofac_sdn_csv', uri: sharedPath('ofac_sdn') },
      ],
    });
    tenant = await createTenant(t, { plan: 'contract' });
    const op = await call(t.url, 'POST', '/v1/operators', {
      token: tenant.secret_key,
      body: { email: 'ana@example.test', name: 'Ana Analyst', role: 'analyst', password: PASSWORD },
    });
    expect(op.status).toBe(201);
    const flow = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: {
        mode: 'sync',
        applicant: { entity_type: 'business', business_name: 'Tanchon Commercial Bank' },
      },
    });
    expect(flow.status).toBe(201);
    const alerts = await call<{ items: { id: string; source_entity_id: string }[] }>(
      t.url,
      'GET',
      `/v1/alerts?flow_id=${flow.body.id}`,
      { token: tenant.secret_key },
    );
    const bank = alerts.body.items.filter((a) => a.source_entity_id === 'un_sc:690752');
    expect(bank).toHaveLength(1);
    alertId = bank[0]!.id;
    profile = await mkdtemp(join(tmpdir(), 'vs-chromium-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    page = ctx.pages()[0] ?? (await ctx.newPage());
    page.setDefaultTimeout(15_000);
  }, 240_000);

  afterAll(async () => {
    await ctx?.close().catch(() => {});
    if (profile) await rm(profile, { recursive: true, force: true });
    await t?.close();
  });

  it('lists the three list entries of the bank on its one alert', async () => {
    await page.goto(`${t.url}/dashboard/login?tenant=${tenant.id}`);
    await page.getByLabel('Workspace ID').fill(tenant.id);
    await page.getByLabel('E-mail').fill('ana@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.who-name').textContent()).toBe('Ana Analyst');
    await page.goto(`${t.url}/dashboard/alerts/${alertId}`);
    await page.getByRole('heading', { name: 'The same entity on 3 lists' }).waitFor();
    const table = page.getByRole('table', { name: 'The same entity on 3 lists' });
    const rows = table.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-entity-id')));
    expect(ids.sort()).toEqual(['gb_fcdo:DPR0195', 'un_sc:690752', 'us_ofac_sdn:9346']);
    const ofac = table.locator('tr[data-entity-id="us_ofac_sdn:9346"]');
    await expect(ofac.textContent()).resolves.toContain('NPWMD');
    await expect(ofac.textContent()).resolves.toContain('TANCHON COMMERCIAL BANK');
    await expect(table.locator('tr[data-entity-id="gb_fcdo:DPR0195"]').textContent()).resolves.toContain(
      'DPR0195',
    );
  });
});
