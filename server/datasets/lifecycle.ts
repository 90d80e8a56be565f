import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { KV } from '@nats-io/kv';
import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';
import { consolidate } from '../../matcher/consolidate.js';
import { buildIndex, indexStats, serializeIndex } from '../../matcher/index.js';
import { type Bus, type RunningWorker, runWorker } from '../bus/jetstream.js';
import { STATE_KEYS, type Watch, watchKey } from '../bus/state-kv.js';
import { json, type Sql, transaction } from '../db/sql.js';
import type { Logger } from '../log.js';
import { forgetOtherVersions, type Metrics } from '../metrics.js';
import { writeEvent } from '../outbox/outbox.js';
import { DEMO_DATASET_DIR } from '../paths.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import {
  activeVersion,
  artifactKey,
  consolidationStats,
  createVersion,
  type DatasetDeps,
  type DatasetStats,
  getVersion,
  loadVersionIndex,
  type SourceSpec,
  storeLinks,
  type VersionRow,
} from './dataset-store.js';
import { checksumPath, localSource, SourceError } from './source-fetch.js';

/**
 * The dataset version lifecycle, in one place (docs/decisions/datasets.md). Postgres is the source of
 * truth; NATS only carries hints and jobs, and every hint has a reconciler behind it.
 *
 *   (create)               → building   POST /admin/dataset_versions, `ingest`, the demo loader, list feeds
 *   building  → ready       build: parse every source, store entities, upload the index artifact
 *   building  → failed      a permanent failure (a corrupt source: its file:line), or a transient one (S3,
 *                           Postgres) that outlived the build job's retries
 *   ready     → active      promote: one transaction (the previous active version retires, a promotion row and the
 *                           dataset_version.promoted event are written)
 *   active    → ready       retire: done by the next promotion (retired_at set); promoting it again is the rollback
 *   failed: terminal
 *
 * After a promotion commits:
 *   announce   a KV put of dataset.active (the fast path) and the promotion's monitor-delta job. Either may be lost
 *              (crash, NATS error): the promotion row keeps the delta job owed until it is published, and…
 *   activate   …every process runs a reconciler (DATASET_RECONCILE_MS) that compares the version it serves with the
 *              active one and loads it, so a lost announcement heals by itself within seconds. Activation also
 *              drops the matcher metrics of versions this process no longer serves.
 */
export type VersionStatus = VersionRow['status'];
export type LifecycleEvent = 'built' | 'fail' | 'promote' | 'retire';

const MACHINE: Record<VersionStatus, Partial<Record<LifecycleEvent, VersionStatus>>> = {
  building: { built: 'ready', fail: 'failed' },
  ready: { promote: 'active' },
  active: { retire: 'ready' },
  failed: {},
};

/** The status `event` leads to from `from`, or undefined when the machine does not allow it. */
export function nextStatus(from: VersionStatus, event: LifecycleEvent): VersionStatus | undefined {
  return MACHINE[from][event];
}

export interface LifecycleDeps extends DatasetDeps {
  kv: KV;
  bus: Bus;
  log: Logger;
}

// ─── build ──────────────────────────────────────────────────────────────────────────────────────────────────────

const INSERT_BATCH = 1000;
const FIRST_ISSUES_KEPT = 20;

/** A build that can never succeed (the version fails with this message). Everything else is retried. */
export class BuildError extends Error {
  override name = 'BuildError';
}

/** A version that parsed but failed its caller's validation (e.g. a feed's shrink limit). */
export class RefusedError extends BuildError {
  override name = 'RefusedError';
}

export const isPermanent = (err: unknown) => err instanceof BuildError || err instanceof SourceError;

const where = (i: IngestIssue) => `${i.file}:${i.line}${i.field ? ` [${i.field}]` : ''}`;

/** Parses every source of a building version, stores its entities (and, with `validate`, refuses it on the
 * caller's rule), builds and uploads the index artifact and marks
 * it ready. A permanent failure (BuildError/SourceError: a corrupt or missing source) marks it failed with the
 * offending file:line and is rethrown; a transient one (S3, Postgres, network) leaves it building and is rethrown
 * for the caller to retry. Idempotent: a finished version is returned as it is; a half-built one starts again. */
