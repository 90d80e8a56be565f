import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';
import { buildIndex } from '../../matcher/index.js';
import type { IndexData } from '../../matcher/types.js';
import type { Sql } from '../db/sql.js';

export interface SourceSpec {
  format: string;
  /** a local path (file:// URIs are accepted) */
  uri: string;
}

export interface DatasetStats {
  entities: number;
  names: number;
  by_schema: Record<string, number>;
  by_dataset: Record<string, number>;
  by_source: Record<string, number>;
  issues: number;
  build_ms: number;
}

export interface IngestResult {
  version_id: string;
  name: string;
  stats: DatasetStats;
  issues: IngestIssue[];
  promoted: boolean;
}

const INSERT_BATCH = 1000;
const MAX_ISSUES_KEPT = 1000;

const localPath = (uri: string) => (uri.startsWith('file://') ? new URL(uri).pathname : uri);

/** Parses the sources into a new dataset version stored in Postgres (status ready), optionally promoting it. */
export async function ingestVersion(
  sql: Sql,
  opts: { name: string; sources: SourceSpec[]; notes?: string; promote?: boolean },
  onProgress?: (entities: number) => void,
): Promise<IngestResult> {
  const started = performance.now();
  const [version] = await sql<{ id: string }[]>`
    insert into dataset_versions (name, status, sources, notes)
    values (${opts.name}, 'building', ${sql.json(opts.sources as unknown as Parameters<typeof sql.json>[0])}, ${opts.notes ?? null})
    returning id`;
  if (!version) throw new Error('dataset version insert returned nothing');
  const stats: DatasetStats = {
    entities: 0,
    names: 0,
    by_schema: {},
    by_dataset: {},
    by_source: {},
    issues: 0,
    build_ms: 0,
  };
  const issues: IngestIssue[] = [];
  const onIssue = (i: IngestIssue) => {
    stats.issues++;
    if (issues.length < MAX_ISSUES_KEPT) issues.push(i);
  };
  const seen = new Set<string>();
  try {
    let batch: { version_id: string; entity_id: string; data: unknown }[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await sql`insert into dataset_entities ${sql(batch as Record<string, unknown>[])}`;
      batch = [];
      onProgress?.(stats.entities);
    };
    for (const src of opts.sources) {
      for await (const e of readSource(src.format, localPath(src.uri), onIssue)) {
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
        stats.entities++;
        stats.names += e.names.length;
        stats.by_schema[e.schema] = (stats.by_schema[e.schema] ?? 0) + 1;
        stats.by_source[e.source] = (stats.by_source[e.source] ?? 0) + 1;
        for (const d of e.datasets) stats.by_dataset[d] = (stats.by_dataset[d] ?? 0) + 1;
        batch.push({
          version_id: version.id,
          entity_id: e.entity_id,
          data: sql.json(e as unknown as Parameters<typeof sql.json>[0]),
        });
        if (batch.length >= INSERT_BATCH) await flush();
      }
    }
    await flush();
    stats.build_ms = Math.round(performance.now() - started);
    await sql`
      update dataset_versions set status = 'ready', ready_at = now(),
        stats = ${sql.json(stats as unknown as Parameters<typeof sql.json>[0])}
      where id = ${version.id}`;
  } catch (err) {
    // a failed build never touches the active version; it stays visible as failed, with the reason
    await sql`update dataset_versions set status = 'failed', error = ${(err as Error).message} where id = ${version.id}`;
    await sql`delete from dataset_entities where version_id = ${version.id}`;
    throw err;
  }
  if (opts.promote) await promoteVersion(sql, version.id);
  return { version_id: version.id, name: opts.name, stats, issues, promoted: !!opts.promote };
}

/** Makes a ready version the active one; the previous active version goes back to ready (retired). */
export async function promoteVersion(sql: Sql, versionId: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(7351002)`;
    const [v] = await tx<
      { status: string }[]
    >`select status from dataset_versions where id = ${versionId} for update`;
    if (!v) throw new Error(`dataset version ${versionId} not found`);
    if (v.status === 'active') return;
    if (v.status !== 'ready')
      throw new Error(`dataset version ${versionId} is ${v.status}; only a ready version can be promoted`);
    await tx`update dataset_versions set status = 'ready', retired_at = now() where status = 'active'`;
    await tx`update dataset_versions set status = 'active', promoted_at = now(), retired_at = null where id = ${versionId}`;
  });
}

export async function activeVersion(sql: Sql): Promise<{ id: string; name: string } | undefined> {
  const [v] = await sql<
    { id: string; name: string }[]
  >`select id, name from dataset_versions where status = 'active'`;
  return v;
}

/** Loads a stored version's entities and builds the matcher index for it. */
export async function buildVersionIndex(sql: Sql, versionId: string): Promise<IndexData> {
  const entities: Entity[] = [];
  // cursor in chunks: the whole version is never one giant result set in flight
  await sql<
    { data: Entity }[]
  >`select data from dataset_entities where version_id = ${versionId} order by entity_id`.cursor(
    2000,
    (rows) => {
      for (const r of rows) entities.push(r.data);
    },
  );
  return buildIndex(entities, versionId);
}
