import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestVersion } from '../../server/datasets/lifecycle.js';
import { makeCsca, makeDg1, makeDg2, makeSigner, makeSod } from '../helpers/chip-fixtures.js';
import { CHROMIUM, CHROMIUM_FLAGS, HAVE_CHROMIUM } from '../helpers/chromium.js';
import {
  face,
  HAS_IDENTITY_DATA,
  SPECIMEN_TD3,
  specimenWithPortrait,
  td3Lines,
} from '../helpers/identity-images.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import {
  call,
  createTenant,
  DEMO_SOURCE,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { axeViolations } from './applicant-browser.js';
import { ensureDashboardBuilt } from './dashboard-build.js';

/**
 * The operator dashboard end to end, in Debian's Chromium driven by playwright-core, against the real service
 * (Postgres, Redis, NATS): analyst proposes "false positive" on an alert from a sync flow that hit the OFAC demo
 * list; a supervisor approves it (four-eyes) and decides the flow's review; an admin promotes a dataset version.
 * Screenshots of every main screen go to test-artifacts/screenshots/.
 */

if (!HAVE_CHROMIUM) {
  console.warn(
    `[dashboard e2e] skipped: ${CHROMIUM} not found (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
}
const SHOTS = join(REPO_ROOT, 'test-artifacts', 'screenshots');
const PASSWORD = 'correct horse battery staple';
type Json = Record<string, unknown>;

describe.skipIf(!HAVE_CHROMIUM)('operator dashboard in Chromium', () => {
  let t: TestApp;
  let tenant: Tenant;
  let ctx: BrowserContext;
  let page: Page;
  let profile: string;
  let flowId: string;
  let alertId: string;
  let nextVersionId: string;
  const users = {
    analyst: { email: 'ana@example.test', name: 'Ana Analyst', role: 'analyst' },
    supervisor: { email: 'sam@example.test', name: 'Sam Supervisor', role: 'supervisor' },
    admin: { email: 'ada@example.test', name: 'Ada Admin', role: 'admin' },
  } as const;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    await mkdir(SHOTS, { recursive: true });
    // the feed scheduler looks for due feeds twice a second (the feeds screen's "Fetch now")
    t = await startTestApp({ env: { FEED_SCHEDULER_MS: '500' } });
    tenant = await createTenant(t, { plan: 'contract' });
    const key = tenant.secret_key;
    // four-eyes on: a disposition waits for a second operator
    const policy = await call<Json>(t.url, 'GET', '/v1/check_policy', { token: key });
    const { policy_version: _v, ...current } = policy.body;
    const put = await call(t.url, 'PUT', '/v1/check_policy', {
      token: key,
      body: { ...current, four_eyes_required: true },
    });
    expect(put.status).toBe(200);
    for (const u of Object.values(users)) {
      const r = await call(t.url, 'POST', '/v1/operators', {
        token: key,
        body: { ...u, password: PASSWORD },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    // a sync flow that hits the (fictional) OFAC demo entry → NEEDS_REVIEW with one alert
    const flow = await call<Json>(t.url, 'POST', '/v1/flows', {
      token: key,
      body: {
        mode: 'sync',
        applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky', external_id: 'cust-0042' },
      },
    });
    expect(flow.status).toBe(201);
    expect(flow.body.status).toBe('NEEDS_REVIEW');
    flowId = flow.body.id as string;
    const alerts = await call<{ items: Json[] }>(t.url, 'GET', `/v1/alerts?flow_id=${flowId}`, {
      token: key,
    });
    expect(alerts.body.items.length).toBe(1);
    alertId = alerts.body.items[0]!.id as string;
    // a clean flow too, so that lists show more than one row
    await call(t.url, 'POST', '/v1/flows', {
      token: key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    // a second, built but not active dataset version for the admin to promote
    const next = await ingestVersion(t.app, { name: 'OFAC demo (rebuilt)', sources: [DEMO_SOURCE] });
    nextVersionId = next.version.id;

    profile = await mkdtemp(join(tmpdir(), 'vs-chromium-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 800 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    page = ctx.pages()[0] ?? (await ctx.newPage());
    page.setDefaultTimeout(15_000);
  }, 180_000);

  afterAll(async () => {
    await ctx?.close().catch(() => {});
    if (profile) await rm(profile, { recursive: true, force: true });
    await t?.close();
  });

  const shot = (name: string, fullPage = false) =>
    page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });

  async function signIn(who: keyof typeof users) {
    // start signed out, whatever the previous test left behind (a failed test must not take the next one down)
    await page.context().clearCookies();
    await page.goto(`${t.url}/dashboard/login?tenant=${tenant.id}`);
    await page.getByLabel('Workspace ID').fill(tenant.id);
    await page.getByLabel('E-mail').fill(users[who].email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.who-name').textContent()).toBe(users[who].name);
  }

  async function signOut() {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Veriscreen' }).waitFor();
  }

  it('refuses a wrong password on the sign-in screen', async () => {
    await page.goto(`${t.url}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in to Veriscreen' }).waitFor();
    await shot('01-login');
    // the browser checks the Workspace ID's pattern (an invalid pattern would be ignored and let anything through)
    const workspace = page.getByLabel('Workspace ID');
    const mismatch = () =>
      workspace.evaluate(
        (el) => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch,
      );
    await workspace.fill(`${tenant.id}x`);
    expect(await mismatch()).toBe(true);
    await workspace.fill('not-a-workspace-id');
    expect(await mismatch()).toBe(true);
    await page.getByLabel('E-mail').fill(users.analyst.email);
    await page.getByLabel('Password').fill(PASSWORD);
    const sessionPosts: string[] = [];
    const onRequest = (r: { url(): string; method(): string }) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/sessions')) sessionPosts.push(r.url());
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => workspace.evaluate((el) => el.matches(':invalid'))).toBe(true);
    page.off('request', onRequest);
    expect(sessionPosts).toEqual([]);
    // either case of a UUID is a workspace id
    await workspace.fill(tenant.id.toUpperCase());
    expect(await mismatch()).toBe(false);
    await workspace.fill(tenant.id);
    expect(await mismatch()).toBe(false);
    await page.getByLabel('E-mail').fill(users.analyst.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong e-mail or password').waitFor();
  });

  it('an analyst opens the alert from the queue by keyboard and proposes "false positive" with a reason', async () => {
    await signIn('analyst');
    // role-aware navigation: no admin screens for an analyst
    await expect(page.getByRole('link', { name: 'Datasets' }).count()).resolves.toBe(0);
    await page.getByRole('heading', { name: 'Alert queue' }).waitFor();
    const row = page.locator(`tr[data-alert-id="${alertId}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('DEMOVSKY');
    await shot('02-alert-queue');
    await row.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Alert: / }).waitFor();
    expect(page.url()).toBe(`${t.url}/dashboard/alerts/${alertId}`);
    await page.getByRole('heading', { name: 'Subject as screened' }).waitFor();
    await page.getByText('us_ofac_sdn').first().waitFor();
    await page.getByRole('heading', { name: 'Evidence by feature' }).waitFor();
    await shot('03-alert-detail', true);

    await page.getByLabel('False positive').check();
    await page
      .getByLabel('Reason')
      .fill('Different date of birth and nationality; only the surname transliteration matches.');
    await page.getByRole('button', { name: 'Propose' }).click();
    await page.getByText('Proposed: waiting for a supervisor').waitFor();
    await page.getByRole('heading', { name: 'Pending four-eyes approval' }).waitFor();
    await page.getByText('You proposed this').waitFor();
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await signOut();
  });

  it('a supervisor sees it pending, approves it, and decides the flow in review', async () => {
    await signIn('supervisor');
    await page.getByLabel('State').selectOption('pending_approval');
    const row = page.locator(`tr[data-alert-id="${alertId}"]`);
    await row.waitFor();
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Pending four-eyes approval' }).waitFor();
    await page.getByText('Different date of birth and nationality').waitFor();
    // people by name, not by id (GET /v1/operator_names works for every role)
    await expect.poll(() => page.locator('section.proposal').textContent()).toContain('Ana Analyst proposed');
    await shot('04-alert-pending-approval', true);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: the alert is closed').waitFor();
    await page.locator('.page-header .badge-closed_false_positive').waitFor();
    await page.getByText('by Ana Analyst · approved by Sam Supervisor (you)').waitFor();

    const alert = await call<Json>(t.url, 'GET', `/v1/alerts/${alertId}`, { token: tenant.secret_key });
    expect(alert.body.state).toBe('closed_false_positive');

    await page.getByRole('link', { name: 'open the flow' }).click();
    await page.getByRole('heading', { name: /^Flow / }).waitFor();
    await page.getByLabel('Decision').selectOption('AUTO_APPROVED');
    await page.getByLabel('Reason codes (comma separated)').fill('aml_false_positive_cleared');
    await shot('05-flow-review', true);
    await page.getByRole('button', { name: 'Decide' }).click();
    await page.getByText('Decided: AUTO APPROVED').waitFor();
    const flow = await call<Json>(t.url, 'GET', `/v1/flows/${flowId}`, { token: tenant.secret_key });
    expect(flow.body.status).not.toBe('NEEDS_REVIEW');
    expect(flow.body.decision).toBe('AUTO_APPROVED');
    expect(flow.body.decision_reason_codes).toContain('aml_false_positive_cleared');

    // one word for the status in the header (not "approved auto approved"); the decision is a fact below
    await expect(page.locator('.page-header .badge').allTextContents()).resolves.toEqual(['APPROVED']);

    await page.getByRole('link', { name: 'Flows', exact: true }).click();
    await page.getByRole('heading', { name: 'Flows' }).waitFor();
    await page.locator('table tbody tr').first().waitFor();
    // rows told apart by the random end of their UUIDv7 ids, with the applicant's name and reference
    const flowRow = page.locator(`tr[data-flow-id="${flowId}"]`);
    await expect(flowRow.textContent()).resolves.toContain('Ivan Demovsky');
    await expect(flowRow.textContent()).resolves.toContain('cust-0042');
    await expect(flowRow.locator('code').first().textContent()).resolves.toBe(`…${flowId.slice(-8)}`);
    const shown = await page.locator('tr[data-flow-id] td:first-child code').allTextContents();
    expect(shown.length).toBeGreaterThan(1);
    expect(new Set(shown).size).toBe(shown.length);
    await page.locator('tr[data-flow-id]', { hasText: 'Marigold Fennimore' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot('06-flows');
    await signOut();
  });

  it('an admin promotes a dataset version from the UI (with confirmation and the deployment admin token)', async () => {
    await signIn('admin');
    await page.getByRole('link', { name: 'Datasets' }).click();
    await page.getByRole('heading', { name: 'Dataset versions' }).waitFor();
    const button = page.locator(`button[data-promote="${nextVersionId}"]`);
    await button.waitFor();
    await shot('07-datasets');
    await button.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Deployment admin token (X-Admin-Token)').fill('wrong-token-wrong-token');
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await dialog.getByText('The admin token was refused').waitFor();
    await dialog.getByLabel('Deployment admin token (X-Admin-Token)').fill(t.adminToken);
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await page.getByText('is now the active dataset version').waitFor();
    const versions = await call<Json>(t.url, 'GET', '/admin/dataset_versions', { admin: t.adminToken });
    expect((versions.body.active as Json).id).toBe(nextVersionId);
  });

  it('shows the other main screens to an admin', async () => {
    const screens: [string, string, string][] = [
      ['Applicants', 'Applicants', '08-applicants'],
      ['Batches', 'Check batches', '09-batches'],
      ['Monitors', 'Monitors', '10-monitors'],
      ['Policy', 'Check policy', '11-policy'],
      ['Webhooks', 'Webhook endpoints', '12-webhooks'],
      ['Operators', 'Operators', '13-operators'],
    ];
    for (const [link, heading, name] of screens) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.locator('.state-loading').waitFor({ state: 'detached' });
      await expect(page.locator('.state-error').count(), name).resolves.toBe(0);
      await shot(name);
    }
    // the check policy is saved from its form (a threshold changed; the API has it)
    const before = await call<Json>(t.url, 'GET', '/v1/check_policy', { token: tenant.secret_key });
    const velocity = Number(before.body.device_velocity_threshold) + 1;
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByLabel('Device velocity threshold').fill(String(velocity));
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Saved: new flows use the new policy version').waitFor();
    const after = await call<Json>(t.url, 'GET', '/v1/check_policy', { token: tenant.secret_key });
    expect(after.body).toMatchObject({
      device_velocity_threshold: velocity,
      four_eyes_required: true,
      default_datasets: before.body.default_datasets,
    });
    expect(after.body.policy_version).not.toBe(before.body.policy_version);
    // applicant detail: the search finds the screened customer
    await page.getByRole('link', { name: 'Applicants', exact: true }).click();
    await page.getByLabel('Search').fill('cust-0042');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Ivan Demovsky' }).click();
    await page.getByRole('heading', { name: 'Ivan Demovsky' }).waitFor();
    await shot('14-applicant-detail');
    // tablet width: the layout reflows without horizontal scrolling of the page
    await page.setViewportSize({ width: 820, height: 1100 });
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alert queue' }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('15-alert-queue-tablet');
    await signOut();
  });

  it('an analyst uploads a customer CSV as a check batch: maps the columns, sees progress, downloads the results with hits', async () => {
    await signIn('analyst');
    await page.getByRole('link', { name: 'Batches', exact: true }).click();
    await page.getByRole('link', { name: 'Upload a CSV' }).click();
    await page.getByRole('heading', { name: 'New check batch from a CSV' }).waitFor();
    const csv = [
      'customer_id;first_name;last_name;geburtsdatum;citizenship;country',
      'cust-1;Ivan;Demovsky;1961-3-12;ru;RU',
      'cust-2;Marigold;"Fennimore; Jr.";1980-01-02;GB;GB',
      'cust-3;Ana;Bellweather;16 July 1969;DE;Germany',
      'cust-4;;;;;',
    ].join('\r\n');
    await page
      .getByLabel('Customer CSV (header line first)')
      .setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // guessed from the header; the date column is mapped by hand
    await expect(page.getByLabel('Customer reference (external_id)').inputValue()).resolves.toBe('0');
    await expect(page.getByLabel('Last name (appended to the name)').inputValue()).resolves.toBe('2');
    await page.getByLabel('Date of birth (YYYY-MM-DD)').selectOption({ label: 'geburtsdatum' });
    // malformed optional values are reported by line and left out; a row without a name is skipped
    await page.locator('li[data-line="4"]').first().waitFor();
    await expect(page.locator('li[data-line="4"]').allTextContents()).resolves.toEqual([
      expect.stringContaining('16 July 1969'),
      expect.stringContaining('Germany'),
    ]);
    await expect(page.locator('li[data-line="5"]').textContent()).resolves.toContain('skipped');
    const preview = page.getByRole('table', { name: 'Preview of the first records' });
    await expect(preview.locator('tbody tr').first().textContent()).resolves.toContain('1961-03-12');
    await expect(preview.locator('tbody tr').nth(1).textContent()).resolves.toContain(
      'Marigold Fennimore; Jr.',
    );
    await shot('17-batch-upload', true);
    await page.getByRole('button', { name: 'Screen 3 records' }).click();
    await page.getByRole('heading', { name: /^Batch / }).waitFor();
    const batchId = page.url().split('/').pop() ?? '';
    await page.locator('[data-batch-progress="3/3"]').waitFor({ timeout: 60_000 });
    await page.locator('.page-header .badge-completed').waitFor();
    const hit = page.locator('tr[data-check-id]');
    await hit.first().waitFor();
    await expect(hit.count()).resolves.toBe(1);
    await expect(hit.textContent()).resolves.toMatch(/Ivan Demovsky.*cust-1.*DEMOVSKY/);
    await page.getByRole('button', { name: 'Prepare results CSV' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download results (CSV)' }).click(),
    ]);
    await shot('18-batch-results', true);
    const text = await readFile((await download.path()) as string, 'utf8');
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^input_ref,external_id,name,result,/);
    expect(lines.length).toBe(4);
    expect(lines.find((l) => l.includes(',cust-1,'))).toMatch(/customers\.csv:2,cust-1,Ivan Demovsky,hit,/);
    expect(lines.find((l) => l.includes(',cust-2,'))).toMatch(/,"Marigold Fennimore; Jr\.",clear,/);
    const b = await call<Json>(t.url, 'GET', `/v1/check_batches/${batchId}`, { token: tenant.secret_key });
    expect(b.body).toMatchObject({ status: 'completed', subject_count: 3, completed_count: 3 });
    await signOut();
  });

  it('names the subject of batch and monitor alerts in the queue and on the alert, from the check that screened it', async () => {
    const key = tenant.secret_key;
    // a batch record without a reference (its subject_ref is "<batch id>:0") and a monitor of a bare name
    const batch = await call<Json>(t.url, 'POST', '/v1/check_batches', {
      token: key,
      body: { records: [{ subjects: [{ name: 'Ivan Demovsky', date_of_birth: '1961' }] }] },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const batchId = batch.body.id as string;
    const monitor = await call<Json>(t.url, 'POST', '/v1/monitors', {
      token: key,
      body: { subjects: [{ name: 'Ivan Demovsky', nationality: 'RU' }] },
    });
    expect(monitor.status, JSON.stringify(monitor.body)).toBe(201);
    const monitorId = monitor.body.id as string;
    const alertOf = async (filter: (a: Json) => boolean) => {
      const r = await call<{ items: Json[] }>(t.url, 'GET', '/v1/alerts?limit=200', { token: key });
      return r.body.items.find(filter);
    };
    let batchAlert: Json | undefined;
    let monitorAlert: Json | undefined;
    await expect
      .poll(
        async () => {
          batchAlert ??= await alertOf((a) => a.batch_id === batchId);
          monitorAlert ??= await alertOf((a) => a.subject_ref === `monitor:${monitorId}`);
          return !!batchAlert && !!monitorAlert;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    // the API answers the screened subject for both (no applicant behind either)
    expect(batchAlert).toMatchObject({
      subject_ref: `${batchId}:0`,
      applicant: null,
      subject: { name: 'Ivan Demovsky', date_of_birth: '1961' },
      monitor_id: null,
    });
    expect(monitorAlert).toMatchObject({
      applicant: null,
      subject: { name: 'Ivan Demovsky', nationality: 'RU' },
      monitor_id: monitorId,
    });

    await signIn('analyst');
    await page.getByRole('heading', { name: 'Alert queue' }).waitFor();
    const batchRow = page.locator(`tr[data-alert-id="${batchAlert?.id}"]`);
    const monitorRow = page.locator(`tr[data-alert-id="${monitorAlert?.id}"]`);
    await batchRow.waitFor();
    await monitorRow.waitFor();
    const batchText = (await batchRow.locator('td').nth(2).textContent()) ?? '';
    expect(batchText).toContain('Ivan Demovsky');
    expect(batchText).toContain(`Batch …${batchId.slice(-8)}, record 1`);
    expect(batchText).not.toContain(`${batchId}:0`);
    const monitorText = (await monitorRow.locator('td').nth(2).textContent()) ?? '';
    expect(monitorText).toContain('Ivan Demovsky');
    expect(monitorText).toContain(`Monitor …${monitorId.slice(-8)}`);
    expect(monitorText).not.toContain('monitor:');
    expect(await axeViolations(page)).toEqual([]);
    await shot('19a-alert-queue-batch-monitor');

    const fact = (label: string) =>
      page
        .locator('section[aria-labelledby="h-subject"] .fact', {
          has: page.locator('dt', { hasText: label }),
        })
        .locator('dd');
    await monitorRow.getByRole('link', { name: 'Ivan Demovsky' }).click();
    await page.getByRole('heading', { name: 'Alert: Ivan Demovsky' }).waitFor();
    await page.locator('section[data-source="monitor"]').waitFor();
    await expect(fact('Name screened').textContent()).resolves.toBe('Ivan Demovsky');
    await expect(fact('Nationality').textContent()).resolves.toBe('RU');
    await expect(fact('Raised by').textContent()).resolves.toBe(`Monitor …${monitorId.slice(-8)}`);
    expect(await axeViolations(page)).toEqual([]);
    await shot('19b-alert-detail-monitor', true);

    await page.goto(`${t.url}/dashboard/alerts/${batchAlert?.id}`);
    await page.getByRole('heading', { name: 'Alert: Ivan Demovsky' }).waitFor();
    await page.locator('section[data-source="batch"]').waitFor();
    await expect(fact('Name screened').textContent()).resolves.toBe('Ivan Demovsky');
    await expect(fact('Date of birth').textContent()).resolves.toBe('1961');
    await fact('Raised by')
      .getByRole('link', { name: `Batch …${batchId.slice(-8)}, record 1` })
      .click();
    await page.getByRole('heading', { name: `Batch …${batchId.slice(-8)}` }).waitFor();
    await signOut();
    // the monitor stops here, so that the monitors test below sees only its own
    expect((await call(t.url, 'DELETE', `/v1/monitors/${monitorId}`, { token: key })).status).toBe(204);
  });

  it('an analyst creates a monitor (pausing needs a supervisor); an admin pauses, resumes and deletes it', async () => {
    await signIn('analyst');
    await page.getByRole('link', { name: 'Monitors', exact: true }).click();
    await page.getByRole('button', { name: 'New monitor' }).click();
    await page.getByLabel('Name to monitor').fill('Olga Demovskaya');
    await page.getByLabel('Date of birth (YYYY-MM-DD)').fill('12/03/1965');
    await page.getByLabel('Customer reference').fill('cust-olga');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    // the API's 422 lands on the field
    await page.locator('#mon-date_of_birth[aria-invalid="true"]').waitFor();
    await page.getByLabel('Date of birth (YYYY-MM-DD)').fill('1965');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByText('Monitoring Olga Demovskaya every 24 h').waitFor();
    const row = page.locator('tr[data-monitor-id]', { hasText: 'Olga Demovskaya' });
    await row.locator('.badge-active').waitFor();
    await expect(row.locator('[data-monitor-toggle]').count()).resolves.toBe(0);
    await signOut();

    await signIn('admin');
    await page.getByRole('link', { name: 'Monitors', exact: true }).click();
    await row.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Olga Demovskaya is paused').waitFor();
    await row.locator('.badge-paused').waitFor();
    const id = await row.getAttribute('data-monitor-id');
    const paused = await call<Json>(t.url, 'GET', `/v1/monitors/${id}`, { token: tenant.secret_key });
    expect(paused.body).toMatchObject({ status: 'paused', external_id: 'cust-olga' });
    await shot('19-monitors');
    await row.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Olga Demovskaya is active again').waitFor();
    await row.locator('.badge-active').waitFor();
    // deleting asks first; a cancelled dialog deletes nothing
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await call(t.url, 'GET', `/v1/monitors/${id}`, { token: tenant.secret_key })).status).toBe(200);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete monitor' }).click();
    await page.getByText('Olga Demovskaya is no longer monitored').waitFor();
    await row.waitFor({ state: 'detached' });
    expect((await call(t.url, 'GET', `/v1/monitors/${id}`, { token: tenant.secret_key })).status).toBe(404);
    await signOut();
  });

  it('an admin registers a webhook endpoint (secret shown once), reads the delivery log, rotates the secret and redelivers', async () => {
    // a local receiver that refuses until told otherwise
    let accept = false;
    const received: { signature: string; body: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          signature: String(req.headers['veriscreen-signature'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(accept ? 200 : 500).end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const signedWith = (secret: string, r: { signature: string; body: string }) => {
      const t = /t=(\d+)/.exec(r.signature)?.[1];
      const mac = createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex');
      return r.signature.split(',').includes(`v1=${mac}`);
    };
    try {
      await signIn('admin');
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      await page.getByRole('button', { name: 'New endpoint' }).click();
      await page.getByLabel('Endpoint URL').fill(hookUrl);
      await page.getByLabel('flow.created').check();
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      const secret1 = (await page.locator('[data-signing-secret]').textContent()) ?? '';
      expect(secret1).toMatch(/^whsec_/);
      await shot('20-webhook-secret-once');
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await expect(page.locator('[data-signing-secret]').count()).resolves.toBe(0);
      const listed = await call<{ items: Json[] }>(t.url, 'GET', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
      });
      expect(listed.body.items[0]).toMatchObject({ url: hookUrl, signing_secret: null });

      // an event: the receiver answers 500, the log shows the failed attempt
      await call(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Webb', legal_name_last: 'Hooker' } },
      });
      const row = page.locator('tr[data-endpoint-id]', { hasText: hookUrl });
      await row.getByRole('link', { name: 'Delivery log' }).click();
      const delivery = page.locator('tr[data-delivery-id]').first();
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Refresh' }).click();
            return delivery.getAttribute('data-status', { timeout: 1000 }).catch(() => null);
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe('retrying');
      await expect(delivery.textContent()).resolves.toContain('HTTP 500');
      expect(received.length).toBeGreaterThan(0);
      expect(signedWith(secret1, received[0]!)).toBe(true);

      await row.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
      await page.getByText('Rotated: the previous secret keeps signing').waitFor();
      const secret2 = (await page.locator('[data-signing-secret]').textContent()) ?? '';
      expect(secret2).toMatch(/^whsec_/);
      expect(secret2).not.toBe(secret1);
      await page.getByRole('button', { name: 'I have stored it' }).click();

      accept = true;
      await delivery.getByRole('button', { name: 'Redeliver' }).click();
      await page.getByText('Redelivery of flow.created queued').waitFor();
      await page.locator('tr[data-delivery-id][data-status="succeeded"]').waitFor({ timeout: 30_000 });
      await shot('21-webhook-deliveries', true);
      // the redelivery is signed with the new secret and, during the overlap, the old one
      const last = received[received.length - 1]!;
      expect(signedWith(secret2, last)).toBe(true);
      expect(signedWith(secret1, last)).toBe(true);
      await signOut();
    } finally {
      receiver.close();
    }
  });

  it('an admin adds an operator, changes their role, disables them (no sign-in) and enables them again', async () => {
    const key = tenant.secret_key;
    const temp = { email: 'tim@example.test', name: 'Tim Temporary', role: 'analyst', password: PASSWORD };
    await signIn('admin');
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    const me = page.locator('tr[data-operator-id]', { hasText: users.admin.email });
    await me.waitFor();
    await expect(me.getByRole('button').count()).resolves.toBe(0);
    await expect(me.getByRole('combobox').count()).resolves.toBe(0);

    // added from the form
    await page.getByRole('button', { name: 'Add an operator' }).click();
    await page.getByLabel('Name').fill(temp.name);
    await page.getByLabel('E-mail').fill(temp.email);
    await page.getByLabel('Role', { exact: true }).selectOption('analyst');
    await page.getByLabel('Initial password (at least 12 characters)').fill(temp.password);
    await page.getByRole('button', { name: 'Create operator' }).click();
    await page.getByText('Tim Temporary can now sign in as an analyst').waitFor();
    const row = page.locator('tr[data-operator-id]', { hasText: temp.email });
    await row.waitFor();

    // Tim signs in elsewhere
    const timSignIn = async () => {
      const res = await fetch(`${t.url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: tenant.id, email: temp.email, password: PASSWORD }),
      });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
      return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    };
    const sessionOf = async (cookie: string) =>
      (await fetch(`${t.url}/v1/sessions/current`, { headers: { cookie } })).status;
    let timCookie = await timSignIn();
    expect(await sessionOf(timCookie)).toBe(200);

    // a role change takes effect at once: Tim's session (opened as an analyst) ends
    await row.getByLabel('Role of Tim Temporary').selectOption('supervisor');
    await page.getByText('Tim Temporary is now a supervisor').waitFor();
    expect(await sessionOf(timCookie)).toBe(401);
    const listed = await call<{ items: { email: string; role: string }[] }>(t.url, 'GET', '/v1/operators', {
      token: key,
    });
    expect(listed.body.items.find((o) => o.email === temp.email)?.role).toBe('supervisor');
    timCookie = await timSignIn();

    // disabling ends Tim's session too
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Tim Temporary is disabled and signed out everywhere').waitFor();
    await row.locator('.badge-disabled').waitFor();
    await shot('22-operators');
    expect(await sessionOf(timCookie)).toBe(401);
    const refused = await call(t.url, 'POST', '/v1/sessions', {
      body: { tenant_id: tenant.id, email: temp.email, password: PASSWORD },
    });
    expect(refused.status).toBe(401);
    await row.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Tim Temporary can sign in again').waitFor();
    const again = await call(t.url, 'POST', '/v1/sessions', {
      body: { tenant_id: tenant.id, email: temp.email, password: PASSWORD },
    });
    expect(again.status).toBe(201);
    await signOut();
  });

  it('an admin edits the FATF listings and registers a list feed behind the deployment admin token', async () => {
    await signIn('admin');
    // the token typed for the dataset promotion earlier is forgotten with the page: asked again, a wrong one refused
    await page.getByRole('link', { name: 'FATF', exact: true }).click();
    await page.getByRole('heading', { name: 'FATF listings' }).waitFor();
    await page.getByLabel('Deployment admin token (X-Admin-Token)').fill('wrong-token-wrong-token');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('The admin token was refused').waitFor();
    await page.getByLabel('Deployment admin token (X-Admin-Token)').fill(t.adminToken);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Add to the list' }).waitFor();
    const before = (
      await call<Record<string, string>>(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken })
    ).body;
    await page.getByLabel('Country code').fill('zz');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.locator('tr[data-country="ZZ"]').waitFor();
    await page.getByRole('button', { name: 'Save listings' }).click();
    // the API names the code it does not know; nothing is stored
    await page.getByText('not an ISO 3166-1 alpha-2 country code').waitFor();
    await page.locator('tr[data-country="ZZ"]').getByRole('button', { name: 'Remove' }).click();
    await page.getByLabel('Country code').fill('mm');
    await page.getByLabel('New listing').selectOption('black');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.locator('tr[data-country="MM"]').waitFor();
    await page.getByRole('button', { name: 'Save listings' }).click();
    await page.getByText('Saved: every process screens with the new listings').waitFor();
    await shot('23-fatf');
    const after = (
      await call<Record<string, string>>(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken })
    ).body;
    expect(after).toEqual({ ...before, MM: 'black' });

    // list feeds: the token is remembered for this tab
    await page.getByRole('link', { name: 'Feeds', exact: true }).click();
    await page.getByRole('heading', { name: 'List feeds' }).waitFor();
    await page.getByRole('button', { name: 'Register a feed' }).click();
    await page.getByLabel('Name').fill('OFAC demo folder');
    await page.getByLabel('Format').fill('ofac_sdn');
    await page.getByLabel('Source URI (https://, s3:// or file://)').fill(`file://${DEMO_SOURCE.uri}`);
    await page.getByRole('button', { name: 'Register feed' }).click();
    await page.locator('#feed-format[aria-invalid="true"]').waitFor();
    await page.locator('#feed-format + .error-text', { hasText: 'unknown format; one of:' }).waitFor();
    await page.getByLabel('Format').fill('ofac_sdn_csv');
    await page.getByRole('button', { name: 'Register feed' }).click();
    await page.getByText('Registered “OFAC demo folder”').waitFor();
    const row = page.locator('tr[data-feed-id]', { hasText: 'OFAC demo folder' });
    await row.getByRole('button', { name: 'Fetch now' }).click();
    await page.getByText('is due now').waitFor();
    // the scheduler fetches it and builds a version for an admin to promote (manual policy); the feed was due at
    // registration too, so the second fetch may already have found the same bytes ('unchanged')
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return row.getAttribute('data-last-status', { timeout: 1000 }).catch(() => null);
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toMatch(/^(ready|unchanged)$/);
    await row.locator('.badge-ready, .badge-unchanged').first().waitFor();
    await shot('24-feeds');
    const feeds = await call<{ items: Json[] }>(t.url, 'GET', '/admin/dataset_feeds', {
      admin: t.adminToken,
    });
    expect(feeds.body.items[0]).toMatchObject({
      name: 'OFAC demo folder',
      last_version_id: expect.any(String),
    });
    expect(['ready', 'unchanged']).toContain(feeds.body.items[0]?.last_status);
    const feedId = String(feeds.body.items[0]?.id);

    // its settings are edited in the same form (the format is fixed once registered)
    await row.getByRole('button', { name: 'Edit' }).click();
    await expect(page.getByLabel('Format').isDisabled()).resolves.toBe(true);
    await page.getByLabel('Fetch every (minutes)').fill('60');
    await page.getByRole('button', { name: 'Save feed' }).click();
    await page.getByText('Saved “OFAC demo folder”').waitFor();
    await row.getByText('60 min').waitFor();
    // disabled: no longer fetched, no "Fetch now"
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('“OFAC demo folder” is no longer fetched').waitFor();
    await row.locator('.badge-disabled').waitFor();
    await expect(row.getByRole('button', { name: 'Fetch now' }).count()).resolves.toBe(0);
    const edited = await call<Json>(t.url, 'GET', `/admin/dataset_feeds/${feedId}`, { admin: t.adminToken });
    expect(edited.body).toMatchObject({ interval_minutes: 60, enabled: false, format: 'ofac_sdn_csv' });
    // deleted after a confirmation; the version it built stays
    const builtVersion = String(feeds.body.items[0]?.last_version_id);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete feed' }).click();
    await page.getByText('Deleted “OFAC demo folder”').waitFor();
    await row.waitFor({ state: 'detached' });
    expect((await call(t.url, 'GET', `/admin/dataset_feeds/${feedId}`, { admin: t.adminToken })).status).toBe(
      404,
    );
    expect(
      (await call(t.url, 'GET', `/admin/dataset_versions/${builtVersion}`, { admin: t.adminToken })).status,
    ).toBe(200);
    await signOut();
  });

  it.skipIf(!HAS_IDENTITY_DATA)(
    'shows an identity flow: the document, extracted fields against the applicant, selfie vs portrait, sub-checks',
    async () => {
      const key = tenant.secret_key;
      const tpl = await call(t.url, 'POST', '/v1/flow_templates', {
        token: key,
        body: {
          slug: 'kyc-id',
          name: 'KYC with passport and selfie',
          required_checks: ['document', 'selfie'],
          required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
        },
      });
      expect(tpl.status).toBe(201);
      // typed with a different date of birth: the dashboard marks the mismatch
      const f = await call<Json>(t.url, 'POST', '/v1/flows', {
        token: key,
        body: {
          template_slug: 'kyc-id',
          applicant: {
            legal_name_first: 'Anna Maria',
            legal_name_last: 'Eriksson',
            dob: '1975-08-12',
            consent: { biometric: true },
          },
        },
      });
      const id = f.body.id as string;
      await call(t.url, 'POST', `/v1/flows/${id}/process`, { token: key });
      const doc = await specimenWithPortrait(
        SPECIMEN_TD3,
        { left: 190, top: 270, width: 180, height: 280 },
        face('img2.jpg'),
        { left: 560, top: 170, width: 420, height: 560 },
      );
      for (const [docType, bytes] of [
        ['passport', doc],
        ['selfie', await readFile(face('img4.jpg'))],
      ] as const) {
        const c = await call<{ id: string; upload: { url: string; headers: Record<string, string> } }>(
          t.url,
          'POST',
          `/v1/flows/${id}/documents`,
          { token: key, body: { doc_type: docType } },
        );
        const put = await fetch(c.body.upload.url, {
          method: 'PUT',
          headers: c.body.upload.headers,
          body: bytes,
        });
        await put.arrayBuffer();
        // the passport's chip as a reader app sends it (before the image, so the flow waits for its verification)
        if (docType === 'passport') await submitChip(t, id, c.body.id, key);
        await call(t.url, 'POST', `/v1/flows/${id}/documents/${c.body.id}/complete`, { token: key });
      }
      await expect
        .poll(async () => (await call<Json>(t.url, 'GET', `/v1/flows/${id}`, { token: key })).body.status, {
          timeout: 120_000,
          interval: 500,
        })
        .toMatch(/NEEDS_REVIEW|REJECTED|APPROVED/);
      await signIn('analyst');
      await page.goto(`${t.url}/dashboard/flows/${id}`);
      await page.getByRole('heading', { name: 'Identity document and selfie' }).waitFor();
      const img = page.getByAltText('Identity document as uploaded');
      await img.waitFor();
      await expect
        .poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      await expect(page.locator('tr[data-field="dob"] .mismatch').count()).resolves.toBe(1);
      await expect(page.locator('tr[data-field="name"] .ok').count()).resolves.toBe(1);
      const score = await page.locator('[data-face-match-score]').getAttribute('data-face-match-score');
      expect(Number(score)).toBeGreaterThan(0);
      await page.locator('tr[data-sub-check="face_match"]').waitFor();
      await page.locator('tr[data-sub-check="mrz_found"]').waitFor();
      // values read as labelled text, not JSON
      const values = await page.locator('[data-sub-check-value]').allTextContents();
      expect(values.length).toBeGreaterThan(3);
      for (const v of values) expect(v).not.toMatch(/[{}"]|\btrue\b|\bfalse\b|\bnull\b/);
      await expect(
        page.locator('tr[data-sub-check="dob_matches_applicant"] [data-sub-check-value]').textContent(),
      ).resolves.toMatch(/^document:\s*\d{4}-\d{2}-\d{2}\s*applicant:\s*1975-08-12$/);
      await expect
        .poll(() =>
          page
            .getByAltText('Document portrait')
            .evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0);
      // the chip: verified, its sub-checks listed, its portrait beside the printed one
      await page.locator('.chip-result[data-chip-verified="true"]').waitFor();
      await page.locator('tr[data-sub-check="chip_signature"]').waitFor();
      await expect
        .poll(() =>
          page
            .getByAltText('Chip portrait')
            .evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0);
      await shot('16-flow-identity', true);
      await signOut();
    },
    180_000,
  );
});

