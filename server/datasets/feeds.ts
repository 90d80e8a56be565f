import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { rootCertificates } from 'node:tls';
import type { DatasetFeedOut } from '../../schemas/feeds.js';
import { type RunningWorker, runWorker } from '../bus/jetstream.js';
import type { Sql } from '../db/sql.js';
import {
  activeVersion,
  createVersion,
  type DatasetStats,
  getVersion,
  type VersionRow,
} from './dataset-store.js';
import {
  buildVersion,
  isPermanent,
  type LifecycleDeps,
  markFailed,
  promote,
  RefusedError,
} from './lifecycle.js';
import { checksumPath, localSource, SourceError } from './source-fetch.js';

/**
 * List feeds: a source fetched on a schedule and fed into the dataset lifecycle.
 *
 *   scheduler (worker processes, every FEED_SCHEDULER_MS): claims due feeds with FOR UPDATE SKIP LOCKED (each due
 *     run is claimed by one process) and queues a dataset_feed job
 *   job: fetch (https: If-None-Match / If-Modified-Since; 304 or the same bytes → unchanged, no version)
 *     → build a version from a snapshot of the content (https: stored in S3 under feeds/<feed>/<sha256>/)
 *     → validate (did not parse → failed with file:line; shrank by more than max_shrink_fraction → refused)
 *     → promote per the feed's policy (auto) or leave it ready (manual); promotion is the lifecycle's one path, so
 *       every process activates it and monitors rescreen the delta.
 * A transient failure (network, S3, Postgres, HTTP 5xx) retries the job; the version it started is resumed.
 */
export interface FeedRow {
  id: string;
  seq: string;
  name: string;
  format: string;
  uri: string;
  interval_minutes: number;
  promote: 'auto' | 'manual';
  max_shrink_fraction: number;
  enabled: boolean;
  etag: string | null;
  last_modified: string | null;
  content_sha256: string | null;
  next_due_at: Date;
  last_checked_at: Date | null;
  last_status: DatasetFeedOut['last_status'];
  last_error: string | null;
  last_version_id: string | null;
  last_source_uri: string | null;
  last_entities: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface FeedDeps extends LifecycleDeps {
  /** extra CA certificates (PEM) trusted for https feeds */
  extraCa?: string | undefined;
  maxBytes: number;
}

export function feedOut(f: FeedRow): DatasetFeedOut {
  return {
    id: f.id,
    name: f.name,
    format: f.format,
    uri: f.uri,
    interval_minutes: f.interval_minutes,
    promote: f.promote,
    max_shrink_fraction: f.max_shrink_fraction,
    enabled: f.enabled,
    etag: f.etag,
    last_modified: f.last_modified,
    next_due_at: f.next_due_at.toISOString(),
    last_checked_at: f.last_checked_at?.toISOString() ?? null,
    last_status: f.last_status,
    last_error: f.last_error,
    last_version_id: f.last_version_id,
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}

/** Formats whose source is a folder of files: they cannot be one https download. */
export const DIRECTORY_FORMATS: readonly string[] = ['ofac_sdn_csv', 'ofac_cons_csv', 'uk_csv'];

type Fetched =
  | { changed: false; etag: string | null; last_modified: string | null }
  | { changed: true; uri: string; sha256: string; etag: string | null; last_modified: string | null };

/** GET with the feed's validators; streams the body to a file while hashing it. */
function conditionalGet(
  feed: FeedRow,
  deps: FeedDeps,
  target: string,
): Promise<{ status: number; sha256?: string; etag: string | null; last_modified: string | null }> {
  const url = new URL(feed.uri);
  const headers: Record<string, string> = { 'user-agent': 'veriscreen-feed/1' };
  if (feed.etag) headers['if-none-match'] = feed.etag;
  if (feed.last_modified) headers['if-modified-since'] = feed.last_modified;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      {
        headers,
        timeout: 60_000,
        ...(url.protocol === 'https:' && deps.extraCa ? { ca: [...rootCertificates, deps.extraCa] } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const etag = (res.headers.etag as string | undefined) ?? null;
        const last_modified = (res.headers['last-modified'] as string | undefined) ?? null;
        if (status !== 200) {
          res.resume();
          resolve({ status, etag, last_modified });
          return;
        }
        const hash = createHash('sha256');
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          hash.update(chunk);
          if (bytes > deps.maxBytes) res.destroy(new SourceError(`feed larger than ${deps.maxBytes} bytes`));
        });
        pipeline(res, createWriteStream(target)).then(
          () => resolve({ status, sha256: hash.digest('hex'), etag, last_modified }),
          reject,
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`feed download timed out: ${feed.uri}`)));
    req.on('error', reject);
  });
}