export async function buildVersion(
  deps: DatasetDeps,
  versionId: string,
  opts: {
    validate?: (stats: DatasetStats) => string | undefined;
    /** called every few hundred entities and at each phase (the CLI's progress bar) */
    onProgress?: (p: { phase: 'reading' | 'indexing' | 'storing'; entities: number }) => void;
  } = {},
): Promise<VersionRow> {
  const { sql, store } = deps;
  const version = await getVersion(sql, versionId);
  if (!version) throw new BuildError(`dataset version ${versionId} not found`);
  if (nextStatus(version.status, 'built') === undefined) return version;
  const started = performance.now();
  const stats: DatasetStats = {
    entities: 0,
    names: 0,
    by_schema: {},
    by_dataset: {},
    by_source: {},
    by_uri: {},
    scripts: {},
    issues: 0,
    first_issues: [],
    checksum: '',
    index_bytes: 0,
    build_ms: 0,
  };
  const onIssue = (i: IngestIssue) => {
    stats.issues++;
    if (stats.first_issues.length < FIRST_ISSUES_KEPT) stats.first_issues.push(i);
  };
  const entities: Entity[] = [];
  const seen = new Set<string>();
  const checksums: string[] = [];
  try {
    await sql`delete from dataset_entities where version_id = ${versionId}`;
    let batch: Record<string, unknown>[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await sql`insert into dataset_entities ${sql(batch)}`;
      batch = [];
    };
    for (const src of version.sources) {
      const local = await localSource(src.uri, store);
      try {
        checksums.push(`${src.format}:${await checksumPath(local.path)}`);
        let fromSource = 0;
        const issuesBefore = stats.issues;
        const firstIssueAt = stats.first_issues.length;
        // reader errors are the source's fault (permanent); errors of our own writes below are transient
        let reader: AsyncIterator<Entity>;
        try {
          reader = readSource(src.format, local.path, onIssue)[Symbol.asyncIterator]();
        } catch (err) {
          throw new SourceError(`source ${src.format} ${src.uri}: ${(err as Error).message}`);
        }
        for (;;) {
          let step: IteratorResult<Entity>;
          try {
            step = await reader.next();
          } catch (err) {
            const last = stats.first_issues[stats.first_issues.length - 1];
            throw new SourceError(
              `source ${src.format} ${src.uri} cannot be read: ${(err as Error).message}${last ? ` (last issue at ${where(last)})` : ''}`,
            );
          }
          if (step.done) break;
          const e = step.value;
          if (seen.has(e.entity_id)) {
            onIssue({
              file: src.uri,
              line: 0,
              field: 'entity_id',
              message: `duplicate entity ${e.entity_id}: later one skipped`,
            });
            continue;
          }
          seen.add(e.entity_id);
          fromSource++;
          entities.push(e);
          stats.entities++;
          stats.names += e.names.length;
          stats.by_schema[e.schema] = (stats.by_schema[e.schema] ?? 0) + 1;
          stats.by_source[e.source] = (stats.by_source[e.source] ?? 0) + 1;
          for (const d of e.datasets) stats.by_dataset[d] = (stats.by_dataset[d] ?? 0) + 1;
          for (const n of e.names) {
            const script = n.script ?? 'Zyyy';
            stats.scripts[script] = (stats.scripts[script] ?? 0) + 1;
          }
          batch.push({ version_id: versionId, entity_id: e.entity_id, data: json(sql, e) });
          if (batch.length >= INSERT_BATCH) {
            await flush();
            opts.onProgress?.({ phase: 'reading', entities: stats.entities });
          }
        }
        if (stats.by_uri) stats.by_uri[src.uri] = fromSource;
        // a file that yields nothing, or more bad rows than good ones, is corrupt: fail rather than serve half a list
        const bad = stats.issues - issuesBefore;
        if (fromSource === 0 || bad > fromSource) {
          const first = stats.first_issues[firstIssueAt];
          throw new BuildError(
            `source ${src.format} ${src.uri} is unusable: ${fromSource} entities parsed, ${bad} bad rows${first ? ` (first: ${where(first)} ${first.message})` : ''}`,
          );
        }
      } finally {
        await local.cleanup();
      }
    }
    await flush();
    // a caller's acceptance rule (list feeds: a list that shrank too much) fails the version before it is ready
    const refusal = opts.validate?.(stats);
    if (refusal) throw new RefusedError(refusal);
    opts.onProgress?.({ phase: 'indexing', entities: stats.entities });
    // entries of different sources that are the same entity, linked and stored with the version
    const consolidation = consolidate(entities);
    await storeLinks(sql, versionId, consolidation);
    stats.consolidation = consolidationStats(consolidation);
    const index = buildIndex(entities, versionId, consolidation.clusterOf);
    const artifact = serializeIndex(index);
    opts.onProgress?.({ phase: 'storing', entities: stats.entities });
    await store.put(artifactKey(versionId), artifact);
    stats.index_bytes = artifact.length;
    stats.checksum = createHash('sha256').update(checksums.join('\n')).digest('hex');
    stats.build_ms = Math.round(performance.now() - started);
    const [row] = await sql<VersionRow[]>`
      update dataset_versions set status = 'ready', ready_at = now(), artifact_key = ${artifactKey(versionId)},
        checksum = ${stats.checksum}, stats = ${json(sql, stats)}, error = null
      where id = ${versionId} and status = 'building'
      returning *`;
    return row ?? (await getVersion(sql, versionId)) ?? version;
  } catch (err) {
    if (isPermanent(err)) await markFailed(sql, versionId, err);
    throw err;
  }
}

