// README's "Verify an applicant" commands, run as written (curl through sh) against the real service: the walk-through's
// tenant, then the template, the waiting flow and the link; the link then opens an applicant session whose steps are
// the ones the README describes. Only the address changes (localhost:8080 → the test app's) and the placeholder lines
// (`KEY=<…>`, `FLOW=<…>`) are filled from the answer before them, as a reader would.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookiePair, openInBrowser } from '../helpers/journey.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The first ```sh block after `heading`. */
function shBlock(heading: string): string {
  const from = readme.indexOf(`\n${heading}\n`);
  expect(from, heading).toBeGreaterThan(0);
  const open = readme.indexOf('```sh\n', from);
  return readme.slice(open + 6, readme.indexOf('\n```', open));
}

/** The block cut at its placeholder lines (`NAME=<what to put there>`): the commands before each, and its name. */
function segments(block: string): { commands: string; fills: string | null }[] {
  const out: { commands: string; fills: string | null }[] = [];
  let lines: string[] = [];
  for (const line of block.split('\n')) {
    const placeholder = /^([A-Z]+)=<[^>]*>$/.exec(line);
    if (!placeholder) {
      lines.push(line);
      continue;
    }
    out.push({ commands: lines.join('\n'), fills: placeholder[1] as string });
    lines = [];
  }
  out.push({ commands: lines.join('\n'), fills: null });
  return out;
}

type Json = Record<string, unknown>;

let t: TestApp;
let host: string;

/** Runs README commands with sh, each curl's answer on a line of its own, against the test app. */
async function sh(commands: string, env: Record<string, string>): Promise<Json[]> {
  const script = commands.replaceAll('localhost:8080', host).replaceAll('curl -s ', `curl -s -w '\\n' `);
  const { stdout } = await run('sh', ['-ec', script], { env: { ...process.env, ...env } });
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Json);
}

beforeAll(async () => {
  t = await startTestApp();
  host = new URL(t.url).host;
});
afterAll(async () => {
  await t?.close();
});

describe('README: Verify an applicant', () => {
  it('two curls and a link: a flow that waits for its applicant, and a link that opens its journey', async () => {
    const env: Record<string, string> = { ADMIN: t.adminToken };
    // the walk-through's tenant (its allowed origin is the redirect's)
    const [admin, tenantCommands] = segments(shBlock('## Walk-through'));
    expect([admin?.fills, tenantCommands?.fills]).toEqual(['ADMIN', 'KEY']);
    const [tenant] = await sh(tenantCommands?.commands ?? '', env);
    expect(tenant?.secret_key, JSON.stringify(tenant)).toEqual(expect.any(String));
    env.KEY = tenant?.secret_key as string;

    const [before, after] = segments(shBlock('## Verify an applicant'));
    expect(before?.fills).toBe('FLOW');
    const [template, flow] = await sh(before?.commands ?? '', env);
    expect(template, JSON.stringify(template)).toMatchObject({ slug: 'kyc-hosted' });
    expect(flow, JSON.stringify(flow)).toMatchObject({ status: 'AWAITING_INPUT' });
    expect(flow?.missing_inputs).toEqual(['consent', 'dob', 'document', 'selfie']);
    env.FLOW = flow?.id as string;

    const [link] = await sh(after?.commands ?? '', env);
    expect(link, JSON.stringify(link)).toMatchObject({
      flow_id: env.FLOW,
      status: 'active',
      redirect_url: 'https://app.acme.test/kyc/done',
    });
    // 24 h by default
    const hours = (Date.parse(link?.expires_at as string) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    // the applicant opens it: the hosted page with a session on this flow, asking what the README says
    const opened = await openInBrowser(link?.url as string);
    expect(opened.status).toBe(200);
    expect(opened.page?.text).toContain('<main id="app"');
    const view = await call<{ steps: { name: string; fields?: { name: string }[] }[]; redirect_url: string }>(
      t.url,
      'GET',
      '/v1/applicant_session',
      { headers: { cookie: cookiePair(opened.setCookie) } },
    );
    expect(view.status).toBe(200);
    expect(view.body.steps.map((s) => s.name)).toEqual(['consent', 'intake', 'document', 'selfie', 'review']);
    expect(view.body.steps[1]?.fields?.map((f) => f.name)).toEqual(['dob']);
    // the link is one-time
    expect((await openInBrowser(link?.url as string)).location).toMatch(/\/applicant\/\?link=used$/);
  });
});
