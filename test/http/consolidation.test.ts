// Entity consolidation through the API, on the real UN, UK and OFAC SDN lists (../shared/data): the build links
// Tanchon Commercial Bank's three entries and stores the links with the version (GET …/links), and a flow screening
// the bank raises ONE alert that names the three entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface Link {
  entity_a: string;
  entity_b: string;
  consolidated_id: string;
  rule: string;
  score: number;
  reason: string;
}
interface Version {
  id: string;
  status: string;
  stats: {
    entities: number;
    consolidation?: { entities_after: number; links: number; by_rule: Record<string, number> };
  };
}
interface Source {
  entity_id: string;
  source: string;
  source_id: string;
  programs: string[];
  matched_name: string;
}
interface Flow {
  id: string;
  decision: string;
  checks: { evidence: { matches: { consolidated_id: string; sources: Source[] }[] } }[];
}
interface Alert {
  id: string;
  source_entity_id: string;
  evidence: { consolidated_id?: string; sources?: Source[]; source: string };
}

const TANCHON = ['gb_fcdo:DPR0195', 'un_sc:690752', 'us_ofac_sdn:9346'];

describe.skipIf(!HAS_SHARED_DATA)('entity consolidation on the UN, UK and OFAC SDN lists', () => {
  let t: TestApp;
  let tenant: Tenant;
  let version: Version;
  beforeAll(async () => {
    t = await startTestApp({
      sources: [
        { format: 'un_xml', uri: sharedPath('un_sc', 'UN_consolidated.xml') },
        { format: 'uk_csv', uri: sharedPath('uk_sanctions_list_derived') },
        { format: 'ofac_sdn_csv', uri: sharedPath('ofac_sdn') },
      ],
    });
    tenant = await createTenant(t);
    const list = await call<{ active: Version }>(t.url, 'GET', '/admin/dataset_versions', {
      admin: t.adminToken,
    });
    version = list.body.active;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('counts the links and the consolidated entities in the build report', () => {
    const c = version.stats.consolidation;
    expect(c?.links).toBeGreaterThan(500);
    expect(c?.entities_after).toBeLessThan(version.stats.entities);
    expect(c?.by_rule['identifier']).toBeGreaterThan(0);
    expect(c?.by_rule['name_country']).toBeGreaterThan(0);
  });

  it('lists the links of an entry with their rule, score and reason', async () => {
    const r = await call<{ items: Link[]; next_cursor: string | null }>(
      t.url,
      'GET',
      `/admin/dataset_versions/${version.id}/links?entity_id=un_sc:690752`,
      { admin: t.adminToken },
    );
    expect(r.status).toBe(200);
    const byPair = new Map(r.body.items.map((l) => [`${l.entity_a}|${l.entity_b}`, l]));
    const uk = byPair.get('gb_fcdo:DPR0195|un_sc:690752');
    expect(uk).toMatchObject({ rule: 'identifier', consolidated_id: 'un_sc:690752', score: 1 });
    expect(uk?.reason).toContain('un_reference KPE003');
    const ofac = byPair.get('un_sc:690752|us_ofac_sdn:9346');
    expect(ofac).toMatchObject({ rule: 'name_country', consolidated_id: 'un_sc:690752' });
    expect(ofac?.reason).toContain('TANCHON COMMERCIAL BANK');
    expect(ofac?.reason).toContain('KP');
  });

  it('pages the links with a cursor, filters by rule, and refuses a bad cursor or an unknown version', async () => {
    const first = await call<{ items: Link[]; next_cursor: string | null }>(
      t.url,
      'GET',
      `/admin/dataset_versions/${version.id}/links?limit=2&rule=identifier`,
      { admin: t.adminToken },
    );
    expect(first.body.items).toHaveLength(2);
    expect(first.body.items.every((l) => l.rule === 'identifier')).toBe(true);
    expect(first.body.next_cursor).not.toBeNull();
    const second = await call<{ items: Link[] }>(
      t.url,
      'GET',
      `/admin/dataset_versions/${version.id}/links?limit=2&rule=identifier&after=${first.body.next_cursor}`,
      { admin: t.adminToken },
    );
    expect(second.body.items).toHaveLength(2);
    expect(second.body.items[0]).not.toEqual(first.body.items[0]);
    const bad = await call(t.url, 'GET', `/admin/dataset_versions/${version.id}/links?after=x`, {
      admin: t.adminToken,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'after'] })]);
    const badRule = await call(t.url, 'GET', `/admin/dataset_versions/${version.id}/links?rule=guess`, {
      admin: t.adminToken,
    });
    expect(badRule.status).toBe(422);
    const unknown = await call(
      t.url,
      'GET',
      '/admin/dataset_versions/00000000-0000-4000-8000-000000000000/links',
      { admin: t.adminToken },
    );
    expect(unknown.status).toBe(404);
    const anonymous = await call(t.url, 'GET', `/admin/dataset_versions/${version.id}/links`);
    expect(anonymous.status).toBe(401);
  });

  it('a flow screening the bank gets one match and raises ONE alert naming its three list entries', async () => {
    const r = await call<Flow>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: {
        mode: 'sync',
        applicant: { entity_type: 'business', business_name: 'Tanchon Commercial Bank' },
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.decision).toBe('MANUAL_REVIEW');
    const matches = r.body.checks[0]?.evidence.matches ?? [];
    const bank = matches.filter((m) => m.sources.some((s) => TANCHON.includes(s.entity_id)));
    expect(bank).toHaveLength(1);
    expect(bank[0]?.sources.map((s) => s.entity_id).sort()).toEqual(TANCHON);

    const alerts = await call<{ items: Alert[] }>(t.url, 'GET', `/v1/alerts?flow_id=${r.body.id}`, {
      token: tenant.secret_key,
    });
    expect(alerts.status).toBe(200);
    const forBank = alerts.body.items.filter(
      (a) =>
        TANCHON.includes(a.source_entity_id) ||
        a.evidence.sources?.some((s) => TANCHON.includes(s.entity_id)),
    );
    expect(forBank).toHaveLength(1);
    const a = forBank[0]!;
    expect(a.source_entity_id).toBe('un_sc:690752');
    expect(a.evidence.consolidated_id).toBe('un_sc:690752');
    expect(a.evidence.sources?.map((s) => s.entity_id).sort()).toEqual(TANCHON);
    expect(a.evidence.sources?.map((s) => s.source).sort()).toEqual(['gb_fcdo', 'un_sc', 'us_ofac_sdn']);
    expect(a.evidence.sources?.every((s) => s.matched_name.toUpperCase() === 'TANCHON COMMERCIAL BANK')).toBe(
      true,
    );
    expect(a.evidence.sources?.find((s) => s.source === 'us_ofac_sdn')?.programs).toContain('NPWMD');
  });

  /** The alerts raised for a subject_ref on the bank's entries, with their entity and named entries. */
  const bankAlerts = (subjectRef: string) =>
    t.app.sql<{ source_entity_id: string; sources: string[] | null }[]>`
      select source_entity_id,
        (select array_agg(x->>'entity_id' order by x->>'entity_id') from jsonb_array_elements(evidence->'sources') x)
          as sources
      from alerts where subject_ref = ${subjectRef}
        and (source_entity_id = any(${TANCHON}) or evidence->'sources' @> '[{"entity_id":"un_sc:690752"}]')`;

  it('a batch record and a monitor each raise ONE alert for the bank, naming its three entries', async () => {
    const b = await call<{ id: string; status: string }>(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: {
        records: [
          { external_id: 'bank-1', subjects: [{ name: 'Tanchon Commercial Bank', type: 'company' }] },
        ],
        datasets: ['sanctions'],
      },
    });
    expect(b.status).toBe(202);
    await waitFor('batch to complete', async () => {
      const g = await call<{ status: string }>(t.url, 'GET', `/v1/check_batches/${b.body.id}`, {
        token: tenant.secret_key,
      });
      return g.body.status === 'completed' ? true : undefined;
    });
    const [batchRef] = await t.app.sql<{ subject_ref: string }[]>`
      select distinct subject_ref from alerts where batch_id = ${b.body.id}`;
    expect(await bankAlerts(batchRef?.subject_ref ?? '')).toEqual([
      { source_entity_id: 'un_sc:690752', sources: TANCHON },
    ]);

    const m = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: tenant.secret_key,
      body: {
        subjects: [{ name: 'Tanchon Commercial Bank', type: 'company' }, { name: 'Changgwang Credit Bank' }],
        datasets: ['sanctions'],
      },
    });
    expect(m.status).toBe(201);
    await waitFor('monitor run', async () => {
      const g = await call<{ last_check_id: string | null }>(t.url, 'GET', `/v1/monitors/${m.body.id}`, {
        token: tenant.secret_key,
      });
      return g.body.last_check_id ?? undefined;
    });
    // two subject names matching different entries of one entity: still one alert
    expect(await bankAlerts(`monitor:${m.body.id}`)).toEqual([
      { source_entity_id: 'un_sc:690752', sources: TANCHON },
    ]);
  });
});