async function fetchFeed(deps: FeedDeps, feed: FeedRow): Promise<Fetched> {
  if (/^https?:\/\//.test(feed.uri)) {
    const dir = await mkdtemp(join(tmpdir(), 'veriscreen-feed-'));
    try {
      const file = join(dir, basename(new URL(feed.uri).pathname) || 'feed');
      const res = await conditionalGet(feed, deps, file);
      if (res.status === 304) return { changed: false, etag: feed.etag, last_modified: feed.last_modified };
      if (res.status !== 200 || !res.sha256) {
        const msg = `feed download of ${feed.uri} answered HTTP ${res.status}`;
        // 5xx may recover (retry the job); anything else (4xx, a redirect we do not follow) is the feed's problem
        throw res.status >= 500 ? new Error(msg) : new SourceError(msg);
      }
      if (res.sha256 === feed.content_sha256) {
        return { changed: false, etag: res.etag, last_modified: res.last_modified };
      }
      // a snapshot in S3: the version records exactly the bytes fetched, and any worker can rebuild it
      const key = `feeds/${feed.id}/${res.sha256}/${basename(file)}`;
      await deps.store.put(key, await readFile(file));
      return {
        changed: true,
        uri: `s3://${deps.store.bucket}/${key}`,
        sha256: res.sha256,
        etag: res.etag,
        last_modified: res.last_modified,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  // s3:// and file:// feeds: no validators; the content hash decides
  const local = await localSource(feed.uri, deps.store);
  try {
    const sha256 = await checksumPath(local.path);
    if (sha256 === feed.content_sha256) return { changed: false, etag: null, last_modified: null };
    return { changed: true, uri: feed.uri, sha256, etag: null, last_modified: null };
  } finally {
    await local.cleanup();
  }
}

async function record(
  sql: Sql,
  feedId: string,
  fields: Partial<Record<keyof FeedRow, unknown>>,
): Promise<void> {
  await sql`
    update dataset_feeds set ${sql(fields as Record<string, string | null>)}, last_checked_at = now(), updated_at = now()
    where id = ${feedId}`;
}

/** The feed's acceptance rule over a parsed version: its snapshot may not have shrunk by more than
 * max_shrink_fraction of the entity count of the feed's last accepted snapshot. */
function shrinkRule(feed: FeedRow, snapshot: string) {
  return (stats: DatasetStats): string | undefined => {
    const baseline = feed.last_entities;
    if (!baseline) return undefined;
    const now = stats.by_uri?.[snapshot] ?? stats.entities;
    const shrink = (baseline - now) / baseline;
    if (shrink <= feed.max_shrink_fraction) return undefined;
    return `refused by feed ${feed.name}: the list shrank from ${baseline} to ${now} entities (${Math.round(shrink * 100)} %, more than the ${Math.round(feed.max_shrink_fraction * 100)} % allowed)`;
  };
}

export type FeedOutcome = NonNullable<FeedRow['last_status']>;

/** One run of a feed (the dataset_feed job). Throws only on transient failures, for the job to retry. */
export async function runFeed(deps: FeedDeps, feedId: string): Promise<FeedOutcome | undefined> {
  const { sql } = deps;
  const [feed] = await sql<FeedRow[]>`select * from dataset_feeds where id = ${feedId}`;
  if (!feed?.enabled) return undefined;
  // a retried job resumes the version it started instead of fetching again
  let [pending] = await sql<{ id: string }[]>`
    select id from dataset_versions where feed_id = ${feed.id} and status = 'building' order by seq desc limit 1`;
  if (!pending) {
    let fetched: Fetched;
    try {
      fetched = await fetchFeed(deps, feed);
    } catch (err) {
      if (!isPermanent(err)) throw err;
      await record(sql, feed.id, { last_status: 'failed', last_error: (err as Error).message });
      return 'failed';
    }
    if (!fetched.changed) {
      await record(sql, feed.id, {
        last_status: 'unchanged',
        last_error: null,
        etag: fetched.etag,
        last_modified: fetched.last_modified,
      });
      return 'unchanged';
    }
    // the new version is the active one with this feed's previous snapshot replaced (other lists stay)
    const active = await activeVersion(sql);
    const own = new Set([feed.uri, feed.last_source_uri ?? feed.uri, fetched.uri]);
    const sources = [
      ...(active?.sources ?? []).filter((s) => !own.has(s.uri)),
      { format: feed.format, uri: fetched.uri },
    ];
    const created = await createVersion(sql, {
      name: `${feed.name} ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`,
      sources,
      notes: `list feed ${feed.id}: ${feed.uri}`,
    });
    // the content is seen now: an unchanged 304 or the same bytes next time do not build it again
    await sql`update dataset_versions set feed_id = ${feed.id} where id = ${created.id}`;
    await sql`
      update dataset_feeds set etag = ${fetched.etag}, last_modified = ${fetched.last_modified},
        content_sha256 = ${fetched.sha256}, updated_at = now()
      where id = ${feed.id}`;
    pending = { id: created.id };
  }
  const pendingRow = await getVersion(sql, pending.id);
  const snapshot = pendingRow?.sources[pendingRow.sources.length - 1]?.uri ?? feed.uri;
  let version: VersionRow;
  try {
    version = await buildVersion(deps, pending.id, { validate: shrinkRule(feed, snapshot) });
  } catch (err) {
    if (!isPermanent(err)) throw err;
    const status: FeedOutcome = err instanceof RefusedError ? 'refused' : 'failed';
    await record(sql, feed.id, { last_status: status, last_error: (err as Error).message });
    deps.log.warn({ feed: feed.id, version: pending.id, status, err }, 'list feed version not accepted');
    return status;
  }
  if (version.status === 'failed') {
    await record(sql, feed.id, { last_status: 'failed', last_error: version.error });
    return 'failed';
  }
  if (feed.promote === 'auto') await promote(deps, version.id);
  const status: FeedOutcome = feed.promote === 'auto' ? 'promoted' : 'ready';
  await record(sql, feed.id, {
    last_status: status,
    last_error: null,
    last_version_id: version.id,
    last_source_uri: snapshot,
    last_entities: version.stats.by_uri?.[snapshot] ?? version.stats.entities ?? null,
  });
  deps.log.info({ feed: feed.id, version: version.id, status }, 'list feed built a new version');
  return status;
}

/** Claims due feeds (each due run exactly once, whichever process claims it) and queues their jobs. */
export async function claimDueFeeds(deps: Pick<FeedDeps, 'sql' | 'bus'>, limit = 50): Promise<number> {
  const due = await deps.sql<{ id: string; due: Date }[]>`
    update dataset_feeds f set next_due_at = now() + make_interval(mins => f.interval_minutes), updated_at = now()
    from (
      select id, next_due_at from dataset_feeds
      where enabled and next_due_at <= now()
      order by next_due_at limit ${limit} for update skip locked
    ) d
    where f.id = d.id
    returning f.id, d.next_due_at as due`;
  for (const d of due) {
    await deps.bus.publishJob(
      'dataset_feed',
      { feed_id: d.id },
      `dataset_feed:${d.id}:${d.due.toISOString()}`,
    );
  }
  return due.length;
}

/** Attempts of a feed run before it is given up (last_status `error`): 5 s, 30 s and 2 min apart. */
const FEED_MAX_DELIVER = 4;

/** The feed scheduler and the dataset_feed job consumer (worker roles). */
export async function startFeedWorkers(
  deps: FeedDeps,
  scheduler_interval_ms: number,
): Promise<RunningWorker> {
  const worker = await runWorker<{ feed_id: string }>(deps.bus, deps.log, {
    kind: 'dataset_feed',
    max_deliver: FEED_MAX_DELIVER,
    backoff_ms: [5_000, 30_000, 120_000],
    jitter: 0.1,
    ack_wait_ms: 60_000,
    concurrency: 1,
    handle: async ({ feed_id }, { log, attempt }) => {
      try {
        await runFeed({ ...deps, log }, feed_id);
      } catch (err) {
        // an admin sees at once why the feed is late (offline, DNS, a 5xx), not only after the last attempt
        if (!isPermanent(err) && attempt < FEED_MAX_DELIVER) {
          const message = `attempt ${attempt} of ${FEED_MAX_DELIVER} failed (will retry): ${(err as Error).message}`;
          await record(deps.sql, feed_id, { last_error: message }).catch(() => {});
        }
        throw err;
      }
    },
    async onGiveUp({ feed_id }, err) {
      const message = `gave up: ${(err as Error).message ?? String(err)}`;
      const building = await deps.sql<{ id: string }[]>`
        select id from dataset_versions where feed_id = ${feed_id} and status = 'building'`;
      for (const b of building) await markFailed(deps.sql, b.id, new Error(message));
      // forget the validators so that the next run fetches and builds the content again
      await record(deps.sql, feed_id, {
        last_status: 'error',
        last_error: message,
        etag: null,
        last_modified: null,
        content_sha256: null,
      });
    },
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<unknown> = Promise.resolve();
  const tick = () => {
    pass = claimDueFeeds(deps)
      .catch((err: unknown) => deps.log.warn({ err }, 'feed scheduler pass failed'))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, scheduler_interval_ms);
          timer.unref();
        }
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
      await worker.stop();
    },
  };
}
