import { FORMATS } from '../../ingest/index.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import {
  DatasetVersionCreateIn,
  DatasetVersionListOut,
  type DatasetVersionOut,
  DatasetVersionOut as DatasetVersionOutSchema,
  EntityLinkListOut,
  EntityLinkListQuery,
  type EntityLinkOut,
  VersionParams,
} from '../../schemas/datasets.js';
import { ApiError, ValidationError } from '../errors.js';
import { route } from '../http/router.js';
import { getVersion, type VersionRow } from './dataset-store.js';
import { type LifecycleDeps, PromoteError, promote, requestBuild } from './lifecycle.js';

export function versionOut(v: VersionRow): DatasetVersionOut {
  return {
    id: v.id,
    name: v.name,
    status: v.status,
    sources: v.sources,
    stats: v.stats,
    notes: v.notes,
    error: v.error,
    created_at: v.created_at.toISOString(),
    ready_at: v.ready_at?.toISOString() ?? null,
    promoted_at: v.promoted_at?.toISOString() ?? null,
    retired_at: v.retired_at?.toISOString() ?? null,
  };
}

export function datasetRoutes(deps: LifecycleDeps) {
  const { sql } = deps;
  return [
    route({
      method: 'POST',
      path: '/admin/dataset_versions',
      operationId: 'createDatasetVersion',
      summary: 'Start building a dataset version from list sources (a worker parses and indexes them)',
      tag: 'admin',
      auth: 'admin',
      body: DatasetVersionCreateIn,
      responses: {
        201: { description: 'Build queued', schema: DatasetVersionOutSchema },
      },
      handler: async ({ body, log }) => {
        const bad = body.sources
          .map((s, i) => ({ s, i }))
          .filter(({ s }) => !FORMATS.includes(s.format))
          .map(({ i }) => ({
            loc: ['body', 'sources', i, 'format'],
            msg: `unknown format; one of: ${FORMATS.join(', ')}`,
            type: 'enum',
          }));
        if (bad.length) throw new ValidationError(bad);
        const name =
          body.name ??
          `${body.sources.map((s) => s.format).join('+')} ${new Date().toISOString().slice(0, 10)}`;
        const v = await requestBuild({ ...deps, log }, { name, sources: body.sources, notes: body.notes });
        return { status: 201, body: versionOut(v) };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/dataset_versions',
      operationId: 'listDatasetVersions',
      summary: 'Dataset versions, newest first, and the active one',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'Versions', schema: DatasetVersionListOut } },
      handler: async () => {
        const rows = await sql<VersionRow[]>`select * from dataset_versions order by seq desc limit 200`;
        const active = rows.find((r) => r.status === 'active') ?? null;
        return {
          status: 200,
          body: { items: rows.map(versionOut), active: active ? versionOut(active) : null },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/dataset_versions/{version_id}',
      operationId: 'getDatasetVersion',
      summary: 'One dataset version with its build status and stats',
      tag: 'admin',
      auth: 'admin',
      params: VersionParams,
      responses: {
        200: { description: 'Version', schema: DatasetVersionOutSchema },
        404: { description: 'Unknown version', schema: ErrorEnvelope },
      },
      handler: async ({ params }) => {
        const v = await getVersion(sql, params.version_id);
        if (!v) throw new ApiError('not_found', { message: 'Dataset version not found' });
        return { status: 200, body: versionOut(v) };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/dataset_versions/{version_id}/links',
      operationId: 'listDatasetEntityLinks',
      summary:
        'The links the build found between entries of different lists that are the same entity (rule, score, reason)',
      tag: 'admin',
      auth: 'admin',
      params: VersionParams,
      query: EntityLinkListQuery,
      responses: {
        200: { description: 'Links, in the order they were accepted', schema: EntityLinkListOut },
        404: { description: 'Unknown version', schema: ErrorEnvelope },
      },
      handler: async ({ params, query }) => {
        const v = await getVersion(sql, params.version_id);
        if (!v) throw new ApiError('not_found', { message: 'Dataset version not found' });
        const limit = query.limit ?? 50;
        const after = query.after === undefined ? -1 : Number(query.after);
        const entity = query.entity_id ?? null;
        const rule = query.rule ?? null;
        const rows = await sql<(EntityLinkOut & { seq: number })[]>`
          select seq, entity_a, entity_b, consolidated_id, rule, score, reason from dataset_entity_links
          where version_id = ${v.id} and seq > ${after}
            and (${entity}::text is null or entity_a = ${entity} or entity_b = ${entity})
            and (${rule}::text is null or rule = ${rule})
          order by seq limit ${limit + 1}`;
        const page = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            items: page.map(({ seq: _seq, ...l }) => l),
            next_cursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
          },
        };
      },
    }),
    route({
      method: 'POST',
      path: '/admin/dataset_versions/{version_id}/promote',
      operationId: 'promoteDatasetVersion',
      summary:
        'Make a ready version the active one in every process (promoting an older version is the rollback)',
      tag: 'admin',
      auth: 'admin',
      params: VersionParams,
      responses: {
        200: { description: 'The version, now active', schema: DatasetVersionOutSchema },
        404: { description: 'Unknown version', schema: ErrorEnvelope },
      },
      handler: async ({ params }) => {
        try {
          return { status: 200, body: versionOut((await promote(deps, params.version_id)).version) };
        } catch (err) {
          if (err instanceof PromoteError && err.reason === 'not_found') {
            throw new ApiError('not_found', { message: 'Dataset version not found' });
          }
          if (err instanceof PromoteError) {
            throw new ValidationError([
              { loc: ['path', 'version_id'], msg: err.message, type: 'version_not_ready' },
            ]);
          }
          throw err;
        }
      },
    }),
  ];
}