/** building → failed with the reason; its entities go (a failed version is never promoted). */
export async function markFailed(sql: Sql, versionId: string, err: unknown): Promise<void> {
  await sql`
    update dataset_versions set status = 'failed', error = ${(err as Error).message ?? String(err)}
    where id = ${versionId} and status = 'building'`;
  await sql`delete from dataset_entities where version_id = ${versionId}`;
  await sql`delete from dataset_entity_links where version_id = ${versionId}`;
}

/** A version to be built by a worker (POST /admin/dataset_versions): committed owing its dataset_build job, which is
 * published now or, if that fails, by the reconciler. */
export async function requestBuild(
  deps: Pick<LifecycleDeps, 'sql' | 'bus' | 'log'>,
  opts: { name: string; sources: SourceSpec[]; notes?: string | undefined },
): Promise<VersionRow> {
  const v = await createVersion(deps.sql, { ...opts, build_job_owed: true });
  await queueBuild(deps, v.id).catch((err: unknown) =>
    deps.log.warn({ err, version: v.id }, 'dataset build job not queued yet; the reconciler will'),
  );
  return v;
}

async function queueBuild(deps: Pick<LifecycleDeps, 'sql' | 'bus'>, versionId: string): Promise<void> {
  await deps.bus.publishJob('dataset_build', { version_id: versionId }, `dataset_build:${versionId}`);
  await deps.sql`update dataset_versions set build_job_owed = false where id = ${versionId}`;
}

/** Publishes the build jobs of versions requested at least `grace_ms` ago whose job never was. */
export async function queueOwedBuilds(
  deps: Pick<LifecycleDeps, 'sql' | 'bus'>,
  grace_ms = 2000,
): Promise<number> {
  const owed = await deps.sql<{ id: string }[]>`
    select id from dataset_versions
    where build_job_owed and status = 'building' and created_at < now() - make_interval(secs => ${grace_ms / 1000})
    order by seq limit 100`;
  for (const v of owed) await queueBuild(deps, v.id);
  return owed.length;
}

/** Builds dataset versions queued by POST /admin/dataset_versions (and list feeds) on whichever worker takes the
 * job. Permanent failures are final at once; transient ones are retried with backoff_ms, then the version fails. */
export function startDatasetBuildWorker(
  deps: DatasetDeps & { bus: Bus; log: Logger; metrics: Metrics; backoff_ms: number[] },
): Promise<RunningWorker> {
  const max_deliver = deps.backoff_ms.length + 1;
  return runWorker<{ version_id: string }>(deps.bus, deps.log, {
    kind: 'dataset_build',
    max_deliver,
    backoff_ms: deps.backoff_ms,
    jitter: 0.1,
    ack_wait_ms: 60_000,
    concurrency: 1,
    async handle({ version_id }, { attempt, log }) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const v = await buildVersion(deps, version_id);
        deps.metrics.buildDuration.observe({ status: v.status }, seconds());
        log.info({ status: v.status, stats: { entities: v.stats.entities } }, 'dataset version built');
      } catch (err) {
        if (isPermanent(err)) {
          // the version is failed with the offending source and line: a retry cannot help
          deps.metrics.buildDuration.observe({ status: 'failed' }, seconds());
          log.warn({ err }, 'dataset version build failed');
          return;
        }
        // visible to admins while the job waits for its retry; cleared when the build succeeds
        await deps.sql`
          update dataset_versions
          set error = ${`attempt ${attempt} of ${max_deliver} failed (will retry): ${(err as Error).message}`}
          where id = ${version_id} and status = 'building'`.catch(() => {});
        throw err;
      }
    },
    async onGiveUp({ version_id }, err) {
      await markFailed(
        deps.sql,
        version_id,
        new Error(`gave up after ${max_deliver} attempts: ${(err as Error).message ?? String(err)}`),
      );
    },
  });
}

// ─── promote, announce ──────────────────────────────────────────────────────────────────────────────────────────

export class PromoteError extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_ready',
    message: string,
  ) {
    super(message);
  }
}

