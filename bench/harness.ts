// Shared bench plumbing: a server process of our own on loopback, a fresh database, tenants via the admin API.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { parseCsvTable } from '../ingest/csv.js';
import { REAL_LISTS } from './lists.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'veriscreen');
export const SHARED_DATA = process.env.VERISCREEN_SHARED_DATA ?? resolve(ROOT, '../shared/data');
const run = promisify(execFile);

export function requireSharedData(): void {
  if (!existsSync(SHARED_DATA)) {
    process.stderr.write(`bench needs the real lists in ../shared/data (not found at ${SHARED_DATA})\n`);
    process.exit(2);
  }
}

export { machineName as machine } from './results.js';

export interface BenchServer {
  url: string;
  adminToken: string;
  env: NodeJS.ProcessEnv;
  /** the server processes: one `all`, or an `api` (serving `url`) and a `worker` */
  procs: { role: string; pid: number; url: string }[];
  stop(): Promise<void>;
}

export async function startServer(opts: {
  ingest: { format: string; source: string }[];
  threads?: number;
  /** all: one process with every role (default); split: a ROLE=api process and a ROLE=worker process */
  topology?: 'all' | 'split';
}): Promise<BenchServer> {
  const id = randomBytes(4).toString('hex');
  const db = `vs_bench_${id}`;
  const adminToken = `bench-admin-${randomBytes(8).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // own NATS streams and S3 files: nothing shared with a development server on this machine
    NATS_NAMESPACE: `vsb${id}`,
    LOCAL_S3_PORT: '0',
    LOCAL_S3_DIR: join(tmpdir(), `vs-bench-s3-${id}`),
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
    NODE_ENV: 'test',
    ADMIN_TOKEN: adminToken,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...(opts.threads ? { MATCHER_THREADS: String(opts.threads) } : {}),
  };
  for (const i of opts.ingest) {
    await run(process.execPath, [BIN, 'ingest', '--format', i.format, '--source', i.source, '--promote'], {
      env,
    });
  }
  const split = opts.topology === 'split';
  const worker = split ? await spawnServe({ ...env, ROLE: 'worker' }) : undefined;
  const proc = await spawnServe(split ? { ...env, ROLE: 'api' } : env);
  const procs = [
    { role: split ? 'api' : 'all', pid: proc.child.pid as number, url: proc.url },
    ...(worker ? [{ role: 'worker', pid: worker.child.pid as number, url: worker.url }] : []),
  ];
  return {
    url: proc.url,
    adminToken,
    env,
    procs,
    async stop() {
      await proc.stop();
      await worker?.stop();
      // BENCH_KEEP_DB=1 keeps the database (its name is printed) to look at the rows a run wrote
      if (process.env.BENCH_KEEP_DB === '1') process.stderr.write(`bench database kept: ${db}\n`);
      else await dropBenchState(db, `vsb${id}`, env.LOCAL_S3_DIR as string);
    },
  };
}

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `bin/veriscreen serve` (or another server script: bench:floor's) as a child process; resolves once it prints its
 * URL. */
export async function spawnServe(env: NodeJS.ProcessEnv, command = [BIN, 'serve']): Promise<ServeProcess> {
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...command], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 120_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function createBenchTenant(s: BenchServer): Promise<string> {
  const r = await fetch(`${s.url}/admin/tenants`, {
    method: 'POST',
    headers: { 'x-admin-token': s.adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', plan: 'contract' }),
  });
  if (r.status !== 201) throw new Error(`tenant create failed: ${r.status}`);
  return ((await r.json()) as { secret_key: string }).secret_key;
}

export interface LoadResult {
  name: string;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
}

/** What to send, for how long and over how many connections (load and openLoad). */
export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** request bodies, sent in turn */
  bodies?: string[];
  seconds: number;
  connections: number;
}

export async function load(
  name: string,
  opts: LoadOptions & {
    /** requests per second across all connections (open loop while the connections keep up); unset: closed loop */
    rate?: number;
  },
): Promise<LoadResult> {
  const bodies = opts.bodies ?? [];
  let i = 0;
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    duration: opts.seconds,
    connections: opts.connections,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: bodies.length
      ? [
          {
            setupRequest: (req: Record<string, unknown>) => {
              req.body = bodies[i++ % bodies.length];
              return req;
            },
          },
        ]
      : undefined,
  } as autocannon.Options);
  return {
    name,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Open loop: request k is due at start + k / rate (evenly spaced), whatever the responses, on a keep-alive pool of
 * at most `connections` sockets (a request due while every socket is busy waits for one). Its latency is measured
 * from the time it was due, not from when it was sent, so time spent queued behind a slow response counts (no
 * coordinated omission); percentiles are exact (every latency kept).
 * autocannon's `overallRate` is not an open loop: each connection sends back to back until its share of the
 * second's requests is spent and then waits for the next second, so every second starts with a burst at full
 * concurrency; and it records each latency with an "expected interval" of ceil(1 / per-connection rate) = 1 ms,
 * i.e. a 100 ms response also as 99, 98, … 1 ms samples, which weights slow responses ~100× in its percentiles. */
export async function openLoad(name: string, opts: LoadOptions & { rate: number }): Promise<LoadResult> {
  const url = new URL(opts.url);
  const head = (body: string | undefined) =>
    `${opts.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
    Object.entries(opts.headers ?? {})
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    `content-length: ${body === undefined ? 0 : Buffer.byteLength(body)}\r\n\r\n`;
  // requests serialized up front (one per body), so that sending costs the generator as little as possible
  const wire = (opts.bodies?.length ? opts.bodies : [undefined]).map((b) => Buffer.from(head(b) + (b ?? '')));
  const total = Math.round(opts.seconds * opts.rate);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let settled = 0;
  let allSettled: () => void = () => {};
  const finished = new Promise<void>((r) => {
    allSettled = r;
  });
  const settle = () => {
    if (++settled === total) allSettled();
  };
  /** Keep-alive connections, one request at a time each; a response is read to its content-length (or its last
   * chunk). */
  class Conn {
    private readonly socket: Socket;
    private buf: Buffer = Buffer.alloc(0);
    due = 0;
    busy = false;
    constructor(onFree: (c: Conn) => void, onDead: (c: Conn) => void) {
      this.socket = tcpConnect(Number(url.port), url.hostname);
      this.socket.setNoDelay(true);
      this.socket.on('data', (d: Buffer) => {
        this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const header = this.buf.subarray(0, end).toString('latin1');
        const length = /\r\ncontent-length: *(\d+)/i.exec(header);
        const complete = length
          ? this.buf.length >= end + 4 + Number(length[1])
          : this.buf.subarray(end + 4).includes('\r\n0\r\n\r\n') ||
            this.buf.subarray(end + 4, end + 9).toString() === '0\r\n\r\n';
        if (!complete) return;
        const status = Number(header.slice(9, 12));
        if (status >= 200 && status < 300) latencies.push(performance.now() - this.due);
        else non2xx++;
        this.buf = Buffer.alloc(0);
        this.busy = false;
        settle();
        onFree(this);
      });
      this.socket.on('error', () => {});
      // a connection the server closed (e.g. idle too long) is dropped; a request it carried counts as an error
      this.socket.on('close', () => {
        if (this.busy) {
          this.busy = false;
          errors++;
          settle();
        }
        onDead(this);
      });
    }
    send(req: Buffer, due: number): void {
      this.due = due;
      this.busy = true;
      this.socket.write(req);
    }
    close(): void {
      this.socket.destroy();
    }
  }
  let conns: Conn[] = [];
  let stopping = false;
  const idle: Conn[] = [];
  const waiting: { k: number; due: number }[] = [];
  const onFree = (c: Conn) => {
    const next = waiting.shift();
    if (next) c.send(wire[next.k % wire.length] as Buffer, next.due);
    else idle.push(c);
  };
  const onDead = (c: Conn) => {
    conns = conns.filter((x) => x !== c);
    const i = idle.indexOf(c);
    if (i >= 0) idle.splice(i, 1);
    const next = waiting.shift();
    if (next && !stopping) dispatch(next.k, next.due);
  };
  const dispatch = (k: number, due: number) => {
    let c = idle.pop();
    if (!c && conns.length < opts.connections) {
      c = new Conn(onFree, onDead);
      conns.push(c);
    }
    // every connection busy: the request waits for one, its latency still counted from its due time
    if (c) c.send(wire[k % wire.length] as Buffer, due);
    else waiting.push({ k, due });
  };
  const start = performance.now() + 1;
  for (let k = 0; k < total; ) {
    const now = performance.now();
    // every request due by now goes out (after a late timer, several at once: their latency counts from their due time)
    for (; k < total && start + (k * 1000) / opts.rate <= now; k++)
      dispatch(k, start + (k * 1000) / opts.rate);
    if (k < total)
      await new Promise((r) =>
        setTimeout(r, Math.max(0, start + (k * 1000) / opts.rate - performance.now())),
      );
  }
  if (total) await finished;
  stopping = true;
  for (const c of conns) c.close();
  latencies.sort((a, b) => a - b);
  const pct = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    name,
    requests: latencies.length + non2xx + errors,
    rps: Math.round((latencies.length + non2xx + errors) / opts.seconds),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    non2xx,
    errors,
  };
}

