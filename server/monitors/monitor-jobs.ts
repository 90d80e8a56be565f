import type { Entity } from '../../ingest/entity.js';
import { clustersFrom } from '../../matcher/consolidate.js';
import { buildIndex, openIndex } from '../../matcher/index.js';
import type { Bus, RunningWorker } from '../bus/jetstream.js';
import { runWorker } from '../bus/jetstream.js';
import type { Screener } from '../checks/check-type.js';
import { type AmlScreenRequest, screenAml } from '../checks/types/aml-screen.js';
import { publicFailureReason } from '../db/pg-errors.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { type CheckPolicy, checkPolicyFor } from '../policy/check-policy.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import { poolScreener } from '../screening/pool-screener.js';
import { toScreenSubject } from '../screening/subject.js';
import { refundAllowance, tryConsumeAllowance } from '../tenants/allowance.js';
import { recordMonitorCheck } from './monitor-runner.js';
import type { MonitorRow } from './monitor-store.js';

export interface MonitorDeps {
  sql: Sql;
  bus: Bus;
  pool: MatcherPool;
  metrics: Metrics;
  log: Logger;
}

/** A full rescreen of one monitor against the active version (scheduled runs and run_immediately). */
export async function runMonitor(deps: MonitorDeps, monitorId: string): Promise<void> {
  const [m] = await deps.sql<MonitorRow[]>`select * from monitors where id = ${monitorId}`;
  if (m?.status !== 'active') return;
  const policy = await checkPolicyFor(deps.sql, m.tenant_id);
  const outcome = await screenAml(poolScreener(deps.pool, deps.metrics), monitorScreen(m, policy));
  await recordMonitorCheck(deps.sql, m, outcome, policy);
}

const monitorScreen = (m: MonitorRow, policy: CheckPolicy): AmlScreenRequest => ({
  subjects: m.subjects.map(toScreenSubject),
  datasets: m.datasets,
  policy: policy.aml_match_policy,
  use_case: m.use_case,
});

/** One self-serve unit for a scheduled run, taken when the run is claimed (so a redelivered job is not charged
 * twice). False when a self-serve tenant has none left; contract tenants are not metered. */
export function chargeScheduledRun(sql: Sql, tenantId: string): Promise<boolean> {
  return tryConsumeAllowance(sql, tenantId);
}

export const ALLOWANCE_EXHAUSTED_REASON =
  'allowance_exhausted: the self-serve allowance of checks is used up; resume the monitor once it is raised';

/** Claims due monitors (each exactly once, whichever process claims it) and queues their runs. A self-serve
 * tenant's run takes one allowance unit here; with none left the monitor becomes failed (failure_reason
 * allowance_exhausted) instead of running unpaid. */
export async function claimDue(deps: Pick<MonitorDeps, 'sql' | 'bus'>, limit = 200): Promise<number> {
  const due = await deps.sql<{ id: string; tenant_id: string; due: Date }[]>`
    update monitors m set next_due_at = now() + make_interval(hours => m.interval_hours), updated_at = now()
    from (
      select id, next_due_at from monitors
      where status = 'active' and next_due_at <= now()
      order by next_due_at limit ${limit} for update skip locked
    ) d
    where m.id = d.id
    returning m.id, m.tenant_id, d.next_due_at as due`;
  for (const d of due) {
    if (!(await chargeScheduledRun(deps.sql, d.tenant_id))) {
      await deps.sql`
        update monitors set status = 'failed', failure_reason = ${ALLOWANCE_EXHAUSTED_REASON}, updated_at = now()
        where id = ${d.id} and status = 'active'`;
      continue;
    }
    await deps.bus.publishJob(
      'monitor_run',
      { monitor_id: d.id, tenant_id: d.tenant_id },
      `monitor_run:${d.id}:${d.due.toISOString()}`,
    );
  }
  return due.length;
}

/** A version's consolidated entities from its stored links: entity id → consolidated id, and consolidated id → its
 * entries (sorted). Entries linked to none are in neither. */
async function storedClusters(
  sql: Sql,
  versionId: string | null,
): Promise<{ clusterOf: Map<string, string>; members: Map<string, string[]> }> {
  const links =
    versionId === null
      ? []
      : await sql<{ a: string; b: string }[]>`
          select entity_a as a, entity_b as b from dataset_entity_links where version_id = ${versionId} order by seq`;
  const ids = new Set(links.flatMap((l) => [l.a, l.b]));
  // an entity id is `${source}:${source_id}` (ingest/entity.ts)
  const entries = [...ids].map((id) => ({ entity_id: id, source: id.slice(0, id.indexOf(':')) }));
  const clusterOf = clustersFrom(entries, links);
  const members = new Map<string, string[]>();
  for (const [id, cid] of clusterOf) members.set(cid, [...(members.get(cid) ?? []), id]);
  for (const m of members.values()) m.sort();
  return { clusterOf, members };
}

/** The entries to rescreen after a promotion, per consolidated entity: every entry whose list data was added or
 * changed, with every other entry of its consolidated entity, and every entry whose grouping changed (it joined,
 * left or changed entity). */
