import type { RunningWorker } from '../bus/jetstream.js';
import { traceMerge, traceNow } from '../flow-trace.js';
import type { Logger } from '../log.js';
import type { Sql } from './sql.js';

/**
 * GIN indexes (the trigram indexes on checks' and applicants' names, checks' datasets) take new entries into a
 * pending list, and merge it into the index when it passes `gin_pending_list_limit` (4 MB) — inside the statement of
 * the insert that crosses it. A sync flow adds ~370 bytes to each trigram index's list, so once every ~11,350 flows
 * one flow graph statement merged both lists in the foreground, and every flow of its group commit (and every flow
 * queued behind it) waited 230–580 ms (bench/history/2026-11-23-flows.md, "where a flow's Postgres wait goes").
 * Autovacuum would merge
 * them too, but only past its insert threshold (20 % of the table by default), and not at all where it is off.
 *
 * So the worker processes merge them in the background, on their own connection: every second they read how many
 * rows each table with a GIN index has taken (`pg_stat_user_tables.n_tup_ins`) and merge that table's GIN pending
 * lists once MERGE_AFTER_ROWS rows have arrived since the last merge (one table a tick) — about a third of what
 * fills 4 MB, so the list stays below the limit up to a few thousand flows a second (the counts lag up to ~1 s), and
 * no request pays for the merge. Merging by rows, not by time: a merge of fewer rows costs more a row (the same keys
 * are updated more often; every 1,400 rows cost +15 µs a row of Postgres CPU, every 4,000 rows nothing measurable).
 * `gin_clean_pending_list` does not block inserts (they append to the list meanwhile). Indexes the connection's role
 * does not own are skipped (the function requires ownership).
 */
export const MERGE_AFTER_ROWS = 4000;
export const GIN_CHECK_INTERVAL_MS = 1000;

const OWN_GIN_INDEXES = `
  select i.indexrelid, i.indrelid
  from pg_index i
  join pg_class c on c.oid = i.indexrelid
  join pg_am am on am.oid = c.relam
  where am.amname = 'gin' and c.relnamespace = to_regnamespace(current_schema())
    and pg_has_role(c.relowner, 'USAGE')`;

/** Merges the GIN pending lists of one table (`relid`), or of every table of the current schema (null), now;
 * returns the pages removed from the lists. */
async function mergePendingLists(sql: Sql, relid: string | null): Promise<number> {
  const [row] = await sql.unsafe<{ pages: number }[]>(
    `select coalesce(sum(gin_clean_pending_list(g.indexrelid::regclass)), 0)::int as pages
     from (${OWN_GIN_INDEXES}) g where $1::oid is null or g.indrelid = $1::oid`,
    [relid],
  );
  return row?.pages ?? 0;
}

/** Merges every GIN pending list of the current schema now; returns the pages removed from the lists. */
export const cleanGinPendingLists = (sql: Sql): Promise<number> => mergePendingLists(sql, null);

/** Merges the GIN pending lists of a table that took at least `afterRows` rows since this object last merged it (or
 * ever, the first time it looks) — one table a call, the one with most such rows; returns the pages removed. */
export class GinPendingMerger {
  private readonly mergedAt = new Map<string, number>();
  constructor(
    private readonly sql: Sql,
    private readonly afterRows = MERGE_AFTER_ROWS,
  ) {}

  async tick(): Promise<number> {
    const tables = await this.sql.unsafe<{ relid: string; inserted: string }[]>(
      `select s.relid::text as relid, s.n_tup_ins::text as inserted
       from pg_stat_user_tables s
       where s.relid in (select indrelid from (${OWN_GIN_INDEXES}) g)`,
    );
    // one table a tick, the one that took most rows since its last merge: merging applicants' and checks' lists back
    // to back held a core for 99 + 69 ms, and half the open loop's slowest flows arrived during that pair
    // (bench/history/2026-11-23-flows.md, "where the slow flows of the open loop wait"); the other waits for the next
    // tick
    let due: { relid: string; inserted: number; since: number } | undefined;
    for (const t of tables) {
      const inserted = Number(t.inserted);
      const last = this.mergedAt.get(t.relid) ?? 0;
      // a counter below the last one was reset (pg_stat_reset): count from zero
      const since = inserted >= last ? inserted - last : inserted;
      if (since >= this.afterRows && (!due || since > due.since)) due = { relid: t.relid, inserted, since };
    }
    if (!due) return 0;
    const start = traceNow();
    const pages = await mergePendingLists(this.sql, due.relid);
    traceMerge(start);
    this.mergedAt.set(due.relid, due.inserted);
    return pages;
  }
}

/** Runs a GinPendingMerger every `everyMs` (one run at a time) until stopped. A failure is logged and retried at the
 * next tick: the inserts' own merge at the limit remains the fallback. */
export function startGinPendingMerger(
  sql: Sql,
  log: Logger,
  opts: { everyMs?: number; afterRows?: number } = {},
): RunningWorker {
  const merger = new GinPendingMerger(sql, opts.afterRows);
  const everyMs = opts.everyMs ?? GIN_CHECK_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = () => {
    timer = setTimeout(tick, everyMs);
    timer.unref();
  };
  const tick = () => {
    running = merger
      .tick()
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err }, 'GIN pending-list merge failed'),
      )
      .finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
