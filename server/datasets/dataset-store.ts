import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { assertIndexFormat, buildIndex, deserializeIndex, serializeIndex } from '../../matcher/index.js';
import type { IndexData } from '../../matcher/types.js';
import { json, type Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';

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
  /** entities parsed from each source URI */
  by_uri?: Record<string, number>;
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

/** Sources are stored as URIs (the API's own pattern): a plain local path from the CLI or the demo loader becomes
 * its file:// URL. */
export function sourceUri(uri: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? uri : pathToFileURL(resolve(uri)).toString();
}

export async function createVersion(
  sql: Sql,
  opts: { name: string; sources: SourceSpec[]; notes?: string | undefined; build_job_owed?: boolean },
): Promise<VersionRow> {
  const sources = opts.sources.map((s) => ({ format: s.format, uri: sourceUri(s.uri) }));
  const [row] = await sql<VersionRow[]>`
    insert into dataset_versions (name, status, sources, notes, build_job_owed)
    values (${opts.name}, 'building', ${json(sql, sources)}, ${opts.notes ?? null}, ${opts.build_job_owed ?? false})
    returning *`;
  if (!row) throw new Error('dataset version insert returned nothing');
  return row;
}

export async function getVersion(sql: Sql, id: string): Promise<VersionRow | undefined> {
  const [row] = await sql<VersionRow[]>`select * from dataset_versions where id = ${id}`;
  return row;
}

export const artifactKey = (id: string) => `indexes/${id}.vsix`;

export async function activeVersion(sql: Sql): Promise<VersionRow | undefined> {
  const [v] = await sql<VersionRow[]>`select * from dataset_versions where status = 'active'`;
  return v;
}

/** The index of a version: its S3 artifact when it is of this code's INDEX_FORMAT (no rebuild); otherwise — an
 * artifact of another format, a damaged or missing one — rebuilt from the stored entities, never searched, and the
 * artifact replaced so that the next process loads it directly. */
export async function loadVersionIndex(
  deps: DatasetDeps & { log?: Logger },
  versionId: string,
): Promise<IndexData> {
  const v = await getVersion(deps.sql, versionId);
  if (v?.artifact_key) {
    const buf = await deps.store.get(v.artifact_key);
    if (buf) {
      try {
        const index = deserializeIndex(buf);
        assertIndexFormat(index);
        return index;
      } catch (err) {
        deps.log?.warn(
          { version: versionId, reason: (err as Error).message },
          'index artifact unusable: rebuilding from stored entities',
        );
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
  const index = buildIndex(entities, versionId);
  if (v && entities.length > 0) {
    // best effort: the index is usable now; a failed upload only means the next process rebuilds it too
    try {
      await deps.store.put(artifactKey(versionId), serializeIndex(index));
      await deps.sql`update dataset_versions set artifact_key = ${artifactKey(versionId)} where id = ${versionId}`;
    } catch (err) {
      deps.log?.warn({ err, version: versionId }, 'rebuilt index not uploaded');
    }
  }
  return index;
}
