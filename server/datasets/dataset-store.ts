import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { type Consolidation, clustersFrom, type EntityLink } from '../../matcher/consolidate.js';
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
  /** entity consolidation across sources (matcher/consolidate.ts): the build report's counts */
  consolidation?: ConsolidationStats;
}

export interface ConsolidationStats {
  /** entries linked to none counted once each, each group of linked entries once */
  entities_after: number;
  links: number;
  by_rule: Record<string, number>;
  /** consolidated entities of two entries or more */
  groups: number;
  /** links found but refused: they would have joined two entries of one source */
  refused: number;
}

export function consolidationStats(c: Consolidation): ConsolidationStats {
  const by_rule: Record<string, number> = {};
  for (const l of c.links) by_rule[l.rule] = (by_rule[l.rule] ?? 0) + 1;
  return {
    entities_after: c.entities_after,
    links: c.links.length,
    by_rule,
    groups: new Set(c.clusterOf.values()).size,
    refused: c.refused,
  };
}

/** A stored link of a version, as the admin API lists it. */
export interface LinkRow extends EntityLink {
  seq: number;
  consolidated_id: string;
}

const LINK_BATCH = 2000;

/** Stores a build's links with its version (replacing any of an earlier attempt). */
export async function storeLinks(sql: Sql, versionId: string, c: Consolidation): Promise<void> {
  await sql`delete from dataset_entity_links where version_id = ${versionId}`;
  const rows = c.links.map((l, seq) => ({
    version_id: versionId,
    seq,
    entity_a: l.a,
    entity_b: l.b,
    consolidated_id: c.clusterOf.get(l.a) ?? l.a,
    rule: l.rule,
    score: l.score,
    reason: l.reason,
  }));
  for (let i = 0; i < rows.length; i += LINK_BATCH)
    await sql`insert into dataset_entity_links ${sql(rows.slice(i, i + LINK_BATCH))}`;
}

/** The links of a version in their stored order. */
export async function versionLinks(sql: Sql, versionId: string): Promise<LinkRow[]> {
  const out: LinkRow[] = [];
  await sql<LinkRow[]>`
    select seq, entity_a as a, entity_b as b, consolidated_id, rule, score, reason
    from dataset_entity_links where version_id = ${versionId} order by seq`.cursor(5000, (rows) => {
    out.push(...rows);
  });
  return out;
}

/** entity id → consolidated id of a version, from its stored links. */
export async function versionClusters(
  sql: Sql,
  versionId: string,
  entities: readonly { entity_id: string; source: string }[],
): Promise<Map<string, string>> {
  return clustersFrom(entities, await versionLinks(sql, versionId));
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
  // grouped by the links the build found and stored: the same entities as the build's own index
  const index = buildIndex(entities, versionId, await versionClusters(deps.sql, versionId, entities));
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