export function table(rows: LoadResult[]): string {
  const head =
    '| run | requests | req/s | p50 ms | p99 ms | non-2xx | errors |\n|---|---|---|---|---|---|---|';
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.requests} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`,
    ),
  ].join('\n');
}

/** Builds one dataset version from every real list through the admin API and promotes it; resolves when the
 * server reports it active. */
export async function loadAllLists(
  s: BenchServer,
): Promise<{ id: string; entities: number; build_ms: number }> {
  const headers = { 'x-admin-token': s.adminToken, 'content-type': 'application/json' };
  const sources = REAL_LISTS.map((l) => ({
    format: l.format,
    uri: pathToFileURL(join(SHARED_DATA, l.path)).toString(),
  }));
  const created = await fetch(`${s.url}/admin/dataset_versions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'all real lists', sources }),
  });
  if (created.status !== 201)
    throw new Error(`version create failed: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  for (;;) {
    const v = (await (await fetch(`${s.url}/admin/dataset_versions/${id}`, { headers })).json()) as {
      status: string;
      error: string | null;
      stats: { entities: number; build_ms: number };
    };
    if (v.status === 'failed') throw new Error(`build failed: ${v.error}`);
    if (v.status === 'ready') {
      const p = await fetch(`${s.url}/admin/dataset_versions/${id}/promote`, { method: 'POST', headers });
      if (p.status !== 200) throw new Error(`promote failed: ${p.status}`);
      for (;;) {
        const r = (await (await fetch(`${s.url}/readyz`)).json()) as { dataset_version?: string };
        if (r.dataset_version === id) return { id, entities: v.stats.entities, build_ms: v.stats.build_ms };
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    await new Promise((res) => setTimeout(res, 250));
  }
}

/** Drops what a bench run created: its database, NATS stream and KV bucket, and S3 files. */
export async function dropBenchState(db: string, ns: string, s3Dir?: string): Promise<void> {
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  await (await jetstreamManager(nc)).streams.delete(`${ns}_jobs`).catch(() => {});
  await new Kvm(nc)
    .open(`${ns}_state`)
    .then((kv) => kv.destroy())
    .catch(() => {});
  await nc.close();
  const admin = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${db}" with (force)`);
  await admin.end();
  if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
}

