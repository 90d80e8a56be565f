// npm run bench:floor — what a sync flow costs the design card's own path, against what it costs the api, in one run.
// The floor is bench/floor-server.ts: uWebSockets.js, a JSON body parsed, one Piscina task on two threads that returns
// at once, one durable row a flow through a group-commit writer (postgres.js, one statement in flight) and a JSON
// answer — no auth, validation, matching, policy, alerts, events or audit. The same bodies, the same load generators
// (closed loop at BENCH_CONNECTIONS, then the open loop at one rate for both: BENCH_OPEN_RATE, default half the api's
// closed-loop rate) and the same CPU accounting (the server processes from /proc, the Postgres backends of each one's
// database from /proc/<pid>/stat, as bench/cost.ts reads them, the load generator's own process) for both. What the floor costs no
// application change can remove on this machine; what the api costs above it is the application's.
//
// BENCH_SECONDS (10) a run, BENCH_WARMUP_SECONDS (20) of closed-loop flows first, BENCH_CONNECTIONS (32)

import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { cpuSeconds } from './cost.js';
import {
  type BenchServer,
  createBenchTenant,
  flowBenchSettings,
  flowBodies,
  type LoadResult,
  load,
  loadAllLists,
  machine,
  openLoad,
  ROOT,
  requireSharedData,
  type ServeProcess,
  spawnServe,
  startServer,
} from './harness.js';
import { recordResult } from './results.js';

const knobs = flowBenchSettings();
const PG = 'postgres://postgres@127.0.0.1:5432';

interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
  pids: number[];
  db: string;
}

interface Measured {
  result: LoadResult;
  /** CPU ms a flow */
  main: number;
  process: number;
  postgres: number;
  generator: number;
}

