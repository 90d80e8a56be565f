import type { KV } from '@nats-io/kv';
import { isCountryCode } from '../../ingest/countries.js';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { FatfListings, FatfListingsIn } from '../../schemas/datasets.js';
import { STATE_KEYS } from '../bus/state-kv.js';
import type { Sql } from '../db/sql.js';
import { ValidationError } from '../errors.js';
import { route } from '../http/router.js';
import { latestFatf, putFatf } from './fatf-store.js';

export function fatfRoutes(deps: { sql: Sql; kv: KV; onChange: (version: number) => Promise<void> }) {
  return [
    route({
      method: 'GET',
      path: '/admin/fatf_listings',
      operationId: 'getFatfListings',
      summary: 'FATF country listings: ISO alpha-2 code → black | grey (the current version)',
      tag: 'admin',
      auth: 'admin',
      responses: {
        200: { description: 'Listings', schema: FatfListings },
        401: { description: 'Missing or wrong X-Admin-Token', schema: ErrorEnvelope },
      },
      handler: async () => {
        const s = await latestFatf(deps.sql);
        return { status: 200, body: s.listings, headers: { 'x-fatf-version': String(s.version) } };
      },
    }),
    route({
      method: 'PUT',
      path: '/admin/fatf_listings',
      operationId: 'putFatfListings',
      summary: 'Replace the FATF listings (stored as a new version and propagated to every process)',
      tag: 'admin',
      auth: 'admin',
      body: FatfListingsIn,
      responses: {
        200: { description: 'The stored listings', schema: FatfListings },
        401: { description: 'Missing or wrong X-Admin-Token', schema: ErrorEnvelope },
        422: { description: 'Unknown country code or value', schema: ValidationFailure },
      },
      handler: async ({ body }) => {
        const unknown = Object.keys(body).filter((code) => !isCountryCode(code));
        if (unknown.length) {
          throw new ValidationError(
            unknown.map((code) => ({
              loc: ['body', code],
              msg: 'not an ISO 3166-1 alpha-2 country code',
              type: 'country_code',
            })),
          );
        }
        const s = await putFatf(deps.sql, body);
        await deps.kv.put(STATE_KEYS.fatf_version, String(s.version));
        await deps.onChange(s.version);
        return { status: 200, body: s.listings, headers: { 'x-fatf-version': String(s.version) } };
      },
    }),
  ];
}
