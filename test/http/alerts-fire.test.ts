import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/private-services.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { Receiver } from '../helpers/webhook-receiver.js';

// Issue 32 item 9: three shipped alerts could never fire on the first event. `increase()` needs a sample before the
// event, and a labelled counter (or histogram) was born at 1 by the event itself, so increase() saw nothing:
// VeriscreenDatasetBuildFailed stayed silent after a real failed build; VeriscreenWebhookGaveUp and
// VeriscreenBatchRecordErrors the same. Every labelled series an alert rule watches now exists at 0 from start, and a
// real Prometheus (Debian's package, extracted as .ci/run does) loads deploy/prometheus/alerts.yml, scrapes a test
// server, sees each event happen once and fires each alert.

const ALERTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml');

/** prometheus from PROMETHEUS, Debian's package extracted under .tmp/promtool (.ci/run), or PATH's usual place. */
function findPrometheus(): string | undefined {
  const candidates = [
    process.env.PROMETHEUS,
    join(REPO_ROOT, '.tmp', 'promtool', 'usr', 'bin', 'prometheus'),
    '/usr/bin/prometheus',
  ];
  return candidates.find((c): c is string => !!c && existsSync(c));
}
const prometheusBin = findPrometheus();

/** Each `name{label="value"}` (and each alternative of `label=~"a|b"`) that a rule's expression selects. */
function watchedSeries(rules: string): { name: string; label: string; value: string }[] {
  const out: { name: string; label: string; value: string }[] = [];
  for (const m of rules.matchAll(/\b([a-z_:][a-z0-9_:]*)\{([^}]*)\}/g)) {
    const [, name, matchers] = m;
    if (!name || name === 'up' || !matchers) continue;
    for (const x of matchers.matchAll(/([a-z_]+)\s*(=~|=)\s*"([^"]*)"/g)) {
      const [, label, op, value] = x;
      if (!label || value === undefined || label === 'job') continue;
      // a pattern (e.g. status=~"5..") selects series that exist once they happen; alternatives are values
      if (op === '=~' && !/^[a-z_|]+$/.test(value)) continue;
      for (const v of value.split('|')) out.push({ name, label, value: v });
    }
  }
  return out;
}

const UNSTORABLE = 'Unstorable Record';
let t: TestApp;
let acme: Tenant;
const failing = new Receiver();

beforeAll(async () => {
  failing.statuses = [500];
  await failing.start();
  t = await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE_S: '0.1,0.1', WEBHOOK_TIMEOUT_MS: '2000' } });
  acme = await createTenant(t, { name: 'Acme' });
  // a batch record error: a permanent failure to store one record's check (integrity violation), injected in this
  // test's own database; no request can make a record unstorable since applicant ids are validated at the edge
  await t.app.sql.unsafe(`
    create function fault_injection() returns trigger language plpgsql as $$
    begin
      if new.applicant_name = '${UNSTORABLE}' then
        raise exception 'injected: violates check constraint' using errcode = '23514';
      end if;
      return new;
    end $$;
    create trigger fault_injection before insert on checks for each row execute function fault_injection();`);
});
afterAll(async () => {
  await t?.close();
  await failing.stop();
});

describe('alert rules watch series that exist from the start', () => {
  it('every labelled series an alert rule selects is exposed at 0 by a process that has done nothing', async () => {
    const rules = await readFile(ALERTS, 'utf8');
    const watched = watchedSeries(rules);
    expect(watched.map((w) => `${w.name}{${w.label}="${w.value}"}`)).toEqual(
      expect.arrayContaining([
        'dataset_build_duration_seconds_count{status="failed"}',
        'webhook_deliveries_total{outcome="gave_up"}',
        'batch_records_total{outcome="error"}',
      ]),
    );
    const fresh = await startTestApp({ sources: null });
    try {
      const text = (await call<string>(fresh.url, 'GET', '/metrics')).body;
      for (const w of watched) {
        const series = text
          .split('\n')
          .filter((l) => l.startsWith(`${w.name}{`) && l.includes(`${w.label}="${w.value}"`));
        expect(
          series,
          `${w.name}{${w.label}="${w.value}"} is not exposed before its first event`,
        ).not.toEqual([]);
        for (const s of series) expect(s.endsWith(' 0'), s).toBe(true);
      }
    } finally {
      await fresh.close();
    }
  });
});

const SKIPPED = prometheusBin
  ? ''
  : " (skipped: no prometheus binary; set PROMETHEUS, or let .ci/run extract Debian's package into .tmp/promtool)";
if (SKIPPED) console.warn(`alerts-fire.test.ts: the real-Prometheus test is${SKIPPED.slice(1, -1)}`);

describe.skipIf(!prometheusBin)(`the shipped alerts in a real Prometheus${SKIPPED}`, () => {
  let prom: ChildProcess | undefined;
  let dir = '';
  let promUrl = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vs-prometheus-'));
    const target = new URL(t.url).host;
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: ['${ALERTS}']`,
        'scrape_configs:',
        `  - { job_name: veriscreen, static_configs: [{ targets: ['${target}'] }] }`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      prometheusBin as string,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
  });
  afterAll(async () => {
    prom?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  const query = async (q: string) => {
    const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => undefined);
    if (!r?.ok) return [];
    const body = (await r.json()) as { data: { result: { value: [number, string] }[] } };
    return body.data.result;
  };
  const alerts = async () => {
    const r = await fetch(`${promUrl}/api/v1/alerts`).catch(() => undefined);
    if (!r?.ok) return [];
    return ((await r.json()) as { data: { alerts: { labels: { alertname: string }; state: string }[] } }).data
      .alerts;
  };
  const WATCHED = ['VeriscreenDatasetBuildFailed', 'VeriscreenWebhookGaveUp', 'VeriscreenBatchRecordErrors'];

  it('a failed build, a webhook given up and a batch record error, once each, fire their alerts', {
    timeout: 180_000,
  }, async () => {
    // Prometheus has the "before" samples: the series at 0
    await waitFor(
      'Prometheus to scrape the watched series at 0',
      async () => {
        const got = await query(
          'count(dataset_build_duration_seconds_count{status="failed"} == 0) + ' +
            'count(webhook_deliveries_total{outcome="gave_up"} == 0) + count(batch_records_total{outcome="error"} == 0)',
        );
        return got[0]?.value[1] === '3' ? true : undefined;
      },
      60_000,
      250,
    );
    expect((await alerts()).filter((a) => WATCHED.includes(a.labels.alertname))).toEqual([]);

    // 1. a dataset build that fails (a missing source: permanent)
    const v = await call(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: { sources: [{ format: 'ofac_sdn_csv', uri: 'file:///nonexistent/veriscreen/list' }] },
    });
    expect(v.status).toBe(201);
    // 2. a webhook delivery that fails its whole (short) schedule
    const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: acme.secret_key,
      body: { url: failing.url, events: ['flow.completed'] },
    });
    expect(ep.status).toBe(201);
    const flow = await call(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.status).toBe(201);
    // 3. a batch whose one record cannot be stored
    const batch = await call(t.url, 'POST', '/v1/check_batches', {
      token: acme.secret_key,
      body: { records: [{ subjects: [{ name: UNSTORABLE, type: 'person' }] }] },
    });
    expect(batch.status).toBe(202);

    const firing = await waitFor(
      'the three alerts to fire',
      async () => {
        const names = (await alerts()).filter((a) => a.state === 'firing').map((a) => a.labels.alertname);
        return WATCHED.every((w) => names.includes(w)) ? names : undefined;
      },
      90_000,
      500,
    );
    expect(firing).toEqual(expect.arrayContaining(WATCHED));
  });
});