/** Loads a generated CSCA into the trust store and submits the chip of document `docId`: DG1 (the specimen's MRZ),
 * DG2 (img2's face as JPEG), an EF.SOD signed by a Document Signer of that CSCA. */
async function submitChip(
  t: { url: string; adminToken: string },
  flowId: string,
  docId: string,
  key: string,
) {
  const csca = makeCsca({ country: 'UT', cn: 'CSCA Utopia', kind: 'p256', slot: 'e2e-csca' });
  const ds = makeSigner({ country: 'UT', cn: 'DS Utopia', kind: 'p256', slot: 'e2e-ds' }, csca);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const loaded = await call(t.url, 'POST', '/admin/trust_store/cscas', {
    admin: t.adminToken,
    body: { data: b64(csca.der) },
  });
  expect(loaded.status).toBe(201);
  const portrait = await sharp(await readFile(face('img2.jpg')))
    .extract({ left: 560, top: 170, width: 420, height: 560 })
    .resize(240, 320)
    .jpeg()
    .toBuffer();
  const dgs = {
    1: makeDg1(
      td3Lines({
        surname: 'ERIKSSON',
        given_names: 'ANNA MARIA',
        birth_date: '1974-08-12',
        expiry_date: '2012-04-15',
        sex: 'F',
        document_number: 'L898902C3',
      }),
    ),
    2: makeDg2(portrait, 0, 240, 320),
  };
  const r = await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${docId}/chip`, {
    token: key,
    body: { sod: b64(makeSod(ds, dgs)), data_groups: { 1: b64(dgs[1]), 2: b64(dgs[2]) } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
}
