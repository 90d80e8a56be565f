// npm run bench:journey — the applicant's hosted page as a phone on a slow network sees it: Chromium with 4× CPU
// throttling and DevTools' "Fast 3G" profile (CDP Emulation.setCPUThrottlingRate, Network.emulateNetworkConditions)
// at 360 × 740, the camera fed by Chromium's fake device (a passport, then the holder's face in every pose).
// Figures: opening the link → the first interactive screen (target ≤ 2.5 s); the page's JavaScript, gzip (≤ 150 kB);
// "Submit" → the result screen for passport + selfie with its liveness challenge (p50 ≤ 8 s, p99 ≤ 20 s), the first
// flow after the server's start reported apart (it loads the OCR and face models). It drives the page through the
// journey's server side (verification links and applicant sessions, server/journey/). BENCH_TRACE=1 prints each
// opening's requests (start and duration from the link's opening), to see where the time to interactive goes.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, PHONE } from '../test/e2e/applicant-browser.js';
import {
  captureChallenge,
  captureScene,
  HOLDER,
  nextChallenge,
  PASSPORT_SCENE,
  renderJourneyVideo,
} from '../test/e2e/applicant-driver.js';
import { createBenchTenant, machine, ROOT, startServer } from './harness.js';
import { type Figure, load1, recordResult, series } from './results.js';

const JOURNEYS = Number(process.env.BENCH_JOURNEYS ?? 8);
/** link openings timed to the first interactive screen, besides those of the journeys */
const OPENINGS = Number(process.env.BENCH_OPENINGS ?? 10);
/** DevTools' "Fast 3G": 562.5 ms latency, 1.44 Mbit/s down, 675 kbit/s up */
const FAST_3G = {
  offline: false,
  latency: 562.5,
  downloadThroughput: (1.6 * 1_000_000 * 0.9) / 8,
  uploadThroughput: (750 * 1_000 * 0.9) / 8,
};
const CPU_SLOWDOWN = 4;

type Json = Record<string, unknown>;

async function api(url: string, key: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const out = (await r.json()) as Json;
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}

/** The gzip size of the page's JavaScript, as served. */
async function scriptGzipBytes(url: string): Promise<number> {
  const html = await (await fetch(`${url}/applicant/`)).text();
  let bytes = 0;
  for (const m of html.matchAll(/src="([^"]+\.js)"/g)) {
    bytes += gzipSync(Buffer.from(await (await fetch(url + (m[1] as string))).arrayBuffer())).length;
  }
  return bytes;
}

async function slowPhone(browser: Browser): Promise<Page> {
  const ctx = await browser.newContext({ viewport: PHONE, locale: 'en-GB' });
  const page = await ctx.newPage();
  page.setDefaultTimeout(120_000);
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', FAST_3G);
  return page;
}

interface Timing {
  interactive_ms: number;
  submit_ms: number;
  status: string;
}

/** A fresh flow's link, opened on a slow phone: the time to its first interactive screen (consent's button). */
async function openLink(
  browser: Browser,
  url: string,
  key: string,
): Promise<{ page: Page; flowId: string; ms: number }> {
  const flow = await api(url, key, 'POST', '/v1/flows', {
    template_slug: 'journey',
    applicant: { legal_name_first: HOLDER.legal_name_first, legal_name_last: HOLDER.legal_name_last },
  });
  const link = await api(url, key, 'POST', `/v1/flows/${flow.id as string}/verification_links`, {});
  const page = await slowPhone(browser);
  const opened = performance.now();
  if (process.env.BENCH_TRACE) {
    page.on('requestfinished', (r) => {
      const t = r.timing();
      process.stdout.write(
        `  ${Math.round(t.startTime - opened - performance.timeOrigin)}..+${Math.round(t.responseEnd)} ms ${r.method()} ${r.url().slice(0, 90)}\n`,
      );
    });
  }
  await page.goto(link.url as string);
  await page.locator('[data-action="accept"]:enabled').waitFor();
  return { page, flowId: flow.id as string, ms: performance.now() - opened };
}

/** One applicant: link → consent (timed to interactive) → intake → passport → challenge → submit (timed). */
async function journey(browser: Browser, url: string, key: string): Promise<Timing> {
  const { page, flowId, ms } = await openLink(browser, url, key);
  try {
    await page.getByLabel(/biometric data/).check();
    await page.locator('[data-action="accept"]').click();
    await page.locator('input[name="dob"]').fill(HOLDER.dob);
    await page.locator('[data-action="next"]').click();
    const challenge = nextChallenge(page);
    await captureScene(page, PASSPORT_SCENE, 'document');
    await captureChallenge(page, await challenge);
    await page.locator('[data-action="submit"]').waitFor();
    const submitted = performance.now();
    await page.locator('[data-action="submit"]').click();
    await page.locator('[data-step="done"] [data-status="done"]').waitFor({ timeout: 300_000 });
    const submitMs = performance.now() - submitted;
    const f = await api(url, key, 'GET', `/v1/flows/${flowId}`);
    return { interactive_ms: ms, submit_ms: submitMs, status: f.status as string };
  } finally {
    await page.context().close();
  }
}

