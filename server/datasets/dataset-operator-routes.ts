import { type Static, Type } from '@sinclair/typebox';
import { ErrorEnvelope, Nullable, NullableTimestamp, Timestamp, Uuid } from '../../schemas/common.js';
import { DatasetVersionStatus } from '../../schemas/datasets.js';
import { tenantOf } from '../auth/authorize.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import type { VersionRow } from './dataset-store.js';

/**
 * Read-only view of the deployment's dataset versions for tenant callers (secret key, any operator): which list
 * versions exist, which one answers screens now, their stats and build status. Dataset versions are shared by
 * every tenant, so building and promoting stay on /admin (X-Admin-Token): a tenant's admin must not change what
 * every other tenant is screened against. Source URIs (deployment paths and buckets) are not shown, only formats.
 */
export const DatasetVersionSummary = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    status: DatasetVersionStatus,
    formats: Type.Array(Type.String(), { description: 'list formats of the sources, e.g. ofac_sdn_csv' }),
    stats: Type.Record(Type.String(), Type.Unknown()),
    notes: Nullable(Type.String()),
    error: Nullable(Type.String()),
    created_at: Timestamp,
    ready_at: NullableTimestamp,
    promoted_at: NullableTimestamp,
    retired_at: NullableTimestamp,
  },
  { title: 'DatasetVersionSummary' },
);
export type DatasetVersionSummary = Static<typeof DatasetVersionSummary>;

export const DatasetVersionSummaryList = Type.Object(
  { items: Type.Array(DatasetVersionSummary), active: Nullable(DatasetVersionSummary) },
  { title: 'DatasetVersionSummaryList' },
);

function summary(v: VersionRow): DatasetVersionSummary {
  return {
    id: v.id,
    name: v.name,
    status: v.status,
    formats: [...new Set(v.sources.map((s) => s.format))],
    stats: v.stats as unknown as Record<string, unknown>,
    notes: v.notes,
    error: v.error,
    created_at: v.created_at.toISOString(),
    ready_at: v.ready_at?.toISOString() ?? null,
    promoted_at: v.promoted_at?.toISOString() ?? null,
    retired_at: v.retired_at?.toISOString() ?? null,
  };
}

export function datasetOperatorRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/dataset_versions',
      operationId: 'listDatasetVersionsForTenant',
      summary:
        'Dataset versions (read-only), newest first, and the active one; build and promote are on /admin',
      tag: 'datasets',
      auth: 'secret',
      responses: {
        200: { description: 'Versions', schema: DatasetVersionSummaryList },
        403: { description: 'A publishable key cannot read dataset versions', schema: ErrorEnvelope },
      },
      handler: async ({ principal }) => {
        tenantOf(principal);
        const rows = await sql<VersionRow[]>`select * from dataset_versions order by seq desc limit 200`;
        const active = rows.find((r) => r.status === 'active') ?? null;
        return {
          status: 200,
          body: { items: rows.map(summary), active: active ? summary(active) : null },
        };
      },
    }),
  ];
}
