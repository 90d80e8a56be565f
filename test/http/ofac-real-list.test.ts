import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmlMatch, ApiFlow } from '../helpers/api-types.js';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Flow = ApiFlow<{ matches: AmlMatch[] }>;

describe.skipIf(!HAS_SHARED_DATA)(
  'sync flows against the real OFAC SDN list (../shared/data/ofac_sdn)',
  () => {
    let t: TestApp;
    let tenant: Tenant;
    beforeAll(async () => {
      t = await startTestApp({ sources: [{ format: 'ofac_sdn_csv', uri: sharedPath('ofac_sdn') }] });
      tenant = await createTenant(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('sends Vladimir Putin to manual review with SDN entry 35096 in the evidence', async () => {
      const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Vladimir', legal_name_last: 'Putin' } },
      });
      expect(r.status).toBe(201);
      expect(r.body.status).toBe('NEEDS_REVIEW');
      expect(r.body.decision).toBe('MANUAL_REVIEW');
      const matches = r.body.checks[0]?.evidence.matches ?? [];
      expect(matches.find((m) => m.source_id === '35096')).toMatchObject({ source: 'us_ofac_sdn' });
    });

    it('approves an invented clean name', async () => {
      const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: {
          mode: 'sync',
          applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore-Quayle' },
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'APPROVED', decision: 'AUTO_APPROVED' });
    });
  },
);
