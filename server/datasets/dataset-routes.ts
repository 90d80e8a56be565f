import type { KV } from '@nats-io/kv';
import { FORMATS } from '../../ingest/index.js';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import {
  DatasetVersionCreateIn,
  DatasetVersionListOut,
  type DatasetVersionOut,
  DatasetVersionOut as DatasetVersionOutSchema,
  VersionParams,
} from '../../schemas/datasets.js';
import type { Bus } from '../bus/jetstream.js';
import { STATE_KEYS } from '../bus/state-kv.js';
import { ApiError, ValidationError } from '../errors.js';
import { route } from '../http/router.js';
import {
  createVersion,
  type DatasetDeps,
  getVersion,
  PromoteError,
  promoteVersion,
  type VersionRow,
} from './dataset-store.js';

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

/** Promotes in Postgres, then tells every process through the state KV. */
export async function promoteAndAnnounce(
  deps: DatasetDeps & { kv: KV; bus: Bus },
  versionId: string,
): Promise<VersionRow> {
  const v = await promoteVersion(deps.sql, versionId);
  await deps.kv.put(STATE_KEYS.active_dataset, v.id);
  if (v.previous_id !== null) {
    // monitors are rescreened against what changed between the two versions, not against the whole list
    await deps.bus.publishJob(
      'monitor_delta',
      { from: v.previous_id, to: v.id },
      `monitor_delta:${v.previous_id}:${v.id}:${Date.now()}`,
    );
  }
  return v;
}

const E401 = { description: 'Missing or wrong X-Admin-Token', schema: ErrorEnvelope };
const E422 = { description: 'Validation error', schema: ValidationFailure };

export function datasetRoutes(deps: DatasetDeps & { kv: KV; bus: Bus }) {
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
        401: E401,
        422: E422,
      },
      handler: async ({ body }) => {
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
        const v = await createVersion(sql, { name, sources: body.sources, notes: body.notes });
        await deps.bus.publishJob('dataset_build', { version_id: v.id }, `dataset_build:${v.id}`);
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
      responses: { 200: { description: 'Versions', schema: DatasetVersionListOut }, 401: E401 },
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
        401: E401,
        404: { description: 'Unknown version', schema: ErrorEnvelope },
        422: E422,
      },
      handler: async ({ params }) => {
        const v = await getVersion(sql, params.version_id);
        if (!v) throw new ApiError('not_found', { message: 'Dataset version not found' });
        return { status: 200, body: versionOut(v) };
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
        401: E401,
        404: { description: 'Unknown version', schema: ErrorEnvelope },
        422: E422,
      },
      handler: async ({ params }) => {
        try {
          return { status: 200, body: versionOut(await promoteAndAnnounce(deps, params.version_id)) };
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