const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

/** The submit → result figures of `runs` (the first, after the server's start, apart) into `figures`; returns the
 * outcomes as a note. */
function submitFigures(runs: Timing[], figures: Record<string, Figure>): string {
  const [first, ...rest] = runs as [Timing, ...Timing[]];
  const submit = rest.map((r) => r.submit_ms);
  const outcomes = [...new Set(runs.map((r) => r.status))].map(
    (st) => `${runs.filter((r) => r.status === st).length} × ${st}`,
  );
  process.stdout.write(
    `submit → result (${submit.length} journeys): p50 ${Math.round(pct(submit, 50))} ms, p99 ${Math.round(pct(submit, 99))} ms; first after start ${Math.round(first.submit_ms)} ms\n` +
      `outcomes: ${outcomes.join('; ')}\n`,
  );
  if (submit.length) {
    figures.submit_p50_ms = {
      label: `submit → result screen, passport + selfie challenge, p50 (${submit.length} journeys)`,
      unit: 'ms',
      value: Math.round(pct(submit, 50)),
    };
    figures.submit_p99_ms = { label: 'the same, p99', unit: 'ms', value: Math.round(pct(submit, 99)) };
  }
  figures.submit_first_ms = {
    label: 'the same, the first journey after the server started (models loading)',
    unit: 'ms',
    value: Math.round(first.submit_ms),
  };
  return `outcomes: ${outcomes.join('; ')}`;
}

async function main() {
  const loadBefore = load1();
  const dir = await mkdtemp(join(tmpdir(), 'vs-bench-journey-'));
  const video = join(dir, 'camera.y4m');
  await renderJourneyVideo(video);
  const server = await startServer({
    ingest: [{ format: 'ofac_sdn_csv', source: join(ROOT, 'ingest', 'fixtures', 'demo') }],
  });
  const browser = await launchBrowser({ video });
  try {
    const key = await createBenchTenant(server);
    await api(server.url, key, 'POST', '/v1/flow_templates', {
      slug: 'journey',
      name: 'Passport and selfie, collected by the hosted page',
      required_checks: ['aml_screen', 'document', 'selfie'],
      allowed_document_types: ['passport'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
      intake_fields: ['dob'],
    });
    const js = await scriptGzipBytes(server.url);
    const openings: number[] = [];
    for (let i = 0; i < OPENINGS; i++) {
      const o = await openLink(browser, server.url, key);
      await o.page.context().close();
      openings.push(o.ms);
    }
    process.stdout.write(`openings: ${openings.map((m) => Math.round(m)).join(', ')} ms\n`);
    const runs: Timing[] = [];
    // one more than measured: the first flow also loads the OCR and face models on the identity thread
    for (let i = 0; JOURNEYS > 0 && i <= JOURNEYS; i++) {
      const r = await journey(browser, server.url, key);
      runs.push(r);
      process.stdout.write(
        `${i === 0 ? 'first' : `#${i}`}: interactive ${Math.round(r.interactive_ms)} ms, submit → result ${Math.round(r.submit_ms)} ms → ${r.status}\n`,
      );
    }
    const interactive = [...openings, ...runs.map((r) => r.interactive_ms)];
    const conditions = `${CPU_SLOWDOWN}× CPU, Fast 3G, 360 × 740`;
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()}, load ${loadBefore} → ${load1()}\n` +
        `${conditions}; page JavaScript ${(js / 1000).toFixed(1)} kB gzip\n` +
        `link → first interactive screen (${interactive.length}): p50 ${Math.round(pct(interactive, 50))} ms, max ${Math.round(Math.max(...interactive))} ms\n`,
    );
    const figures: Record<string, Figure> = {
      page_js_gzip_kb: {
        label: "the applicant page's JavaScript, gzip",
        unit: 'kB',
        value: Math.round(js / 100) / 10,
      },
      interactive_ms: series(`link → first interactive screen (${conditions})`, 'ms', interactive),
    };
    const notes = runs.length ? submitFigures(runs, figures) : 'no journey run (BENCH_JOURNEYS=0)';
    recordResult('journey', figures, { loadBefore, notes });
  } finally {
    await browser.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
