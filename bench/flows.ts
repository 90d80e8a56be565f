// npm run bench:flows — sync checks-only flows with every real list loaded, against /livez in the same run, with
// the cost of each request (bench/cost.ts): CPU per process kind and thread, Postgres backends' CPU, WAL, rows and
// index entries written, event-loop delay, the api main thread's time waiting for a CPU, its garbage collections.
// Then an open-loop run at half the closed-loop rate: requests evenly spaced, latency from each one's due time
// (harness.ts openLoad; autocannon's overallRate sends each second's share in a burst at full concurrency).
//
// BENCH_SECONDS (10) per run, BENCH_CONNECTIONS (32), BENCH_TOPOLOGY: split (default) or all (one process, every role)
// BENCH_WARMUP_SECONDS (20): closed-loop flows before the first measured run, so that V8 has optimised the hot code
// (after 3 s its compiler threads still took 0.36–0.52 ms a flow, after 20 s 0.10–0.14: bench/history/2026-11-23-flows.md,
// "process level")
// BENCH_OPEN_RATE: the open loop's rate in flows/s (default half the closed loop's), so that two builds compared back
// to back are measured at the same rate; BENCH_PHASES: the runs to make, of livez,closed,open (default all three; the
// open loop needs closed or BENCH_OPEN_RATE)
// — split: ROLE=api + ROLE=worker processes, so the monitor scheduler, outbox relay and webhook delivery run in the
// worker and a sync flow's latency does not depend on them.
// BENCH_TRACE=1: the servers time each flow's stages, their GC pauses, statements, matcher tasks and GIN merges
// (server/flow-trace.ts), and each phase's slowest flows are broken down after the run (bench/flow-tail.ts); it
// keeps a record a flow in the api's memory, so leave it off for the figures of record.

import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CostProbe, costTable, type PhaseCost, serverPostgresMs } from './cost.js';
import { flowTailRows, readFlowTraces } from './flow-tail.js';
import {
  createBenchTenant,
  flowBenchSettings,
  flowBodies,
  type LoadResult,
  load,
  loadAllLists,
  machine,
  openLoad,
  requireSharedData,
  startServer,
  table,
} from './harness.js';
import { type Figure, recordResult } from './results.js';

const {
  seconds: SECONDS,
  warmupSeconds: WARMUP_SECONDS,
  connections: CONNECTIONS,
  openRate: OPEN_RATE,
} = flowBenchSettings();
const TOPOLOGY = process.env.BENCH_TOPOLOGY === 'all' ? 'all' : 'split';
const PHASES = new Set((process.env.BENCH_PHASES ?? 'livez,closed,open').split(','));
if (PHASES.has('open') && !PHASES.has('closed') && !OPEN_RATE)
  throw new Error('BENCH_PHASES without closed needs BENCH_OPEN_RATE');

const ok = (r: LoadResult) => r.requests - r.non2xx - r.errors;

type Run = { result: LoadResult; cost: PhaseCost };

/** The figures bench/RESULTS.md shows: the closed loop's rate and cost, the open loop's p99 and cost. */
function headline(runs: Run[], openRate: number | undefined): Record<string, Figure> {
  const find = (prefix: string) => runs.find((r) => r.result.name.startsWith(prefix));
  const closed = find('POST /v1/flows sync (all lists)');
  const open = find('POST /v1/flows sync, open loop');
  const livez = find('GET /livez');
  const f: Record<string, Figure> = {};
  if (closed) {
    f.closed_flows_per_s = {
      label: `closed loop, ${CONNECTIONS} connections`,
      unit: 'flows/s',
      value: closed.result.rps,
    };
    f.closed_p99_ms = { label: 'closed loop p99', unit: 'ms', value: closed.result.p99_ms };
    f.closed_cpu_ms_per_flow = {
      label: 'closed loop, server + Postgres CPU a flow',
      unit: 'ms',
      value: Number(serverPostgresMs(closed.cost).toFixed(3)),
    };
  }
  if (open) {
    f.open_p99_ms = { label: `open loop at ${openRate}/s, p99`, unit: 'ms', value: open.result.p99_ms };
    f.open_cpu_ms_per_flow = {
      label: 'open loop, server + Postgres CPU a flow',
      unit: 'ms',
      value: Number(serverPostgresMs(open.cost).toFixed(3)),
    };
  }
  if (closed && livez)
    f.ratio_livez = {
      label: 'closed-loop flows ÷ /livez requests a second',
      unit: '',
      value: Number((closed.result.rps / livez.result.rps).toFixed(4)),
    };
  return f;
}
const load1 = () => loadavg()[0]?.toFixed(1);

