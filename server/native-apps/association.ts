import type { Sql } from '../db/sql.js';

/**
 * The association files that let native apps open verification links (docs/journey.md, "Native apps"): Apple's
 * `apple-app-site-association` (universal links) and Google's Digital Asset Links `assetlinks.json` (App Links),
 * generated from the enabled native apps of active tenants whose `environments` include this deployment's.
 *
 * One shared host serves the apps without a link host of their own; a tenant's own link host serves only its apps.
 * Apple and Android 15+ hold each app to its `tenant_path` (`components`, `dynamic_app_link_components`); Android
 * before 15 ignores those and lets an app open any path of a host it is verified for, which on the shared host
 * includes other tenants' links: the tenant's own link host is the fix (docs/decisions/journey.md).
 */
interface AppRow {
  platform: 'ios' | 'android';
  identifier: string;
  tenant_path: string;
  ios_team_id: string | null;
  android_signing_fingerprints: string[];
}

/** The hostname of a Host header, lower case, without its port. */
export const hostnameOf = (host: string | undefined): string =>
  (host ?? '')
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '');

/** The apps a host lists: those naming it as their link host, or (on any other host) those without one. */
async function appsFor(sql: Sql, environment: string, host: string): Promise<AppRow[]> {
  return sql<AppRow[]>`
    select a.platform, a.identifier, a.tenant_path, a.ios_team_id, a.android_signing_fingerprints
    from native_apps a join tenants t on t.id = a.tenant_id
    where a.enabled and t.status = 'active' and ${environment} = any(a.environments)
      and (case when exists (select 1 from native_apps h where h.link_host = ${host} and h.enabled)
                then a.link_host = ${host} else a.link_host is null end)
    order by a.tenant_id, a.seq`;
}

/** `<tenant_path>/*`: the links under the app's path, and nothing else of the host. */
const pathPattern = (tenantPath: string) => `${tenantPath.replace(/\/+$/, '')}/*`;

export async function appleAssociation(sql: Sql, environment: string, host: string) {
  const apps = (await appsFor(sql, environment, host)).filter((a) => a.platform === 'ios' && a.ios_team_id);
  return {
    applinks: {
      details: apps.map((a) => ({
        appIDs: [`${a.ios_team_id}.${a.identifier}`],
        components: [{ '/': pathPattern(a.tenant_path), comment: 'Veriscreen verification links' }],
      })),
    },
  };
}

export async function androidAssetLinks(sql: Sql, environment: string, host: string) {
  const apps = (await appsFor(sql, environment, host)).filter((a) => a.platform === 'android');
  return apps.map((a) => ({
    relation: ['delegate_permission/common.handle_all_urls'],
    target: {
      namespace: 'android_app',
      package_name: a.identifier,
      sha256_cert_fingerprints: a.android_signing_fingerprints.map((f) => f.toUpperCase()),
    },
    // Android 15+: the app opens only its tenant's links (earlier versions ignore this, see above)
    relation_extensions: {
      'delegate_permission/common.handle_all_urls': {
        dynamic_app_link_components: [{ '/': pathPattern(a.tenant_path) }],
      },
    },
  }));
}