export interface YentePerson {
  name: string;
  date_of_birth?: string;
}

/** People from the yente candidate-generation benchmark (first `limit` rows of a file): the full name and, when
 * it is a plain date, the date of birth. */
export function yentePeople(file: string, limit = Number.POSITIVE_INFINITY): YentePerson[] {
  const rows = parseCsvTable(
    readFileSync(join(SHARED_DATA, 'matching_cases/yente_candidate_generation_benchmark', file), 'utf8'),
  );
  return rows.slice(0, limit).flatMap((r) => {
    const name = r.full_name?.trim();
    const dob = r.date_of_birth?.trim();
    if (!name) return [];
    return [{ name, ...(dob && /^\d{4}(-\d{2}(-\d{2})?)?$/.test(dob) ? { date_of_birth: dob } : {}) }];
  });
}

/** Yente negatives and UN positives interleaved, so that every run (each starts at the first body) screens the same
 * mix of clear subjects and hits (bench:flows, bench:floor). */
export function flowBodies(): string[] {
  const neg = yentePeople('negatives_global.csv', 1000);
  const pos = yentePeople('positives_un_untreated.csv', 1000);
  const mixed = neg.flatMap((n, i) => (pos[i] ? [n, pos[i]] : [n]));
  return mixed
    .filter((p) => p.name.length <= 200)
    .map((p) =>
      JSON.stringify({
        mode: 'sync',
        applicant: { legal_name_last: p.name },
        datasets: ['sanctions', 'pep'],
      }),
    );
}

/** The knobs of the flow benches (bench:flows, bench:floor), read once from the environment: BENCH_SECONDS (10) a
 * measured run, BENCH_WARMUP_SECONDS (20) of closed-loop flows first, BENCH_CONNECTIONS (32), BENCH_OPEN_RATE (the
 * open loop's rate in flows/s; unset: half the closed loop's). */
export function flowBenchSettings(): {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  openRate: number | undefined;
} {
  return {
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 20),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
    openRate: process.env.BENCH_OPEN_RATE ? Number(process.env.BENCH_OPEN_RATE) : undefined,
  };
}
