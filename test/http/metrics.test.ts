import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const ALERTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml');
const DASHBOARD = join(REPO_ROOT, 'deploy', 'grafana', 'veriscreen-dashboard.json');

/** promtool from PROMTOOL, PATH or Debian's prometheus package (.ci/run extracts it); the checks that need it are
 * skipped without it. */
function findPromtool(): string | undefined {
  const candidates = [
    process.env.PROMTOOL,
    join(REPO_ROOT, '.tmp', 'promtool', 'usr', 'bin', 'promtool'),
    '/usr/bin/promtool',
  ];
  return candidates.find((c): c is string => !!c && existsSync(c));
}
const promtool = findPromtool();

/** Sample values of one metric family, keyed by its label set as written. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

/** Metric families exposed (with the _bucket/_sum/_count series of histograms and summaries). */
function families(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (!m?.[1]) continue;
    names.add(m[1]);
    if (m[2] === 'histogram' || m[2] === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(m[1] + suffix);
    }
  }
  return names;
}

/** Our metric names in a PromQL text (prefixes of the families we expose; `up` is Prometheus's own). */
const OUR_METRIC = /\b(?:http|matcher|dataset|jobs|outbox|webhook|batch|nodejs|process)_[a-z0-9_]+\b/g;

describe('metrics for background work', () => {
  let t: TestApp;
  let tenant: Tenant;
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '');
      res.writeHead(200).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  const scrape = async () => {
    const r = await call<string>(t.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    return r.body;
  };

  it('exposes job queues, outbox lag, webhook deliveries, batch records and event-loop delay', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url, events: ['flow.completed'] },
    });
    expect(ep.status).toBe(201);
    const flow = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.status).toBe(201);
    const batch = await call<{ id: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: {
        records: [
          { subjects: [{ name: 'Marigold Fennimore', type: 'person' }] },
          { subjects: [{ name: 'Ivan Demovsky', type: 'person' }] },
        ],
      },
    });
    expect(batch.status).toBe(202);
    await waitFor('the webhook', () => (received.length > 0 ? true : undefined), 20_000);

    const text = await waitFor(
      'counters to show the work',
      async () => {
        const s = await scrape();
        const screened = samples(s, 'batch_records_total').get('{outcome="screened"}') ?? 0;
        const delivered = samples(s, 'webhook_deliveries_total').get('{outcome="succeeded"}') ?? 0;
        return screened === 2 && delivered === 1 ? s : undefined;
      },
      20_000,
    );
    // every job kind's two consumers, with numbers
    const pending = samples(text, 'jobs_pending');
    const ackPending = samples(text, 'jobs_ack_pending');
    for (const kind of ['webhook_delivery', 'batch_chunk', 'flow_process']) {
      for (const lane of ['first', 'retry']) {
        expect(pending.get(`{kind="${kind}",lane="${lane}"}`), `${kind}/${lane}`).toBeTypeOf('number');
        expect(ackPending.get(`{kind="${kind}",lane="${lane}"}`), `${kind}/${lane}`).toBeTypeOf('number');
      }
    }
    expect(samples(text, 'outbox_lag_seconds').get('')).toBeGreaterThanOrEqual(0);
    expect(samples(text, 'outbox_pending_events').get('')).toBeGreaterThanOrEqual(0);
    // event-loop delay from perf_hooks.monitorEventLoopDelay (prom-client's collector)
    expect(samples(text, 'nodejs_eventloop_lag_p99_seconds').get('')).toBeGreaterThan(0);
    // gauges named like counters are gone (promtool: non-counter metrics should not have "_total" suffix)
    expect(text).not.toMatch(/^# TYPE \S+_total gauge$/m);
    expect(text).toMatch(/^# TYPE nodejs_active_handles gauge$/m);

    if (promtool) {
      const file = join(tmpdir(), `vs-metrics-${process.pid}.txt`);
      await writeFile(file, text);
      // exits non-zero on any lint problem; stdin is the exposition text
      const r = await run('sh', ['-c', `"${promtool}" check metrics < "${file}"`]);
      expect(r.stdout + r.stderr).toBe('');
    }
  });

  it('ships alert rules and a Grafana dashboard that use only metrics /metrics exposes', async () => {
    const text = await scrape();
    const exposed = families(text);
    const alerts = await readFile(ALERTS, 'utf8');
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      title: string;
      uid: string;
      panels: { title: string; type: string; targets: { expr: string; refId: string }[] }[];
    };
    expect(dashboard).toMatchObject({ title: 'Veriscreen', uid: expect.any(String) });
    expect(dashboard.panels.length).toBeGreaterThan(5);
    const exprs = dashboard.panels.flatMap((p) => {
      expect(p.targets.length, p.title).toBeGreaterThan(0);
      return p.targets.map((x) => x.expr);
    });
    const named = new Set(
      [...alerts.matchAll(OUR_METRIC), ...exprs.join('\n').matchAll(OUR_METRIC)].map((m) => m[0]),
    );
    for (const name of [
      'jobs_pending',
      'jobs_ack_pending',
      'outbox_lag_seconds',
      'webhook_deliveries_total',
      'batch_records_total',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(named, name).toContain(name);
    }
    for (const name of named) expect(exposed, `${name} is not exposed by /metrics`).toContain(name);

    if (promtool) {
      const r = await run(promtool, ['check', 'rules', ALERTS]);
      expect(r.stdout).toMatch(/SUCCESS: \d+ rules found/);
    }
  });
});
