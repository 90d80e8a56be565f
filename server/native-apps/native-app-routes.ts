import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import {
  NativeAppCreateIn,
  NativeAppListOut,
  NativeAppListQuery,
  NativeAppOut,
  NativeAppParams,
  NativeAppPatchIn,
} from '../../schemas/native-apps.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import { requireAdminAuthority, tenantOf } from '../auth/authorize.js';
import { page, pageArgs } from '../db/cursor.js';
import { type Sql, transaction } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import { validateNativeApp } from './native-app-rules.js';

interface NativeAppRow {
  id: string;
  tenant_id: string;
  seq: string;
  platform: 'ios' | 'android';
  identifier: string;
  tenant_path: string;
  link_host: string | null;
  ios_team_id: string | null;
  android_signing_fingerprints: string[];
  enabled: boolean;
  environments: NativeAppOut['environments'];
  created_at: Date;
  updated_at: Date;
}

function nativeAppOut(r: NativeAppRow): NativeAppOut {
  return {
    id: r.id,
    platform: r.platform,
    identifier: r.identifier,
    tenant_path: r.tenant_path,
    link_host: r.link_host,
    ios_team_id: r.ios_team_id,
    android_signing_fingerprints: r.android_signing_fingerprints,
    enabled: r.enabled,
    environments: r.environments,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

const duplicate = (err: unknown) =>
  (err as { code?: string }).code === '23505'
    ? new ApiError('already_exists', { message: 'This app is already registered for the platform' })
    : err;

/** A link host belongs to one tenant: another tenant's apps may not name it (they would be listed on it). */
async function assertOwnHost(tx: Sql, tenantId: string, host: string | null | undefined): Promise<void> {
  if (!host) return;
  const [taken] =
    await tx`select 1 from native_apps where link_host = ${host} and tenant_id <> ${tenantId} limit 1`;
  if (taken) {
    throw new ApiError('already_exists', {
      message: 'This link host is used by another tenant',
      details: { field: 'link_host' },
    });
  }
}

const E403 = { description: 'Needs admin authority', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };
const E409 = {
  description: "Same platform and identifier already registered, or the link host is another tenant's",
  schema: ErrorEnvelope,
};
const E422 = { description: 'Validation error (naming the field)', schema: ValidationFailure };

export function nativeAppRoutes(sql: Sql) {
  return [
    route({
      method: 'POST',
      path: '/v1/native-apps',
      operationId: 'createNativeApp',
      summary: 'Register a mobile app (iOS bundle ID + team ID, or Android package + signing fingerprints)',
      tag: 'native-apps',
      auth: 'secret',
      body: NativeAppCreateIn,
      responses: {
        201: { description: 'Registered', schema: NativeAppOut },
        403: E403,
        409: E409,
        422: E422,
      },
      handler: async ({ body, principal, req }) => {
        requireAdminAuthority(principal);
        const { tenant_id } = tenantOf(principal);
        const app = validateNativeApp({
          platform: body.platform,
          identifier: body.identifier,
          ios_team_id: body.ios_team_id ?? null,
          android_signing_fingerprints: body.android_signing_fingerprints ?? [],
        });
        const row = await transaction(sql, async (tx) => {
          await assertOwnHost(tx, tenant_id, body.link_host);
          const [r] = await tx<NativeAppRow[]>`
              insert into native_apps (tenant_id, platform, identifier, tenant_path, ios_team_id,
                                       android_signing_fingerprints, enabled, environments, link_host)
              values (${tenant_id}, ${app.platform}, ${app.identifier}, ${body.tenant_path}, ${app.ios_team_id},
                      ${app.android_signing_fingerprints}, ${body.enabled ?? true},
                      ${body.environments ?? ['production']}, ${body.link_host ?? null})
              returning *`;
          if (!r) throw new Error('native app insert returned nothing');
          await writeAudit(tx, {
            tenant_id,
            ...actorOf(principal),
            action: 'native_app.created',
            resource_type: 'native_app',
            resource_id: r.id,
            request_id: req.request_id,
            details: { platform: r.platform, identifier: r.identifier },
          });
          return r;
        }).catch((err: unknown) => {
          throw duplicate(err);
        });
        return { status: 201, body: nativeAppOut(row), audited: true };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/native-apps',
      operationId: 'listNativeApps',
      summary: 'List registered mobile apps, newest first',
      tag: 'native-apps',
      auth: 'secret',
      query: NativeAppListQuery,
      responses: { 200: { description: 'A page of apps', schema: NativeAppListOut }, 422: E422 },
      handler: async ({ query, principal }) => {
        const { tenant_id } = tenantOf(principal);
        const { limit, after } = pageArgs(query);
        const rows = await sql<NativeAppRow[]>`
          select * from native_apps where tenant_id = ${tenant_id}
            ${query.platform ? sql`and platform = ${query.platform}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(nativeAppOut), next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/native-apps/{native_app_id}',
      operationId: 'getNativeApp',
      summary: 'Get a registered mobile app',
      tag: 'native-apps',
      auth: 'secret',
      params: NativeAppParams,
      responses: { 200: { description: 'The app', schema: NativeAppOut }, 404: E404, 422: E422 },
      handler: async ({ params, principal }) => {
        const [r] = await sql<NativeAppRow[]>`
          select * from native_apps where id = ${params.native_app_id} and tenant_id = ${tenantOf(principal).tenant_id}`;
        if (!r) throw new ApiError('not_found', { message: 'Native app not found' });
        return { status: 200, body: nativeAppOut(r) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/native-apps/{native_app_id}',
      operationId: 'updateNativeApp',
      summary: 'Update a registered mobile app (platform is fixed; null resets a field to its default)',
      tag: 'native-apps',
      auth: 'secret',
      params: NativeAppParams,
      body: NativeAppPatchIn,
      responses: {
        200: { description: 'Updated', schema: NativeAppOut },
        403: E403,
        404: E404,
        409: E409,
        422: E422,
      },
      handler: async ({ params, body, principal, req }) => {
        requireAdminAuthority(principal);
        const { tenant_id } = tenantOf(principal);
        const row = await transaction(sql, async (tx) => {
          const [cur] = await tx<NativeAppRow[]>`
              select * from native_apps where id = ${params.native_app_id} and tenant_id = ${tenant_id} for update`;
          if (!cur) throw new ApiError('not_found', { message: 'Native app not found' });
          const app = validateNativeApp({
            platform: cur.platform,
            identifier: body.identifier ?? cur.identifier,
            ios_team_id: body.ios_team_id === undefined ? cur.ios_team_id : body.ios_team_id,
            android_signing_fingerprints:
              body.android_signing_fingerprints === undefined
                ? cur.android_signing_fingerprints
                : (body.android_signing_fingerprints ?? []),
          });
          const linkHost = body.link_host === undefined ? cur.link_host : body.link_host;
          await assertOwnHost(tx, tenant_id, linkHost);
          const [r] = await tx<NativeAppRow[]>`
              update native_apps set
                link_host = ${linkHost},
                identifier = ${app.identifier},
                tenant_path = ${body.tenant_path ?? cur.tenant_path},
                ios_team_id = ${app.ios_team_id},
                android_signing_fingerprints = ${app.android_signing_fingerprints},
                enabled = ${body.enabled === undefined ? cur.enabled : (body.enabled ?? true)},
                environments = ${body.environments === undefined ? cur.environments : (body.environments ?? ['production'])},
                updated_at = now()
              where id = ${cur.id} and tenant_id = ${tenant_id}
              returning *`;
          if (!r) throw new Error('native app update returned nothing');
          await writeAudit(tx, {
            tenant_id,
            ...actorOf(principal),
            action: 'native_app.updated',
            resource_type: 'native_app',
            resource_id: r.id,
            request_id: req.request_id,
            details: { fields: Object.keys(body).sort() },
          });
          return r;
        }).catch((err: unknown) => {
          throw duplicate(err);
        });
        return { status: 200, body: nativeAppOut(row), audited: true };
      },
    }),
  ];
}