/** BENCH_TRACE=1: where the servers write their flow traces (read once they have exited). */
const TRACE = process.env.BENCH_TRACE === '1' ? join(tmpdir(), `vs-flow-trace-${process.pid}`) : undefined;
if (TRACE) process.env.FLOW_TRACE_FILE = TRACE;

/** Each phase's slowest flows, from the traces the servers wrote at exit. */
function printTails(prefix: string, windows: { name: string; from: number; to: number }[]): void {
  const traces = readFlowTraces(prefix);
  for (const role of ['api', 'worker', 'all']) rmSync(`${prefix}.${role}.json`, { force: true });
  for (const w of windows) {
    const rows = flowTailRows(traces, w.from, w.to);
    process.stdout.write(
      `\n| flow trace, phase ${w.name} | |\n|---|---|\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`,
    );
  }
}

async function main() {
  requireSharedData();
  const server = await startServer({ ingest: [], topology: TOPOLOGY });
  const probe = new CostProbe(server.procs, server.env.DATABASE_URL as string);
  const windows: { name: string; from: number; to: number }[] = [];
  try {
    const version = await loadAllLists(server);
    const key = await createBenchTenant(server);
    const b = flowBodies();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const opts = {
      url: `${server.url}/v1/flows`,
      method: 'POST' as const,
      headers,
      bodies: b,
      connections: CONNECTIONS,
    };
    const flowLoad = (seconds: number, rate?: number) =>
      rate
        ? openLoad(`POST /v1/flows sync, open loop ${rate}/s`, { ...opts, seconds, rate })
        : load('POST /v1/flows sync (all lists)', { ...opts, seconds });
    await flowLoad(WARMUP_SECONDS);
    const loadBefore = load1();
    // each phase's wall-clock window on stderr, to line up with per-process traces (BENCH_SERVER_NODE_ARGS)
    const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      const from = Date.now();
      const out = await run();
      windows.push({ name, from, to: Date.now() });
      process.stderr.write(`phase ${name}: ${new Date(from).toISOString()} – ${new Date().toISOString()}\n`);
      return out;
    };
    const phase = (name: string, label: string, run: () => Promise<LoadResult>) =>
      probe.phase(name, () => timed(label, run), ok);
    const runs: Awaited<ReturnType<typeof phase>>[] = [];
    if (PHASES.has('livez'))
      runs.push(
        await phase('GET /livez', 'livez', () =>
          load('GET /livez', { url: `${server.url}/livez`, seconds: SECONDS, connections: CONNECTIONS }),
        ),
      );
    let closedRps: number | undefined;
    let openRate: number | undefined;
    if (PHASES.has('closed')) {
      const flows = await phase('POST /v1/flows sync', 'closed', () => flowLoad(SECONDS));
      closedRps = flows.result.rps;
      runs.push(flows);
    }
    if (PHASES.has('open')) {
      const rate = OPEN_RATE ?? Math.max(1, Math.round((closedRps as number) / 2));
      openRate = rate;
      runs.push(await phase(`open loop ${rate}/s`, 'open', () => flowLoad(SECONDS, rate)));
    }
    const byName = (n: string) => runs.find((r) => r.result.name.startsWith(n))?.result;
    const livez = byName('GET /livez');
    const closed = byName('POST /v1/flows sync (all lists)');
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()} — topology ${TOPOLOGY} (${server.procs.map((p) => p.role).join(' + ')}) — load average ${loadBefore} before, ${load1()} after\n` +
        `dataset: ${version.entities} entities from 8 lists (build ${version.build_ms} ms)\n\n` +
        `${table(runs.map((r) => r.result))}\n\n` +
        (livez && closed
          ? `ratio flow/livez req/s: ${(closed.rps / livez.rps).toFixed(4)}; ` +
            `ratio flow/livez server+Postgres CPU per request: see below\n`
          : '') +
        `targets: ≥ 1200 flows/s at ${CONNECTIONS} connections, open loop at half rate p99 ≤ 20 ms, ` +
        `server + Postgres CPU per flow ≤ 0.8 ms\n\n` +
        `${costTable(runs.map((r) => r.cost))}\n`,
    );
    recordResult('flows', headline(runs, openRate), { loadBefore: Number(loadBefore) });
  } finally {
    await probe.close();
    await server.stop();
  }
  if (TRACE) printTails(TRACE, windows);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
