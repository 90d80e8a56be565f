// Per-request cost of a bench phase, from outside the server: CPU of each server process (main thread, matcher
// threads, the rest), CPU of the Postgres backends serving the bench database, WAL bytes, rows and index entries
// written, and the server's event-loop delay (nodejs_eventloop_lag_* on /metrics: prom-client's
// perf_hooks.monitorEventLoopDelay histogram, reset at every scrape).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { MATCHER_THREAD_NAME } from '../matcher/thread-name.js';

const PG_WALDUMP = ['/usr/lib/postgresql/15/bin/pg_waldump', '/usr/lib/postgresql/16/bin/pg_waldump'].find(
  (p) => existsSync(p),
);

const lsnValue = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi ?? '0'}`) << 32n) + BigInt(`0x${lo ?? '0'}`);
};

/** WAL written for one database between two LSNs, read from the WAL itself with pg_waldump once the phase is over:
 * every record that touches one of its relations, and the records (commits) of the transactions that did. The
 * cluster is shared with other work, so its LSN delta alone overstates our share. Read after the phase, not during
 * it: a reader following the WAL live (as this bench first did) printed and parsed ~40 records a flow on
 * the two cores the server was measured on, in the load generator's own event loop. Gives bytes by relfilenode, with
 * `commit` for the rest, or undefined when nothing could be read (reported as unknown, not 0). */
async function walOfDatabase(
  dir: string,
  dbOid: number,
  range: { start: string; segmentStart: string; end: string },
): Promise<Map<string, number> | undefined> {
  if (!PG_WALDUMP) return undefined;
  // from the start of the segment: pg_waldump finds no record at a position that is not a record's start
  const from = lsnValue(range.start);
  const child = spawn(PG_WALDUMP, ['-p', dir, '-s', range.segmentStart, '-e', range.end], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ours = new RegExp(`rel \\d+/${dbOid}/(\\d+)`);
  const byRel = new Map<string, number>();
  const txOfOurs = new Set<string>();
  const otherByTx = new Map<string, number>();
  let records = 0;
  let withoutFpi = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    const m = /len \(rec\/tot\):\s*(\d+)\/\s*(\d+), tx:\s*(\d+), lsn: ([0-9A-F]+\/[0-9A-F]+)/.exec(line);
    if (!m) continue;
    if (lsnValue(m[4] as string) < from) continue;
    const rec = Number(m[1]);
    const len = Number(m[2]);
    const tx = m[3] as string;
    const rel = ours.exec(line);
    if (rel) {
      records++;
      withoutFpi += rec;
      byRel.set(rel[1] as string, (byRel.get(rel[1] as string) ?? 0) + len);
      if (tx !== '0') txOfOurs.add(tx);
    } else if (tx !== '0') otherByTx.set(tx, (otherByTx.get(tx) ?? 0) + len);
  }
  if (!records) return undefined;
  let rest = 0;
  for (const tx of txOfOurs) rest += otherByTx.get(tx) ?? 0;
  byRel.set('commit', rest);
  byRel.set('without full-page images', withoutFpi + rest);
  return byRel;
}

/** Keeps the WAL written from now on until released, so that the reading after a long phase (a batch writes
 * hundreds of MB) finds segments a checkpoint would otherwise have recycled meanwhile: a temporary physical
 * replication slot on a connection of its own, which Postgres drops when that connection closes, so a killed bench
 * leaves none behind. Undefined where a slot cannot be made (no replication privilege, `wal_level = minimal`, no
 * free slot): the reading then works as long as no checkpoint recycled the phase's first segment. */
async function holdWal(sql: postgres.Sql): Promise<{ release(): Promise<void> } | undefined> {
  const conn = await sql.reserve();
  const name = `vs_bench_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  try {
    await conn`select pg_create_physical_replication_slot(${name}, true, true)`;
  } catch {
    conn.release();
    return undefined;
  }
  return {
    async release() {
      await conn`select pg_drop_replication_slot(${name})`.catch(() => undefined);
      conn.release();
    },
  };
}

/** BENCH_WAL_BY_INDEX=1: the bench database's WAL by index too (`<table> index <name>`), not only by table with
 * its indexes. */
