// Cost breakdown of a bench run, read from outside the server: CPU of the server's main thread and of its other
// threads (matcher threads, libuv, GC), CPU of the Postgres backends serving the bench database, WAL written,
// database growth, and rows / index entries written (pg_stat_user_tables). Linux /proc only.
import { readFileSync } from 'node:fs';
import postgres from 'postgres';

/** /proc/<pid>/stat counts in clock ticks; 100 per second on every Linux this runs on (getconf CLK_TCK). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process (or, with tid, of one of its threads), in seconds; undefined once it has exited. */
function cpuSeconds(pid: number, tid?: number): number | undefined {
  try {
    const stat = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may contain spaces), starting with field 3 (state)
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

interface TableCounts {
  /** rows inserted + updated + deleted */
  rows: number;
  /** index entries written: inserted and non-HOT updated rows × the table's indexes */
  index_entries: number;
}

export interface Costs {
  wall_s: number;
  /** the server's main (event-loop) thread */
  main_cpu_s: number;
  /** every other thread of the server process: matcher threads, libuv pool, GC helpers */
  other_threads_cpu_s: number;
  /** the Postgres backends connected to the bench database (not the shared WAL writer / checkpointer) */
  pg_cpu_s: number;
  /** pg_current_wal_lsn() delta: cluster-wide, so other work on a shared machine adds to it */
  wal_bytes: number;
  db_bytes: number;
  rows: number;
  index_entries: number;
  /** rows written per table */
  tables: Record<string, number>;
}

/**
 * Samples the costs of a server process (pid) on a bench database from now on. Call sample() every few hundred
 * milliseconds while the run lasts (backends that come and go are counted up to their last sample), then stop().
 */
export async function costProbe(serverPid: number, databaseUrl: string) {
  const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const backends = async () =>
    (
      await db<{ pid: number }[]>`
        select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
    ).map((r) => r.pid);
  const tables = async () => {
    const rows = await db<
      { relname: string; ins: string; upd: string; hot: string; del: string; idx: number }[]
    >`
      select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, n_tup_del as del,
             (select count(*)::int from pg_index i where i.indrelid = s.relid) as idx
      from pg_stat_user_tables s`;
    return new Map<string, TableCounts>(
      rows.map((r) => [
        r.relname,
        {
          rows: Number(r.ins) + Number(r.upd) + Number(r.del),
          index_entries: (Number(r.ins) + Number(r.upd) - Number(r.hot)) * r.idx,
        },
      ]),
    );
  };
  const wal = async () => {
    const [r] = await db<{ lsn: string; size: string }[]>`
      select pg_current_wal_lsn()::text as lsn, pg_database_size(current_database()) as size`;
    return { lsn: r?.lsn ?? '0/0', size: Number(r?.size ?? 0) };
  };

  const pgStart = new Map<number, number>();
  const pgLast = new Map<number, number>();
  for (const pid of await backends()) {
    const c = cpuSeconds(pid);
    if (c !== undefined) pgStart.set(pid, c);
  }
  const tablesStart = await tables();
  const walStart = await wal();
  const mainStart = cpuSeconds(serverPid, serverPid) ?? 0;
  const totalStart = cpuSeconds(serverPid) ?? 0;
  const t0 = performance.now();

  const sample = async () => {
    for (const pid of await backends()) {
      const c = cpuSeconds(pid);
      if (c !== undefined) pgLast.set(pid, c);
    }
  };

  return {
    sample,
    /** The costs since the probe started. Waits for Postgres to publish its table counters (flushed ≤ 1 s after a
     * backend goes idle) before reading them. */
    async stop(): Promise<Costs> {
      const wall_s = (performance.now() - t0) / 1000;
      const main = (cpuSeconds(serverPid, serverPid) ?? 0) - mainStart;
      const total = (cpuSeconds(serverPid) ?? 0) - totalStart;
      await sample();
      let pg = 0;
      for (const [pid, c] of pgLast) pg += c - (pgStart.get(pid) ?? 0);
      const walEnd = await wal();
      const [d] = await db<
        { bytes: string }[]
      >`select pg_wal_lsn_diff(${walEnd.lsn}, ${walStart.lsn}) as bytes`;
      await new Promise((r) => setTimeout(r, 1500));
      const tablesEnd = await tables();
      await db.end();
      const per: Record<string, number> = {};
      let rows = 0;
      let index_entries = 0;
      for (const [name, end] of tablesEnd) {
        const start = tablesStart.get(name) ?? { rows: 0, index_entries: 0 };
        const n = end.rows - start.rows;
        if (n) per[name] = n;
        rows += n;
        index_entries += end.index_entries - start.index_entries;
      }
      return {
        wall_s,
        main_cpu_s: main,
        other_threads_cpu_s: total - main,
        pg_cpu_s: pg,
        wal_bytes: Number(d?.bytes ?? 0),
        db_bytes: walEnd.size - walStart.size,
        rows,
        index_entries,
        tables: per,
      };
    },
  };
}
