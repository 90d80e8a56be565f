// The offline CLI and the service screen alike (issue 15): the same subjects, screened by `veriscreen screen` over
// the demo list file and by a sync aml_screen flow through the HTTP API over the same list ingested and promoted,
// give the same matched entities with the same scores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AML_DATASETS } from '../../ingest/entity.js';
import { runCli } from '../helpers/cli.js';
import { call, createTenant, DEMO_SOURCE, startTestApp, type TestApp } from '../helpers/test-app.js';

interface Match {
  entity_id: string;
  score: number;
}

// a misspelt legal form, a misspelt form word in a long name, a person, a typing slip and a clean name
const SUBJECTS = [
  { type: 'company', name: 'FICTITIOUS HOLDINGS LIMIETD' },
  { type: 'company', name: 'DEMO BANK OF EXAMPLESTAN JOTNT STOCK COMPANY' },
  { type: 'person', first: 'Ivan', last: 'Demovsky' },
  { type: 'person', first: 'Ivan Petrovich', last: 'DEMOVKSY' },
  { type: 'person', first: 'Zephyrine', last: 'Quorrelby-Atwater' },
] as const;

const nameOf = (s: (typeof SUBJECTS)[number]): string =>
  s.type === 'company' ? s.name : `${s.first} ${s.last}`;

describe('veriscreen screen (offline) and the service give the same matches', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sources: [DEMO_SOURCE] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('same entities and scores for misspelt companies, a typing slip, a person and a clean name', async () => {
    const tenant = await createTenant(t, { name: 'Parity' });
    const policy = await call(t.url, 'PUT', '/v1/check_policy', {
      token: tenant.secret_key,
      body: { default_datasets: [...AML_DATASETS] },
    });
    expect(policy.status).toBe(200);
    const service: Match[][] = [];
    for (const s of SUBJECTS) {
      const applicant =
        s.type === 'company'
          ? { entity_type: 'business', business_name: s.name }
          : { legal_name_first: s.first, legal_name_last: s.last };
      const flow = await call<{ checks: { check_type: string; evidence: { matches: Match[] } }[] }>(
        t.url,
        'POST',
        '/v1/flows',
        { token: tenant.secret_key, body: { mode: 'sync', applicant } },
      );
      expect(flow.status, JSON.stringify(flow.body)).toBe(201);
      const check = flow.body.checks.find((c) => c.check_type === 'aml_screen');
      service.push((check?.evidence.matches ?? []).map((m) => ({ entity_id: m.entity_id, score: m.score })));
    }

    const cli = await runCli(['screen', '--list', `ofac_sdn_csv:${DEMO_SOURCE.uri}`, '--limit', '10'], {
      input: SUBJECTS.map((s, i) => JSON.stringify({ ref: String(i), name: nameOf(s), type: s.type })).join(
        '\n',
      ),
    });
    expect(cli.code, cli.stderr).toBe(0);
    const offline = cli.stdout
      .trim()
      .split('\n')
      .map((l) =>
        (JSON.parse(l) as { matches: Match[] }).matches.map((m) => ({
          entity_id: m.entity_id,
          score: m.score,
        })),
      );

    expect(offline).toEqual(service);
    // the misspelt companies, the person and the typing slip are found; the clean name is not
    expect(service.map((m) => m.length > 0)).toEqual([true, true, true, true, false]);
  });
});