const WAL_BY_INDEX = process.env.BENCH_WAL_BY_INDEX === '1';

const TICK_S = 0.01; // USER_HZ: `getconf CLK_TCK` is 100 on Linux

/** utime + stime of a process or one of its threads, in seconds (undefined when it is gone). */
export function cpuSeconds(path: string): number | undefined {
  try {
    // the command name (field 2) may hold spaces: fields after the closing parenthesis
    const s = readFileSync(path, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_S;
  } catch {
    return undefined;
  }
}

/** The ids of a process's matcher threads (named MATCHER_THREAD_NAME by matcher/worker.ts). */
function matcherTids(pid: number): string[] {
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tids.filter((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === MATCHER_THREAD_NAME;
    } catch {
      return false;
    }
  });
}

/** CPU seconds of a process's matcher threads. */
function matcherThreadsCpu(pid: number): number {
  return matcherTids(pid).reduce((s, tid) => s + (cpuSeconds(`/proc/${pid}/task/${tid}/stat`) ?? 0), 0);
}

/** A thread's voluntary context switches: each time it blocked (waited for a message, a socket, a futex) and was
 * woken again, so per request it counts the wake-ups that request cost the thread. */
function wakeUps(pid: number, tid: number | string): number {
  try {
    const m = /^voluntary_ctxt_switches:\s*(\d+)$/m.exec(
      readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'),
    );
    return Number(m?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Wake-ups of a process's matcher threads (voluntary context switches, summed). */
function matcherWakeUps(pid: number): number {
  return matcherTids(pid).reduce((s, tid) => s + wakeUps(pid, tid), 0);
}

/** A process's resident set now and at its peak (VmRSS, VmHWM), MB. */
function rssMb(pid: number): { now: number; peak: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s*(\\d+) kB$`, 'm').exec(s)?.[1] ?? 0);
    return { now: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { now: 0, peak: 0 };
  }
}

/** Time a thread has spent runnable but waiting for a CPU (the run queue), seconds: field 2 of
 * /proc/<pid>/task/<tid>/schedstat (ns). */
function runQueueSeconds(path: string): number | undefined {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return undefined;
  }
}

const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'] as const;
type GcKind = (typeof GC_KINDS)[number];

/** prom-client's nodejs_gc_duration_seconds histogram (main thread's collections, by kind): count and seconds. */
function gcTotals(text: string): Record<GcKind, { n: number; s: number }> {
  const one = (kind: GcKind, what: 'count' | 'sum') => {
    const m = new RegExp(`^nodejs_gc_duration_seconds_${what}\\{kind="${kind}"\\} ([0-9.eE+-]+)$`, 'm').exec(
      text,
    );
    return m?.[1] ? Number(m[1]) : 0;
  };
  return Object.fromEntries(GC_KINDS.map((k) => [k, { n: one(k, 'count'), s: one(k, 'sum') }])) as Record<
    GcKind,
    { n: number; s: number }
  >;
}

/** A histogram's cumulative bucket counts (`le` → count), summed over the series whose labels contain `match`. */
function buckets(text: string, name: string, match = ''): Map<number, number> {
  const out = new Map<number, number>();
  const re = new RegExp(`^${name}_bucket\\{([^}]*)\\} ([0-9.eE+-]+)$`, 'gm');
  for (const m of text.matchAll(re)) {
    const labels = m[1] as string;
    if (!labels.includes(match)) continue;
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (!le) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    out.set(bound, (out.get(bound) ?? 0) + Number(m[2]));
  }
  return out;
}

/** The bucket bound under which a quantile of the observations between two snapshots falls, ms ("> last bound" as
 * Infinity); undefined without observations. */
function quantileBound(
  after: Map<number, number>,
  before: Map<number, number>,
  q: number,
): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Number.POSITIVE_INFINITY) ?? 0) - (before.get(Number.POSITIVE_INFINITY) ?? 0);
  if (!total) return undefined;
  for (const b of bounds) {
    if ((after.get(b) ?? 0) - (before.get(b) ?? 0) >= q * total) return b * 1000;
  }
  return Number.POSITIVE_INFINITY;
}

export interface ServerProc {
  /** all (one process), api or worker */
  role: string;
  pid: number;
  url: string;
}

interface ProcSnap {
  total: number;
  main: number;
  /** CPU of the matcher threads */
  matcher: number;
  /** wall time inside screens (matcher_busy_seconds_total): CPU plus the time the threads waited for a core */
  matcherBusy: number;
  /** matcher_screens_total and matcher_tasks_total */
  screens: number;
  tasks: number;
  /** main thread's time in the run queue, s */
  mainWait: number;
  /** voluntary context switches of the main thread and of the matcher threads */
  mainWakes: number;
  matcherWakes: number;
  rss: { now: number; peak: number };
  /** matcher_screen_duration_seconds (submit to result) and the POST /v1/flows part of http_request_duration_seconds */
  screenBuckets: Map<number, number>;
  flowBuckets: Map<number, number>;
  gc: Record<GcKind, { n: number; s: number }>;
}

interface Snap {
  at: number;
  procs: ProcSnap[];
  pg: Map<number, number>;
  walLsn: string;
  rows: Map<string, number>;
  indexEntries: Map<string, number>;
  relayed: number;
  /** transactions committed or rolled back in the bench database (pg_stat_database: every statement outside an
   * explicit transaction is one) */
  xacts: number;
  bench: NodeJS.CpuUsage;
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
  return m?.[1] ? Number(m[1]) : 0;
}

export interface PhaseCost {
  name: string;
  requests: number;
  seconds: number;
  /** CPU ms per request, by process kind and part */
  cpu_ms: Record<string, number>;
  /** WAL bytes per request: the whole cluster's LSN delta, and the bench database's own records (pg_waldump) by
   * table (heap and its indexes) */
  wal_bytes: number;
  wal_db: Record<string, number> | undefined;
  /** rows inserted per request, by table; index entries inserted per request, by table (GIN: one per row; BRIN: none) */
  rows: Record<string, number>;
  index_entries: Record<string, number>;
  /** outbox rows updated by the relay per request (each a second tuple version and its index entries; rows that no
   * endpoint subscribes to are written relayed, delivered_at = created_at) */
  relayed: number;
  /** Postgres transactions per request */
  xacts: number;
  /** screens per matcher task, by process kind (processes that screened in the phase) */
  screens_per_task: Record<string, number>;
  /** event-loop delay of each server process over the phase, ms */
  eld: Record<string, { p50: number; p90: number; p99: number; max: number }>;
  /** per server process: its main thread's time waiting for a CPU, ms per request; its main thread's garbage
   * collections (scavenges = minor, mark-compacts = major, incremental marking steps) per 1,000 requests and their
   * mean pause, ms */
  sched: Record<string, { main_wait_ms: number; main_wakes: number; matcher_wakes: number; rss_mb: string }>;
  /** per server process that served them: p50, p90 and p99 bucket bounds (ms) of a screen's time from submission to
   * result (queue, hand-off, screen) and of POST /v1/flows as the server timed it */
  stages: Record<string, { screen: string; flow: string }>;
  gc: Record<string, Record<GcKind, { per_1000: number; mean_ms: number }>>;
}

const TABLES = [
  'applicants',
  'flows',
  'checks',
  'alerts',
  // the view of every event (migration 021), then its tables: rows of their own, and one set per flow
  'outbox_events',
  'outbox_rows',
  'outbox_sets',
  'audit_log',
  'webhook_deliveries',
  'check_batches',
  'batch_chunks',
  'batch_records',
];

/** Measures phases against one bench server (its processes and database). */
export class CostProbe {
  private readonly sql: postgres.Sql;
  private indexes: { table: string; name: string; predicate: string | null; method: string }[] = [];
  private db: { oid: number; dir: string } | undefined;
  constructor(
    private readonly procs: ServerProc[],
    databaseUrl: string,
  ) {
    // two: one of them holds the phase's WAL (holdWal)
    this.sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  }

  private async snap(): Promise<Snap> {
    const sql = this.sql;
    if (!this.indexes.length) {
      this.indexes = await sql<{ table: string; name: string; predicate: string | null; method: string }[]>`
        select c.relname as table, i.relname as name, pg_get_expr(x.indpred, x.indrelid) as predicate,
          am.amname as method
        from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
          join pg_am am on am.oid = i.relam
        where c.relname in ${sql(TABLES)}`;
    }
    const procs = await Promise.all(
      this.procs.map(async (p) => {
        const text = await metricsText(p.url);
        return {
          total: cpuSeconds(`/proc/${p.pid}/stat`) ?? 0,
          main: cpuSeconds(`/proc/${p.pid}/task/${p.pid}/stat`) ?? 0,
          matcher: matcherThreadsCpu(p.pid),
          matcherBusy: metric(text, 'matcher_busy_seconds_total'),
          screens: metric(text, 'matcher_screens_total'),
          tasks: metric(text, 'matcher_tasks_total'),
          mainWait: runQueueSeconds(`/proc/${p.pid}/task/${p.pid}/schedstat`) ?? 0,
          mainWakes: wakeUps(p.pid, p.pid),
          matcherWakes: matcherWakeUps(p.pid),
          rss: rssMb(p.pid),
          gc: gcTotals(text),
          screenBuckets: buckets(text, 'matcher_screen_duration_seconds'),
          flowBuckets: buckets(text, 'http_request_duration_seconds', 'route="/v1/flows",method="POST"'),
        };
      }),
    );
    const backends = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
    const pg = new Map<number, number>();
    for (const b of backends) {
      const s = cpuSeconds(`/proc/${b.pid}/stat`);
      if (s !== undefined) pg.set(b.pid, s);
    }
    const [wal] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
    const rows = new Map<string, number>();
    const indexEntries = new Map<string, number>();
    for (const t of TABLES) {
      const [r] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(t)}`;
      rows.set(t, r?.n ?? 0);
      let entries = 0;
      // a BRIN index has no entry per row (one summary per block range, updated when a value widens it)
      for (const ix of this.indexes.filter((i) => i.table === t && i.method !== 'brin')) {
        if (!ix.predicate) entries += r?.n ?? 0;
        else {
          const [p] = await sql.unsafe<{ n: number }[]>(
            `select count(*)::int as n from ${t} where ${ix.predicate}`,
          );
          entries += p?.n ?? 0;
        }
      }
      indexEntries.set(t, entries);
    }
    const [rel] = await sql<{ n: number }[]>`
      select count(*)::int as n from outbox_rows where delivered_at <> created_at`;
    const [x] = await sql<{ n: string }[]>`
      select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = current_database()`;
    return {
      at: performance.now(),
      procs,
      pg,
      walLsn: wal?.lsn ?? '0/0',
      rows,
      indexEntries,
      relayed: rel?.n ?? 0,
      xacts: Number(x?.n ?? 0),
      bench: process.cpuUsage(),
    };
  }

  /** BENCH_PERF_DIR: `perf record -g` of the Postgres backends during each phase, into <dir>/<phase>.data (read
   * with `perf report -i`); returns the stop function. */
  private perfRecord(name: string, pids: number[]): (() => Promise<void>) | undefined {
    const dir = process.env.BENCH_PERF_DIR;
    if (!dir || !pids.length) return undefined;
    const out = `${dir}/${name.replace(/[^a-z0-9]+/gi, '_')}.data`;
    const child = spawn('perf', ['record', '-g', '-o', out, '-p', pids.join(',')], { stdio: 'ignore' });
    return async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    };
  }

  /** Runs a phase between two snapshots; `requests` counts the phase's successful requests (or the flows written,
   * when more: requests still in flight when the load generator stops are served and written too). The phase's WAL
   * is held from before its first snapshot until it has been read, however the phase ends. */
  async phase<T>(
    name: string,
    run: () => Promise<T>,
    requests: (r: T) => number,
  ): Promise<{ result: T; cost: PhaseCost }> {
    const walHold = await holdWal(this.sql);
    try {
      return await this.measure(name, run, requests);
    } finally {
      await walHold?.release();
    }
  }

  /** WAL bytes per request of this database's records by table (an index under its table's name when
   * WAL_BY_INDEX), commit records apart, with the total and the total without full-page images. */
  private async walPerTable(walRels: Map<string, number>, n: number): Promise<Record<string, number>> {
    const names = new Map(
      (
        await this.sql<{ node: string; name: string }[]>`
          select c.relfilenode::text as node,
            case when ${WAL_BY_INDEX} and t.relname is not null then t.relname || ' index ' || c.relname
              else coalesce(t.relname, c.relname) end as name
          from pg_class c left join pg_index x on x.indexrelid = c.oid left join pg_class t on t.oid = x.indrelid
          where c.relfilenode <> 0`
      ).map((r) => [r.node, r.name]),
    );
    const byTable = new Map<string, number>();
    const bare = walRels.get('without full-page images') ?? 0;
    walRels.delete('without full-page images');
    for (const [node, bytes] of walRels) {
      const name = node === 'commit' ? 'commit records' : (names.get(node) ?? 'other');
      byTable.set(name, (byTable.get(name) ?? 0) + bytes);
    }
    // full-page images follow checkpoints (the first change of a page after one logs the whole page): the total
    // without them is the steady part
    const walDb: Record<string, number> = {
      total: Math.round([...byTable.values()].reduce((a, b) => a + b, 0) / n),
      'total without full-page images': Math.round(bare / n),
    };
    for (const [k, v] of [...byTable].sort((a, b) => b[1] - a[1])) {
      const per = Math.round(v / n);
      if (per) walDb[k] = per;
    }
    return walDb;
  }

  private async measure<T>(
    name: string,
    run: () => Promise<T>,
    requests: (r: T) => number,
  ): Promise<{ result: T; cost: PhaseCost }> {
    // a scrape resets the event-loop histogram: the next one covers the phase only
    await Promise.all(this.procs.map((p) => metricsText(p.url)));
    const before = await this.snap();
    this.db ??= (
      await this.sql<{ oid: number; dir: string }[]>`
        select oid::int as oid, current_setting('data_directory') || '/pg_wal' as dir
        from pg_database where datname = current_database()`
    )[0];
    const [seg] = await this.sql<{ lsn: string }[]>`
      select (${before.walLsn}::pg_lsn - (pg_walfile_name_offset(${before.walLsn}::pg_lsn)).file_offset)::text as lsn`;
    const perf = this.perfRecord(name, [...before.pg.keys()]);
    const result = await run();
    await perf?.();
    const eldTexts = await Promise.all(this.procs.map((p) => metricsText(p.url)));
    // let the group-commit writer, the relay and the stats settle before counting (backends flush their
    // transaction counts to pg_stat_database at most once a second)
    await new Promise((r) => setTimeout(r, 1100));
    const after = await this.snap();
    const n = Math.max(1, requests(result), (after.rows.get('flows') ?? 0) - (before.rows.get('flows') ?? 0));
    const seconds = (after.at - before.at) / 1000;
    const [w] = await this.sql<{ d: string }[]>`
      select pg_wal_lsn_diff(${after.walLsn}::pg_lsn, ${before.walLsn}::pg_lsn)::text as d`;
    const wal = Number(w?.d ?? 0);
    const walRels =
      this.db && seg
        ? await walOfDatabase(this.db.dir, this.db.oid, {
            start: before.walLsn,
            segmentStart: seg.lsn,
            end: after.walLsn,
          })
        : undefined;
    const walDb = walRels ? await this.walPerTable(walRels, n) : undefined;
    const ms = (s: number) => Math.round((s / n) * 1000 * 1000) / 1000;
    const cpu: Record<string, number> = {};
    this.procs.forEach((p, i) => {
      const b = before.procs[i] as ProcSnap;
      const a = after.procs[i] as ProcSnap;
      const total = a.total - b.total;
      const main = a.main - b.main;
      const matcher = a.matcher - b.matcher;
      cpu[`${p.role} main thread`] = ms(main);
      cpu[`${p.role} matcher threads`] = ms(matcher);
      // wall time inside screens: on a machine with more runnable threads than cores, well above their CPU
      cpu[`${p.role} matcher (busy, wall; not CPU)`] = ms(a.matcherBusy - b.matcherBusy);
      // V8's helper threads (parallel scavenges and concurrent marking of every isolate, optimising compiles), libuv
      cpu[`${p.role} other threads`] = ms(Math.max(0, total - main - matcher));
      cpu[`${p.role} process`] = ms(total);
    });
    let pgCpu = 0;
    for (const [pid, s] of after.pg) pgCpu += s - (before.pg.get(pid) ?? 0);
    cpu['postgres backends'] = ms(pgCpu);
    cpu['load generator'] = ms(
      (after.bench.user - before.bench.user + after.bench.system - before.bench.system) / 1e6,
    );
    const per = (m: Map<string, number>, m0: Map<string, number>) =>
      Object.fromEntries(
        [...m]
          .map(([k, v]) => [k, Math.round(((v - (m0.get(k) ?? 0)) / n) * 100) / 100])
          .filter(([, v]) => v),
      );
    const screensPerTask: Record<string, number> = {};
    this.procs.forEach((p, i) => {
      const b = before.procs[i] as ProcSnap;
      const a = after.procs[i] as ProcSnap;
      if (a.tasks > b.tasks)
        screensPerTask[p.role] = Math.round(((a.screens - b.screens) / (a.tasks - b.tasks)) * 100) / 100;
    });
    const eld: PhaseCost['eld'] = {};
    this.procs.forEach((p, i) => {
      const t = eldTexts[i] as string;
      const g = (q: string) => Math.round(metric(t, `nodejs_eventloop_lag_${q}_seconds`) * 10000) / 10;
      eld[p.role] = { p50: g('p50'), p90: g('p90'), p99: g('p99'), max: g('max') };
    });
    const stages: PhaseCost['stages'] = {};
    this.procs.forEach((p, i) => {
      const b = before.procs[i] as ProcSnap;
      const a = after.procs[i] as ProcSnap;
      const pq = (x: Map<number, number>, y: Map<number, number>) => {
        const p50 = quantileBound(x, y, 0.5);
        return p50 === undefined
          ? ''
          : `≤ ${p50} / ≤ ${quantileBound(x, y, 0.9)} / ≤ ${quantileBound(x, y, 0.99)}`;
      };
      const screen = pq(a.screenBuckets, b.screenBuckets);
      const flow = pq(a.flowBuckets, b.flowBuckets);
      if (screen || flow) stages[p.role] = { screen, flow };
    });
    const sched: PhaseCost['sched'] = {};
    const gc: PhaseCost['gc'] = {};
    this.procs.forEach((p, i) => {
      const b = before.procs[i] as ProcSnap;
      const a = after.procs[i] as ProcSnap;
      const perReq = (d: number) => Math.round((d / n) * 100) / 100;
      sched[p.role] = {
        main_wait_ms: ms(a.mainWait - b.mainWait),
        main_wakes: perReq(a.mainWakes - b.mainWakes),
        matcher_wakes: perReq(a.matcherWakes - b.matcherWakes),
        rss_mb: `${a.rss.now} / ${a.rss.peak}`,
      };
      gc[p.role] = Object.fromEntries(
        GC_KINDS.map((k) => {
          const count = a.gc[k].n - b.gc[k].n;
          return [
            k,
            {
              per_1000: Math.round((count / n) * 1000 * 10) / 10,
              mean_ms: count ? Math.round(((a.gc[k].s - b.gc[k].s) / count) * 1000 * 10) / 10 : 0,
            },
          ];
        }),
      ) as Record<GcKind, { per_1000: number; mean_ms: number }>;
    });
    return {
      result,
      cost: {
        name,
        requests: n,
        seconds,
        cpu_ms: cpu,
        wal_bytes: Math.round(wal / n),
        wal_db: walDb,
        rows: per(after.rows, before.rows),
        index_entries: per(after.indexEntries, before.indexEntries),
        relayed: Math.round(((after.relayed - before.relayed) / n) * 100) / 100,
        xacts: Math.round(((after.xacts - before.xacts) / n) * 100) / 100,
        screens_per_task: screensPerTask,
        eld,
        sched,
        stages,
        gc,
      },
    };
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

/** Server processes' and Postgres backends' CPU ms per request: what a request costs the deployment. */
export function serverPostgresMs(c: PhaseCost): number {
  return Object.entries(c.cpu_ms)
    .filter(([k]) => k.endsWith(' process') || k === 'postgres backends')
    .reduce((s, [, v]) => s + v, 0);
}

/** Markdown tables of phase costs side by side. */
export function costTable(costs: PhaseCost[]): string {
  const head = `| per request | ${costs.map((c) => c.name).join(' | ')} |\n|---|${costs.map(() => '---|').join('')}`;
  const keys = (f: (c: PhaseCost) => Record<string, unknown>) => [
    ...new Set(costs.flatMap((c) => Object.keys(f(c)))),
  ];
  const line = (label: string, vals: (string | number | undefined)[]) =>
    `| ${label} | ${vals.map((v) => v ?? 0).join(' | ')} |`;
  const lines = [
    head,
    line(
      'requests measured',
      costs.map((c) => c.requests),
    ),
    ...keys((c) => c.cpu_ms).map((k) =>
      line(
        `CPU ms: ${k}`,
        costs.map((c) => c.cpu_ms[k]),
      ),
    ),
    line(
      'CPU ms: server + Postgres',
      costs.map((c) => serverPostgresMs(c).toFixed(3)),
    ),
    line(
      'WAL bytes (cluster)',
      costs.map((c) => c.wal_bytes),
    ),
    ...keys((c) => c.wal_db ?? {}).map((k) =>
      line(
        `WAL bytes, bench database: ${k}`,
        costs.map((c) => c.wal_db?.[k]),
      ),
    ),
    ...keys((c) => c.rows).map((k) =>
      line(
        `rows: ${k}`,
        costs.map((c) => c.rows[k]),
      ),
    ),
    ...keys((c) => c.index_entries).map((k) =>
      line(
        `index entries: ${k}`,
        costs.map((c) => c.index_entries[k]),
      ),
    ),
    line(
      'outbox rows relayed (updated)',
      costs.map((c) => c.relayed),
    ),
    line(
      "Postgres transactions (statements outside a transaction; the probe's own ~40 a phase included)",
      costs.map((c) => c.xacts),
    ),
    ...keys((c) => c.screens_per_task).map((k) =>
      line(
        `screens per matcher task, ${k}`,
        costs.map((c) => c.screens_per_task[k]),
      ),
    ),
    ...keys((c) => c.sched).map((k) =>
      line(
        `${k} main thread waiting for a CPU (run queue), ms`,
        costs.map((c) => c.sched[k]?.main_wait_ms),
      ),
    ),
    ...keys((c) => c.sched).map((k) =>
      line(
        `${k} wake-ups (voluntary context switches), main thread / matcher threads`,
        costs.map((c) => `${c.sched[k]?.main_wakes} / ${c.sched[k]?.matcher_wakes}`),
      ),
    ),
    ...keys((c) => c.sched).map((k) =>
      line(
        `${k} RSS MB after the phase, now / peak (not per request)`,
        costs.map((c) => c.sched[k]?.rss_mb),
      ),
    ),
    ...keys((c) => c.stages).map((k) =>
      line(
        `${k} POST /v1/flows as the server timed it, p50 / p90 / p99 ms (bucket bounds)`,
        costs.map((c) => c.stages[k]?.flow),
      ),
    ),
    ...keys((c) => c.stages).map((k) =>
      line(
        `${k} a screen from submission to result (queue, hand-off, screen), p50 / p90 / p99 ms (bucket bounds)`,
        costs.map((c) => c.stages[k]?.screen),
      ),
    ),
    ...keys((c) => c.gc).map((k) =>
      line(
        `${k} main-thread GC per 1,000 requests, scavenges / mark-compacts / incremental marking (mean pause ms)`,
        costs.map((c) => {
          const g = c.gc[k];
          return g
            ? `${g.minor.per_1000} (${g.minor.mean_ms}) / ${g.major.per_1000} (${g.major.mean_ms}) / ${g.incremental.per_1000} (${g.incremental.mean_ms})`
            : '';
        }),
      ),
    ),
    ...keys((c) => c.eld).map((k) =>
      line(
        `event-loop delay ${k} p50/p90/p99/max ms (10 ms resolution: 10 is no delay)`,
        costs.map((c) => {
          const e = c.eld[k];
          return e ? `${e.p50}/${e.p90}/${e.p99}/${e.max}` : '';
        }),
      ),
    ),
  ];
  return lines.join('\n');
}
