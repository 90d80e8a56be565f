// npm run bench:promotion — two API processes and one worker process share Postgres, NATS and one S3 server;
// autocannon drives sync screening flows through both API processes while the 2021 and 2024 OFAC SDN versions are
// promoted back and forth. Baseline: the same load with no promotions, measured in the same run.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import { startLocalS3 } from '../server/storage/local-s3.js';
import {
  type LoadResult,
  load,
  machine,
  requireSharedData,
  type ServeProcess,
  SHARED_DATA,
  spawnServe,
  table,
} from './harness.js';
import { load1, recordResult } from './results.js';

const SWAPS = Number(process.env.BENCH_SWAPS ?? 20);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const r = await fetch(url, init);
  if (!r.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

async function served(url: string): Promise<string | undefined> {
  const r = await fetch(`${url}/readyz`);
  return ((await r.json()) as { dataset_version?: string }).dataset_version;
}

async function rssBytes(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  return m?.[1] ? Number(m[1]) : Number.NaN;
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

/** Waits until the dataset version's build is ready (throws when it failed). */
async function built(api: string, admin: Record<string, string>, id: string): Promise<void> {
  for (;;) {
    const s = await json<{ status: string; error: string | null }>(`${api}/admin/dataset_versions/${id}`, {
      headers: admin,
    });
    if (s.status === 'ready') return;
    if (s.status === 'failed') throw new Error(`build failed: ${s.error}`);
    await sleep(200);
  }
}

/** Prints the run's figures and records them in bench/results/. */
function report(r: {
  steady: LoadResult[];
  during: LoadResult[];
  cold_ms: number;
  propagation_ms: number[];
  rssAfterFirst: number[];
  rssAfterAll: number[];
  /** checks with a missing or mixed dataset version (a count as Postgres returns it) */
  badChecks: string | undefined;
  byVersion: { v: string; n: string }[];
  loadBefore: ReturnType<typeof load1>;
}): void {
  const {
    steady,
    during,
    cold_ms,
    propagation_ms,
    rssAfterFirst,
    rssAfterAll,
    badChecks,
    byVersion,
    loadBefore,
  } = r;
  const sum = (rs: LoadResult[], k: 'requests' | 'non2xx' | 'errors') => rs.reduce((s, r) => s + r[k], 0);
  const p99 = (rs: LoadResult[]) => Math.max(...rs.map((r) => r.p99_ms));
  process.stdout.write(`\n${new Date().toISOString()} — ${machine()}\n`);
  process.stdout.write(`${table([...steady, ...during])}\n\n`);
  process.stdout.write(
    [
      `promotions: ${SWAPS}; requests during swaps: ${sum(during, 'requests')}, non-2xx: ${sum(during, 'non2xx')}, errors: ${sum(during, 'errors')}`,
      `steady: requests ${sum(steady, 'requests')}, non-2xx ${sum(steady, 'non2xx')}`,
      `p99 steady ${p99(steady)} ms, p99 during swaps ${p99(during)} ms, ratio ${(p99(during) / p99(steady)).toFixed(2)}`,
      `cold load (artifact download + deserialise + threads), promote returned → both API processes: ${cold_ms.toFixed(0)} ms`,
      `promote returned → every API process on the new version: p50 ${pct(propagation_ms, 50).toFixed(0)} ms, max ${Math.max(...propagation_ms).toFixed(0)} ms`,
      `RSS after first swap ${rssAfterFirst.map((r) => (r / 2 ** 20).toFixed(0)).join(' / ')} MiB, after ${SWAPS} swaps ${rssAfterAll
        .map((r) => (r / 2 ** 20).toFixed(0))
        .join(
          ' / ',
        )} MiB (ratio ${rssAfterAll.map((r, i) => (r / (rssAfterFirst[i] ?? r)).toFixed(2)).join(' / ')})`,
      `checks with a missing or mixed dataset version: ${badChecks}; checks by version: ${byVersion.map((r) => `${r.v.slice(0, 8)}… ${r.n}`).join(', ')}`,
    ].join('\n') + '\n',
  );
  recordResult(
    'promotion',
    {
      non_2xx: {
        label: `non-2xx answers during ${SWAPS} promotions (of ${sum(during, 'requests').toLocaleString('en')} requests)`,
        unit: '',
        value: sum(during, 'non2xx') + sum(during, 'errors'),
      },
      p99_ratio: {
        label: 'p99 during swaps ÷ steady p99',
        unit: '',
        value: Number((p99(during) / p99(steady)).toFixed(2)),
      },
      mixed_version_checks: {
        label: 'checks with a missing or mixed dataset version',
        unit: '',
        value: Number(badChecks),
      },
      propagation_max_ms: {
        label: 'promote returned → every API process on the new version, max',
        unit: 'ms',
        value: Math.round(Math.max(...propagation_ms)),
      },
    },
    { loadBefore },
  );
}

async function main() {
  requireSharedData();
  const id = randomBytes(4).toString('hex');
  const db = `vs_bench_promo_${id}`;
  const ns = `vsbench${id}`;
  const adminToken = `bench-admin-${id}-xxxxxxxx`;
  const s3Dir = join(tmpdir(), `vs-bench-s3-${id}`);
  const s3 = await startLocalS3({ directory: s3Dir });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
    NATS_NAMESPACE: ns,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    ADMIN_TOKEN: adminToken,
    PORT: '0',
    LOG_LEVEL: 'warn',
    MATCHER_THREADS: '1',
  };
  const procs: ServeProcess[] = [];
  try {
    const worker = await spawnServe({ ...env, ROLE: 'worker' });
    procs.push(worker);
    const api = [await spawnServe({ ...env, ROLE: 'api' }), await spawnServe({ ...env, ROLE: 'api' })];
    procs.push(...api);
    const [a, b] = api.map((p) => p.url) as [string, string];
    const admin = { 'x-admin-token': adminToken, 'content-type': 'application/json' };

    const create = (name: string, dir: string) =>
      json<{ id: string }>(`${a}/admin/dataset_versions`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          name,
          sources: [{ format: 'ofac_sdn_csv', uri: pathToFileURL(join(SHARED_DATA, dir)).toString() }],
        }),
      });
    const v2021 = await create('OFAC SDN 2021-07', 'ofac_sdn_2021');
    const v2024 = await create('OFAC SDN 2024-07', 'ofac_sdn');
    for (const v of [v2021, v2024]) await built(a, admin, v.id);
    const promote = async (vid: string): Promise<number> => {
      const t0 = performance.now();
      await json(`${a}/admin/dataset_versions/${vid}/promote`, { method: 'POST', headers: admin });
      const tReturned = performance.now();
      while ((await served(a)) !== vid || (await served(b)) !== vid) await sleep(10);
      void t0;
      return performance.now() - tReturned;
    };
    await promote(v2024.id);
    const tenant = await json<{ secret_key: string }>(`${a}/admin/tenants`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'bench' }),
    });
    const names = [
      'Vladimir Putin',
      'Maria Gonzalez',
      'Ali Hassan',
      'John Smith',
      'Igor Sechin',
      'Wei Zhang',
    ];
    const bodies = names.map((n) => JSON.stringify({ mode: 'sync', applicant: { legal_name_last: n } }));
    const headers = { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' };
    const drive = (label: string, seconds: number): Promise<LoadResult[]> =>
      Promise.all(
        [a, b].map((u, i) =>
          load(`${label} api${i + 1}`, {
            url: `${u}/v1/flows`,
            method: 'POST',
            headers,
            bodies,
            seconds,
            connections: CONNECTIONS,
          }),
        ),
      );

    await drive('warmup', 2);
    const loadBefore = load1();
    const steady = await drive('steady', STEADY_SECONDS);
    // the first promotion of 2021 is a cold load (artifact from S3, new threads); later swaps between the two
    // versions hit the warm previous generation
    const cold_ms = await promote(v2021.id);
    const rssAfterFirst = [await rssBytes(a), await rssBytes(b)];

    // promotions under load: the load runs as long as the swaps take
    const propagation_ms: number[] = [];
    let swapping = true;
    const swaps = (async () => {
      try {
        for (let i = 0; i < SWAPS; i++) {
          propagation_ms.push(await promote(i % 2 === 0 ? v2024.id : v2021.id));
          await sleep(250);
        }
      } finally {
        swapping = false;
      }
    })();
    const duringRuns: LoadResult[][] = [];
    while (swapping) duringRuns.push(await drive('swaps', 3));
    await swaps;
    const rssAfterAll = [await rssBytes(a), await rssBytes(b)];

    const sql = postgres(env.DATABASE_URL as string, { max: 1, onnotice: () => {} });
    const [bad] = await sql<{ n: string }[]>`
      select count(*) as n from checks where cardinality(dataset_versions) <> 1
        or dataset_versions[1] not in (${v2021.id}, ${v2024.id})`;
    const byVersion = await sql<{ v: string; n: string }[]>`
      select dataset_versions[1] as v, count(*) as n from checks group by 1`;
    await sql.end();

    report({
      steady,
      during: duringRuns.flat(),
      cold_ms,
      propagation_ms,
      rssAfterFirst,
      rssAfterAll,
      badChecks: bad?.n,
      byVersion,
      loadBefore,
    });
  } finally {
    for (const p of procs.reverse()) await p.stop().catch(() => {});
    await s3.close().catch(() => {});
    await rm(s3Dir, { recursive: true, force: true });
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(`${ns}_jobs`).catch(() => {});
    await new Kvm(nc)
      .open(`${ns}_state`)
      .then((kv) => kv.destroy())
      .catch(() => {});
    await nc.close();
    const adminSql = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
    await adminSql.unsafe(`drop database if exists "${db}" with (force)`);
    await adminSql.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