export interface Promotion {
  version: VersionRow;
  /** the version retired by this promotion (null: none was active, or it was already active) */
  previous_id: string | null;
  /** the promotion row that owes a monitor-delta job (null when nothing changed hands) */
  promotion_id: string | null;
}

/** ready → active in one transaction: the active version retires, a promotion row (which owes the monitor-delta
 * job) and the deployment-wide dataset_version.promoted event are written. Promoting the active version is a no-op.
 * Announces nothing: use promote() — exported for tests that simulate a crash right after this commit. */
export async function commitPromotion(sql: Sql, versionId: string): Promise<Promotion> {
  return transaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(7351002)`;
    const [v] = await tx<VersionRow[]>`select * from dataset_versions where id = ${versionId} for update`;
    if (!v) throw new PromoteError('not_found', `dataset version ${versionId} not found`);
    if (v.status === 'active') return { version: v, previous_id: null, promotion_id: null };
    if (nextStatus(v.status, 'promote') !== 'active') {
      throw new PromoteError(
        'not_ready',
        `dataset version ${versionId} is ${v.status}; only a ready version can be promoted`,
      );
    }
    const [previous] = await tx<{ id: string }[]>`
      update dataset_versions set status = 'ready', retired_at = now() where status = 'active' returning id`;
    const [row] = await tx<VersionRow[]>`
      update dataset_versions set status = 'active', promoted_at = now(), retired_at = null
      where id = ${versionId} returning *`;
    if (!row) throw new Error('promote update returned nothing');
    let promotion_id: string | null = null;
    if (previous) {
      // monitors are rescreened against what changed between the two versions, not against the whole list
      const [p] = await tx<{ id: string }[]>`
        insert into dataset_promotions (from_version, to_version) values (${previous.id}, ${row.id}) returning id`;
      promotion_id = p?.id ?? null;
    }
    // a global event (no tenant): every endpoint subscribed to it hears of the promotion
    await writeEvent(tx, null, 'dataset_version.promoted', row.id, {
      dataset_version_id: row.id,
      name: row.name,
      promoted_at: row.promoted_at?.toISOString() ?? null,
    });
    return { version: row, previous_id: previous?.id ?? null, promotion_id };
  });
}

/** Tells every process now (KV) and queues the promotion's monitor-delta job. Failures are logged, not thrown: the
 * promotion is committed, and the reconcilers finish what this could not. */
export async function announcePromotion(
  deps: Pick<LifecycleDeps, 'sql' | 'kv' | 'bus' | 'log'>,
  p: Promotion,
): Promise<void> {
  try {
    await deps.kv.put(STATE_KEYS.active_dataset, p.version.id);
  } catch (err) {
    deps.log.warn(
      { err, version: p.version.id },
      'promotion announcement failed; processes reconcile by polling',
    );
  }
  if (p.promotion_id) {
    await queueDelta(deps, {
      id: p.promotion_id,
      from_version: p.previous_id,
      to_version: p.version.id,
    }).catch((err: unknown) =>
      deps.log.warn(
        { err, promotion: p.promotion_id },
        'monitor-delta job not queued yet; the reconciler will',
      ),
    );
  }
}

/** Promote and announce: the one path for the admin API, `ingest --promote`, the demo loader and list feeds. */
export async function promote(deps: LifecycleDeps, versionId: string): Promise<Promotion> {
  const p = await commitPromotion(deps.sql, versionId);
  await announcePromotion(deps, p);
  return p;
}

interface PromotionRow {
  id: string;
  from_version: string | null;
  to_version: string;
}

async function queueDelta(deps: Pick<LifecycleDeps, 'sql' | 'bus'>, p: PromotionRow): Promise<void> {
  // msgID dedup: a second publish of the same promotion's job (reconciler racing the promoter) is stored once
  await deps.bus.publishJob(
    'monitor_delta',
    { from: p.from_version, to: p.to_version },
    `monitor_delta:${p.id}`,
  );
  await deps.sql`update dataset_promotions set delta_queued_at = now() where id = ${p.id}`;
}

/** Publishes the monitor-delta jobs of promotions committed at least `grace_ms` ago whose job never was (a crash or
 * a NATS error after the commit). Returns how many. */
export async function queueOwedDeltas(
  deps: Pick<LifecycleDeps, 'sql' | 'bus'>,
  grace_ms = 2000,
): Promise<number> {
  const owed = await deps.sql<PromotionRow[]>`
    select id, from_version, to_version from dataset_promotions
    where delta_queued_at is null and promoted_at < now() - make_interval(secs => ${grace_ms / 1000})
    order by seq limit 100`;
  for (const p of owed) await queueDelta(deps, p);
  return owed.length;
}

/** Create, build in this process and (optionally) promote — `bin/veriscreen ingest`, the demo loader and tests. */
export async function ingestVersion(
  deps: LifecycleDeps,
  opts: { name: string; sources: SourceSpec[]; notes?: string; promote?: boolean },
): Promise<{ version: VersionRow; promoted: boolean }> {
  const created = await createVersion(deps.sql, opts);
  let version = await buildVersion(deps, created.id);
  if (opts.promote) version = (await promote(deps, created.id)).version;
  return { version, promoted: !!opts.promote };
}

/** Development: the fictional demo list, built and promoted when no version is active. Resolves it when loaded. */
export async function loadDemoDataset(deps: LifecycleDeps): Promise<VersionRow | undefined> {
  if (await activeVersion(deps.sql)) return undefined;
  const res = await ingestVersion(deps, {
    name: 'demo (fictional entries)',
    sources: [{ format: 'ofac_sdn_csv', uri: pathToFileURL(DEMO_DATASET_DIR).toString() }],
    notes: 'Fictional demo list shipped with Veriscreen; load real lists with `bin/veriscreen ingest`',
    promote: true,
  });
  return res.version;
}

// ─── activate (every process) ───────────────────────────────────────────────────────────────────────────────────

/** Keeps this process's matcher on the active version: loads it at start, on every KV announcement, and on each
 * reconciler tick that finds it serving something else. Loads are serialised, so two promotions in quick
 * succession end on the newest, never interleaved. */
export class DatasetActivation {
  private loading: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private watch: Watch | undefined;
  private stopped = false;
  private lastError: string | undefined;

  constructor(private readonly deps: DatasetDeps & { pool: MatcherPool; metrics: Metrics; log: Logger }) {}

  /** Loads the active version (no-op when none is active or it is loaded already); resolves its id. */
  async loadActive(): Promise<string | undefined> {
    const v = await activeVersion(this.deps.sql);
    if (!v) {
      this.deps.log.warn('no active dataset version: screening is unavailable until one is promoted');
      return undefined;
    }
    await this.load(v.id);
    return v.id;
  }

  load(versionId: string): Promise<void> {
    const { pool, metrics, log } = this.deps;
    const next = this.loading.then(async () => {
      if (pool.version === versionId) return;
      const started = performance.now();
      if (!pool.activate(versionId)) {
        const index = await loadVersionIndex(this.deps, versionId);
        await pool.load(index);
        metrics.indexBytes.set(indexStats(index).bytes);
      }
      const seconds = (performance.now() - started) / 1000;
      metrics.swapDuration.observe(seconds);
      metrics.activeVersion.reset();
      metrics.activeVersion.set({ version: versionId }, 1);
      // series of versions this process no longer serves go: labels must not grow with every promotion
      await forgetOtherVersions(metrics, versionId);
      log.info(
        { version: versionId, ms: Math.round(seconds * 1000) },
        'dataset version active in this process',
      );
    });
    this.loading = next.catch(() => {});
    return next;
  }

  /** Watches the KV announcement and starts the reconciler; `owesJobs` (worker roles) also publishes owed
   * build and monitor-delta jobs on each tick. */
  async start(opts: { kv: KV; bus: Bus; interval_ms: number; owesJobs: boolean }): Promise<void> {
    const { sql, log } = this.deps;
    // the KV value is a hint; Postgres says which version is active now
    this.watch = await watchKey(opts.kv, STATE_KEYS.active_dataset, log, async () => {
      await this.loadActive();
    });
    const tick = async () => {
      try {
        const [active] = await sql<{ id: string }[]>`select id from dataset_versions where status = 'active'`;
        if (active && active.id !== this.deps.pool.version) {
          log.info(
            { version: active.id },
            'reconciler: this process serves another version than the active one',
          );
          await this.load(active.id);
        }
        if (opts.owesJobs) {
          await queueOwedBuilds({ sql, bus: opts.bus });
          await queueOwedDeltas({ sql, bus: opts.bus });
        }
        this.lastError = undefined;
      } catch (err) {
        const msg = (err as Error).message;
        if (msg !== this.lastError) log.warn({ err }, 'dataset reconciler pass failed; retrying');
        this.lastError = msg;
      }
    };
    const loop = () => {
      this.timer = setTimeout(() => {
        this.pass = tick().finally(() => {
          if (!this.stopped) loop();
        });
      }, opts.interval_ms);
      this.timer.unref();
    };
    loop();
  }

  /** Stops watching and reconciling; resolves when a load in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.stop();
    await this.pass;
    await this.loading;
  }
}