/** One load run against a target, with the CPU each part spent on it. */
async function measured(t: Target, run: () => Promise<LoadResult>, admin: postgres.Sql): Promise<Measured> {
  const backends = async () =>
    (await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${t.db}`).map(
      (r) => r.pid,
    );
  const pidsBefore = await backends();
  // a server process gone mid-run ends the bench anyway: 0
  const cpu = (path: string) => cpuSeconds(path) ?? 0;
  const snap = (pgPids: number[]) => ({
    main: t.pids.reduce((s, p) => s + cpu(`/proc/${p}/task/${p}/stat`), 0),
    process: t.pids.reduce((s, p) => s + cpu(`/proc/${p}/stat`), 0),
    // a backend gone by the second snapshot is left out of both (as bench/cost.ts does), never counted negative
    pg: new Map(
      pgPids.flatMap((p) => {
        const v = cpuSeconds(`/proc/${p}/stat`);
        return v === undefined ? [] : [[p, v] as const];
      }),
    ),
    gen: process.cpuUsage(),
  });
  const before = snap(pidsBefore);
  const result = await run();
  const pidsAfter = await backends();
  const after = snap([...new Set([...pidsBefore, ...pidsAfter])]);
  const ok = Math.max(1, result.requests - result.non2xx - result.errors);
  const per = (s: number) => (s * 1000) / ok;
  // a backend that started during the run counts from 0 (its whole life is in the run)
  const pg = [...after.pg].reduce((s, [pid, v]) => s + v - (before.pg.get(pid) ?? 0), 0);
  const gen = process.cpuUsage(before.gen);
  return {
    result,
    main: per(after.main - before.main),
    process: per(after.process - before.process),
    postgres: per(pg),
    generator: per((gen.user + gen.system) / 1e6),
  };
}

/** Warm-up, closed loop, then the open loop at `openRate` (unset: half this target's closed-loop rate). */
async function phases(t: Target, bodies: string[], admin: postgres.Sql, openRate: number | undefined) {
  const opts = {
    url: t.url,
    method: 'POST' as const,
    headers: t.headers,
    bodies,
    connections: knobs.connections,
  };
  await load(`${t.label} warm-up`, { ...opts, seconds: knobs.warmupSeconds });
  const closed = await measured(
    t,
    () => load(`${t.label} closed`, { ...opts, seconds: knobs.seconds }),
    admin,
  );
  const rate = openRate ?? Math.max(1, Math.round(closed.result.rps / 2));
  const open = await measured(
    t,
    () => openLoad(`${t.label} open`, { ...opts, seconds: knobs.seconds, rate }),
    admin,
  );
  return { closed, open, rate };
}

async function main() {
  requireSharedData();
  const bodies = flowBodies();
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  const floorDb = `vs_floor_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`create database "${floorDb}"`);
  let server: BenchServer | undefined;
  let floor: ServeProcess | undefined;
  try {
    server = await startServer({ ingest: [], topology: 'split' });
    floor = await spawnServe({ ...process.env, DATABASE_URL: `${PG}/${floorDb}` }, [
      join(ROOT, 'dist', 'bench', 'floor-server.js'),
    ]);
    await loadAllLists(server);
    const key = await createBenchTenant(server);
    const loadBefore = loadavg()[0]?.toFixed(1);
    const appDb = new URL(server.env.DATABASE_URL as string).pathname.slice(1);
    const app = await phases(
      {
        label: 'api',
        url: `${server.url}/v1/flows`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        pids: server.procs.map((p) => p.pid),
        db: appDb,
      },
      bodies,
      admin,
      knobs.openRate,
    );
    const fl = await phases(
      {
        label: 'floor',
        url: `${floor.url}/v1/flows`,
        headers: { 'content-type': 'application/json' },
        pids: [floor.child.pid as number],
        db: floorDb,
      },
      bodies,
      admin,
      app.rate,
    );
    const f1 = (n: number) => n.toFixed(1);
    const f3 = (n: number) => n.toFixed(3);
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '—');
    const rows: [string, (m: Measured) => number, (n: number) => string][] = [
      ['flows/s', (m) => m.result.rps, (n) => String(Math.round(n))],
      ['p50 ms', (m) => m.result.p50_ms, f1],
      ['p99 ms', (m) => m.result.p99_ms, f1],
      ['non-2xx + errors', (m) => m.result.non2xx + m.result.errors, String],
      ['CPU ms a flow: server main threads', (m) => m.main, f3],
      ['CPU ms a flow: server processes (all threads)', (m) => m.process, f3],
      ['CPU ms a flow: Postgres backends', (m) => m.postgres, f3],
      ['CPU ms a flow: server + Postgres', (m) => m.process + m.postgres, f3],
      ['CPU ms a flow: load generator', (m) => m.generator, f3],
    ];
    const section = (name: string, a: Measured, f: Measured) =>
      rows.map(
        ([label, get, fmt]) =>
          `| ${name}: ${label} | ${fmt(get(a))} | ${fmt(get(f))} | ${ratio(get(a), get(f))} |`,
      );
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()} — api + worker against the floor server — load average ` +
        `${loadBefore} before, ${loadavg()[0]?.toFixed(1)} after\n\n` +
        `| ${knobs.seconds} s a run, ${knobs.connections} connections | api (all lists) | floor | api ÷ floor |\n|---|---|---|---|\n` +
        [
          ...section('closed loop', app.closed, fl.closed),
          ...section(`open loop ${app.rate}/s`, app.open, fl.open),
        ].join('\n') +
        '\n',
    );
    const cpu = (m: Measured) => Number((m.process + m.postgres).toFixed(3));
    recordResult(
      'floor',
      {
        floor_closed_flows_per_s: {
          label: `floor, closed loop, ${knobs.connections} connections`,
          unit: 'flows/s',
          value: fl.closed.result.rps,
        },
        floor_closed_cpu_ms_per_flow: {
          label: 'floor, closed loop, server + Postgres CPU a flow',
          unit: 'ms',
          value: cpu(fl.closed),
        },
        floor_open_p99_ms: {
          label: `floor, open loop at ${app.rate}/s, p99`,
          unit: 'ms',
          value: fl.open.result.p99_ms,
        },
        api_closed_flows_per_s: {
          label: 'api in the same run, closed loop',
          unit: 'flows/s',
          value: app.closed.result.rps,
        },
        api_closed_cpu_ms_per_flow: {
          label: 'api in the same run, closed loop, server + Postgres CPU a flow',
          unit: 'ms',
          value: cpu(app.closed),
        },
        api_open_p99_ms: {
          label: `api in the same run, open loop at ${app.rate}/s, p99`,
          unit: 'ms',
          value: app.open.result.p99_ms,
        },
      },
      { loadBefore: Number(loadBefore) },
    );
  } finally {
    await floor?.stop();
    await server?.stop();
    await admin.unsafe(`drop database if exists "${floorDb}" with (force)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
