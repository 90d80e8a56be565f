import { AndroidAssetLinks, AppleAppSiteAssociation } from '../../schemas/native-apps.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { androidAssetLinks, appleAssociation, hostnameOf } from './association.js';

/** Apple's CDN and Android's verifier fetch these: JSON, no redirect, cacheable for an hour (an app added or
 * disabled shows within that). */
const HEADERS = { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' };

export function associationRoutes(deps: { sql: Sql; environment: string }) {
  const { sql, environment } = deps;
  return [
    route({
      method: 'GET',
      path: '/.well-known/apple-app-site-association',
      operationId: 'appleAppSiteAssociation',
      summary:
        "iOS universal links: the enabled iOS apps of this deployment's environment, each on its tenant_path",
      tag: 'native-apps',
      auth: 'none',
      responses: { 200: { description: 'The association file', schema: AppleAppSiteAssociation } },
      handler: async ({ req }) => ({
        status: 200,
        body: await appleAssociation(sql, environment, hostnameOf(req.headers.host)),
        headers: HEADERS,
      }),
    }),
    route({
      method: 'GET',
      path: '/.well-known/assetlinks.json',
      operationId: 'androidAssetLinks',
      summary:
        "Android App Links: the enabled Android apps of this deployment's environment (Digital Asset Links)",
      tag: 'native-apps',
      auth: 'none',
      responses: { 200: { description: 'The statement list', schema: AndroidAssetLinks } },
      handler: async ({ req }) => ({
        status: 200,
        body: await androidAssetLinks(sql, environment, hostnameOf(req.headers.host)),
        headers: HEADERS,
      }),
    }),
  ];
}
