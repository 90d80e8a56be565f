import { createHash } from 'node:crypto';
import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';
import { buildIndex, deserializeIndex, serializeIndex } from '../../matcher/index.js';
import type { IndexData } from '../../matcher/types.js';
import { json, type Sql, transaction } from '../db/sql.js';
import type { ObjectStore } from '../storage/s3.js';
import { checksumPath, localSource } from './source-fetch.js';

export interface SourceSpec {
  format: string;
  /** file:///…, a local path, s3://bucket/key (or prefix/ for directory formats), https://… */
  uri: string;
}

export interface DatasetStats {
  entities: number;
  names: number;
  by_schema: Record<string, number>;
  by_dataset: Record<string, number>;
  by_source: Record<string, number>;
  scripts: Record<string, number>;
  issues: number;
  first_issues: IngestIssue[];
  checksum: string;
  index_bytes: number;
  build_ms: number;
}

export interface VersionRow {
  id: string;
  seq: string;
  name: string;
  status: 'building' | 'ready' | 'failed' | 'active';
  sources: SourceSpec[];
  stats: Partial<DatasetStats>;
  notes: string | null;
  error: string | null;
  artifact_key: string | null;
  checksum: string | null;
  created_at: Date;
  ready_at: Date | null;
  promoted_at: Date | null;
  retired_at: Date | null;
}

export interface DatasetDeps {
  sql: Sql;
  store: ObjectStore;
}

const INSERT_BATCH = 1000;
const FIRST_ISSUES_KEPT = 20;

export class BuildError extends Error {}

export async function createVersion(
  sql: Sql,
  opts: { name: string; sources: SourceSpec[]; notes?: string | undefined },
): Promise<VersionRow> {
  const [row] = await sql<VersionRow[]>`
    insert into dataset_versions (name, status, sources, notes)
    values (${opts.name}, 'building', ${json(sql, opts.sources)}, ${opts.notes ?? null})
    returning *`;
  if (!row) throw new Error('dataset version insert returned nothing');
  return row;
}

export async function getVersion(sql: Sql, id: string): Promise<VersionRow | undefined> {
  const [row] = await sql<VersionRow[]>`select * from dataset_versions where id = ${id}`;
  return row;
}

const artifactKey = (id: string) => `indexes/${id}.vsix`;

/** Parses every source of a building version, stores its entities, builds and uploads the index artifact and marks
 * it ready — or failed with the reason. Idempotent: a redelivered job for a finished version does nothing, and one
 * for a version whose earlier build died half-way starts it again. Never touches the active version. */
export async function buildVersion(deps: DatasetDeps, versionId: string): Promise<VersionRow> {
  const { sql, store } = deps;
  const version = await getVersion(sql, versionId);
  if (!version) throw new BuildError(`dataset version ${versionId} not found`);
  if (version.status !== 'building') return version;
  const started = performance.now();
  await sql`delete from dataset_entities where version_id = ${versionId}`;
  const stats: DatasetStats = {
    entities: 0,
    names: 0,
    by_schema: {},
    by_dataset: {},
    by_source: {},
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
        for await (const e of readSource(src.format, local.path, onIssue)) {
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
          batch.push({
            version_id: versionId,
            entity_id: e.entity_id,
            data: json(sql, e),
          });
          if (batch.length >= INSERT_BATCH) await flush();
        }
        // a file that yields nothing, or more bad rows than good ones, is corrupt: fail rather than serve half a list
        const bad = stats.issues - issuesBefore;
        if (fromSource === 0 || bad > fromSource) {
          const first = stats.first_issues[firstIssueAt];
          const where = first
            ? ` (first: ${first.file}:${first.line}${first.field ? ` [${first.field}]` : ''} ${first.message})`
            : '';
          throw new BuildError(
            `source ${src.format} ${src.uri} is unusable: ${fromSource} entities parsed, ${bad} bad rows${where}`,
          );
        }
      } finally {
        await local.cleanup();
      }
    }
    await flush();
    const index = buildIndex(entities, versionId);
    const artifact = serializeIndex(index);
    await store.put(artifactKey(versionId), artifact);
    stats.index_bytes = artifact.length;
    stats.checksum = createHash('sha256').update(checksums.join('\n')).digest('hex');
    stats.build_ms = Math.round(performance.now() - started);
    const [row] = await sql<VersionRow[]>`
      update dataset_versions set status = 'ready', ready_at = now(), artifact_key = ${artifactKey(versionId)},
        checksum = ${stats.checksum}, stats = ${json(sql, stats)}
      where id = ${versionId} and status = 'building'
      returning *`;
    return row ?? (await getVersion(sql, versionId)) ?? version;
  } catch (err) {
    await markFailed(sql, versionId, err);
    throw err;
  }
}

export async function markFailed(sql: Sql, versionId: string, err: unknown): Promise<void> {
  await sql`
    update dataset_versions set status = 'failed', error = ${(err as Error).message ?? String(err)}
    where id = ${versionId} and status = 'building'`;
  await sql`delete from dataset_entities where version_id = ${versionId}`;
}

export class PromoteError extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_ready',
    message: string,
  ) {
    super(message);
  }
}

/** Makes a ready version the active one; the previous active version goes back to ready (retired_at set).
 * Promoting an older version is the rollback. */
export async function promoteVersion(
  sql: Sql,
  versionId: string,
): Promise<VersionRow & { previous_id: string | null }> {
  return transaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(7351002)`;
    const [v] = await tx<VersionRow[]>`select * from dataset_versions where id = ${versionId} for update`;
    if (!v) throw new PromoteError('not_found', `dataset version ${versionId} not found`);
    if (v.status === 'active') return { ...v, previous_id: null };
    if (v.status !== 'ready') {
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
    // a global event (no tenant): every endpoint subscribed to it hears of the promotion
    await tx`
      insert into outbox_events (tenant_id, type, resource_id, payload)
      values (null, 'dataset_version.promoted', ${row.id},
        ${tx.json({ dataset_version_id: row.id, name: row.name, promoted_at: row.promoted_at?.toISOString() ?? null })})`;
    return { ...row, previous_id: previous?.id ?? null };
  });
}

export async function activeVersion(sql: Sql): Promise<VersionRow | undefined> {
  const [v] = await sql<VersionRow[]>`select * from dataset_versions where status = 'active'`;
  return v;
}

/** The index of a version: its S3 artifact when present (no rebuild), else rebuilt from the stored entities. */
export async function loadVersionIndex(deps: DatasetDeps, versionId: string): Promise<IndexData> {
  const v = await getVersion(deps.sql, versionId);
  if (v?.artifact_key) {
    const buf = await deps.store.get(v.artifact_key);
    if (buf) {
      try {
        return deserializeIndex(buf);
      } catch {
        // an artifact of an older index format (or damaged): rebuild from the stored entities below
      }
    }
  }
  const entities: Entity[] = [];
  await deps.sql<{ data: Entity }[]>`
    select data from dataset_entities where version_id = ${versionId} order by entity_id`.cursor(
    2000,
    (rows) => {
      for (const r of rows) entities.push(r.data);
    },
  );
  return buildIndex(entities, versionId);
}

/** CLI path: create, build in this process, optionally promote. */
export async function ingestVersion(
  deps: DatasetDeps,
  opts: { name: string; sources: SourceSpec[]; notes?: string; promote?: boolean },
): Promise<{ version: VersionRow; promoted: boolean }> {
  const created = await createVersion(deps.sql, opts);
  let version = await buildVersion(deps, created.id);
  if (opts.promote) version = await promoteVersion(deps.sql, created.id);
  return { version, promoted: !!opts.promote };
}