export function deltaEntries(
  changedIds: ReadonlySet<string>,
  before: { clusterOf: Map<string, string>; members: Map<string, string[]> },
  after: { clusterOf: Map<string, string>; members: Map<string, string[]> },
): Set<string> {
  const out = new Set(changedIds);
  const groupOf = (c: typeof before, id: string) => {
    const cid = c.clusterOf.get(id);
    return cid === undefined ? id : (c.members.get(cid) ?? [id]).join(',');
  };
  for (const ids of after.members.values()) {
    const moved = ids.some((id) => changedIds.has(id) || groupOf(before, id) !== groupOf(after, id));
    if (moved) for (const id of ids) out.add(id);
  }
  // entries that were grouped before and are no longer: each is its own entity now
  for (const id of before.clusterOf.keys()) if (!after.clusterOf.has(id)) out.add(id);
  return out;
}

/** On promotion: screens every active monitor against only the consolidated entities added or changed between the
 * two versions (a small index of their entries built here, grouped as the new version groups them), records a check
 * where something hits, and marks every monitor as screened against the new version. Resumable: monitors already at
 * the new version are skipped on a redelivery. */
export async function rescreenDelta(
  deps: MonitorDeps,
  from: string | null,
  to: string,
): Promise<{ changed: number; hits: number }> {
  const { sql } = deps;
  const changedIds = new Set<string>();
  await sql<{ entity_id: string }[]>`
    select b.entity_id from dataset_entities b
    where b.version_id = ${to}
      and not exists (
        select 1 from dataset_entities a
        where a.version_id = ${from ?? '00000000-0000-0000-0000-000000000000'} and a.entity_id = b.entity_id and a.data = b.data
      )`.cursor(1000, (rows) => {
    for (const r of rows) changedIds.add(r.entity_id);
  });
  const [before, grouped] = await Promise.all([storedClusters(sql, from), storedClusters(sql, to)]);
  const wanted = deltaEntries(changedIds, before, grouped);
  const changed: Entity[] = [];
  if (wanted.size > 0)
    await sql<{ data: Entity }[]>`
      select data from dataset_entities
      where version_id = ${to} and entity_id = any(${[...wanted].sort()}::text[]) order by entity_id`.cursor(
      1000,
      (rows) => {
        for (const r of rows) changed.push(r.data);
      },
    );
  let hits = 0;
  if (changed.length === 0) {
    await sql`update monitors set last_dataset_partition = ${to} where status = 'active'`;
    return { changed: 0, hits };
  }
  const screener = openIndex(buildIndex(changed, to, grouped.clusterOf));
  const local: Screener = async (subject, options) => screener.screen(subject, options);
  const policies = new Map<string, CheckPolicy>();
  let after = '0';
  for (;;) {
    const page = await sql<MonitorRow[]>`
      select * from monitors
      where status = 'active' and seq > ${after} and last_dataset_partition is distinct from ${to}
      order by seq limit 500`;
    if (!page.length) break;
    for (const m of page) {
      let policy = policies.get(m.tenant_id);
      if (!policy) {
        policy = await checkPolicyFor(sql, m.tenant_id);
        policies.set(m.tenant_id, policy);
      }
      const outcome = await screenAml(local, monitorScreen(m, policy));
      if (outcome.result === 'hit') {
        hits++;
        await recordMonitorCheck(sql, m, outcome, policy, { from, to });
      }
    }
    await sql`
      update monitors set last_dataset_partition = ${to}, last_checked_at = now(), updated_at = now()
      where id in ${sql(page.map((m) => m.id))} and last_dataset_partition is distinct from ${to}`;
    after = page[page.length - 1]?.seq ?? after;
  }
  return { changed: changed.length, hits };
}

export async function startMonitorWorkers(
  deps: MonitorDeps,
  scheduler_interval_ms = 1000,
): Promise<RunningWorker> {
  const run = await runWorker<{ monitor_id: string }>(deps.bus, deps.log, {
    kind: 'monitor_run',
    max_deliver: 5,
    backoff_ms: [1_000, 5_000, 30_000, 120_000],
    jitter: 0.2,
    ack_wait_ms: 30_000,
    concurrency: 4,
    handle: ({ monitor_id }, { log }) => runMonitor({ ...deps, log }, monitor_id),
    async onGiveUp({ monitor_id }, err) {
      // the reason is for the tenant: raw Postgres messages (table and constraint names) stay in the log
      const [m] = await deps.sql<{ tenant_id: string; applicant_id: string | null }[]>`
        select tenant_id, applicant_id from monitors where id = ${monitor_id}`;
      if (!m) return;
      await deps.sql`
        update monitors set failure_reason = ${publicFailureReason(err, m)}, updated_at = now()
        where id = ${monitor_id}`;
      // a run that never recorded its check costs nothing (its unit was taken when it was claimed or created)
      await refundAllowance(deps.sql, m.tenant_id);
    },
  });
  const delta = await runWorker<{ from: string | null; to: string }>(deps.bus, deps.log, {
    kind: 'monitor_delta',
    max_deliver: 5,
    backoff_ms: [2_000, 10_000, 60_000, 300_000],
    ack_wait_ms: 60_000,
    concurrency: 1,
    async handle({ from, to }, { log }) {
      const r = await rescreenDelta({ ...deps, log }, from, to);
      log.info({ from, to, ...r }, 'monitors rescreened against the promotion delta');
    },
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<unknown> = Promise.resolve();
  const tick = () => {
    pass = claimDue(deps)
      .catch((err: unknown) => deps.log.warn({ err }, 'monitor scheduler pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, scheduler_interval_ms);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
      await Promise.all([run.stop(), delta.stop()]);
    },
  };
}
