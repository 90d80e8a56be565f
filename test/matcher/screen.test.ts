import { describe, expect, it } from 'vitest';
import { AML_DATASETS, type AmlDataset, type Entity } from '../../ingest/entity.js';
import {
  buildIndex,
  DEFAULT_POLICY,
  deserializeIndex,
  effectiveThreshold,
  indexStats,
  openIndex,
  resolvePolicy,
  type ScreenOptions,
  type ScreenSubject,
  serializeIndex,
} from '../../matcher/index.js';
import { listedEntity as ent } from '../helpers/entities.js';

const ENTITIES: Entity[] = [
  ent('1', 'Person', ['PUTIN, Vladimir Vladimirovich', 'Владимир Путин'], {
    birth_dates: ['1952-10-07'],
    nationalities: ['RU'],
    programs: ['RUSSIA-EO14024'],
  }),
  ent('2', 'Person', ['Ivan Petrov'], { birth_dates: ['1970'] }),
  ent('3', 'Person', ['Abu Bakr AL-BAGHDADI', { value: 'Abu Du’a', kind: 'weak' }]),
  ent('4', 'Company', ['Acme Trading LLC']),
  ent('5', 'Vessel', ['OCEAN STAR'], { identifiers: [{ type: 'imo', value: '9187629' }] }),
  ent('6', 'Person', ['Ocean Star']),
  ent('7', 'Person', ['Sergei Lavrov'], { source: 'un_sc', datasets: ['sanctions'] }),
  ent('8', 'Person', ['Hans Muster'], { datasets: ['pep'], source: 'us_congress' }),
  ent('9', 'Company', ['Rosneft Oil Company'], {
    identifiers: [{ type: 'registration', value: '1027700043502' }],
  }),
];

const index = buildIndex(ENTITIES, 'test-v1');
const screener = openIndex(index);
const opts = (over: Partial<ScreenOptions> = {}): ScreenOptions => ({
  datasets: ['sanctions', 'pep'] as AmlDataset[],
  policy: DEFAULT_POLICY,
  ...over,
});
const ids = (s: ScreenSubject, o: ScreenOptions = opts()): string[] =>
  screener.screen(s, o).matches.map((m) => m.entity_id);

describe('screen', () => {
  it('finds exact and reordered names', () => {
    const r = screener.screen({ name: 'Vladimir Putin' }, opts());
    expect(r.matches[0]?.entity_id).toBe('us_ofac_sdn:1');
    expect(r.matches[0]?.score).toBeGreaterThanOrEqual(0.9);
    expect(ids({ name: 'Putin Vladimir Vladimirovich' })[0]).toBe('us_ofac_sdn:1');
    expect(r.dataset_version).toBe('test-v1');
  });

  it('finds typos, transliterations and aliases', () => {
    expect(ids({ name: 'Vladimir Pulin' })).toContain('us_ofac_sdn:1');
    expect(ids({ name: 'Wladimir Poutine' })).toContain('us_ofac_sdn:1');
    expect(ids({ name: 'Путин Владимир' })).toContain('us_ofac_sdn:1');
    expect(ids({ name: 'Sergey Lavrov' })).toEqual(['un_sc:7']);
    const m = screener.screen({ name: 'Nobody', aliases: ['Abu Bakr al-Baghdadi'] }, opts()).matches[0];
    expect(m?.evidence.query_name).toBe('Abu Bakr al-Baghdadi');
  });

  it('excludes weak aliases by default and includes them on request with a discount', () => {
    expect(ids({ name: 'Abu Dua' })).toEqual([]);
    const policy = resolvePolicy({ include_weak_aliases: true });
    const m = screener.screen({ name: 'Abu Dua' }, opts({ policy })).matches[0];
    expect(m?.entity_id).toBe('us_ofac_sdn:3');
    expect(m?.evidence.matched_name_kind).toBe('weak');
    expect(m?.evidence.features['weak_alias']).toBeLessThan(0);
    expect(m?.score).toBeLessThan(1);
  });

  it('filters by dataset and source', () => {
    expect(ids({ name: 'Hans Muster' })).toEqual(['us_congress:8']);
    expect(ids({ name: 'Hans Muster' }, opts({ datasets: ['sanctions'] }))).toEqual([]);
    const exclude = resolvePolicy({ exclude_sources: ['un_sc'] });
    expect(ids({ name: 'Sergei Lavrov' }, opts({ policy: exclude }))).toEqual([]);
    const include = resolvePolicy({ include_sources: ['un_sc'] });
    expect(ids({ name: 'Sergei Lavrov' }, opts({ policy: include }))).toEqual(['un_sc:7']);
    expect(ids({ name: 'Vladimir Putin' }, opts({ policy: include }))).toEqual([]);
  });

  it('filters right when more scopes come and go than a thread caches', () => {
    // every non-empty set of AML datasets is a scope of its own (127 > the 64 cached), twice over
    for (let round = 0; round < 2; round++)
      for (let bits = 1; bits < 1 << AML_DATASETS.length; bits++) {
        const datasets = AML_DATASETS.filter((_, i) => (bits & (1 << i)) !== 0);
        expect(ids({ name: 'Hans Muster' }, opts({ datasets }))).toEqual(
          datasets.includes('pep') ? ['us_congress:8'] : [],
        );
      }
  });

  it('applies DOB bonus and mismatch penalty', () => {
    const base = screener.screen({ name: 'Vladimir Putin' }, opts()).matches[0]!;
    const same = screener.screen({ name: 'Vladimir Putin', date_of_birth: '1952-10-07' }, opts()).matches[0]!;
    expect(same.evidence.features['dob']).toBeGreaterThan(0);
    expect(same.score).toBeGreaterThanOrEqual(base.score);
    const other = screener.screen(
      { name: 'Ivan Petrov', date_of_birth: '1990-01-01' },
      opts({ min_score: 0 }),
    );
    const m = other.matches.find((x) => x.entity_id === 'us_ofac_sdn:2')!;
    expect(m.evidence.features['dob']).toBeLessThan(0);
    expect(m.score).toBeLessThan(0.9);
    const near = screener.screen({ name: 'Ivan Petrov', date_of_birth: '1971' }, opts()).matches[0]!;
    expect(near.evidence.features['dob']).toBeGreaterThan(0);
  });

  it('treats an exact identifier as strong evidence', () => {
    const r = screener.screen({ name: 'Rosneft', registration_number: '1027700043502' }, opts());
    expect(r.matches[0]?.entity_id).toBe('us_ofac_sdn:9');
    expect(r.matches[0]?.score).toBeGreaterThanOrEqual(0.95);
    expect(r.matches[0]?.evidence.features['identifier']).toBe(1);
    const v = screener.screen({ name: 'Sea Queen', type: 'vessel', imo_number: 'IMO9187629' }, opts());
    expect(v.matches.map((m) => m.entity_id)).toEqual(['us_ofac_sdn:5']);
  });

  it('keeps persons and vessels apart and penalises person vs organization', () => {
    expect(ids({ name: 'Ocean Star', type: 'person' })).toEqual(['us_ofac_sdn:6']);
    expect(ids({ name: 'Ocean Star', type: 'vessel' })).toEqual(['us_ofac_sdn:5']);
    expect(ids({ name: 'Ocean Star' }).sort()).toEqual(['us_ofac_sdn:5', 'us_ofac_sdn:6']);
    const r = screener.screen({ name: 'Acme Trading LLC', type: 'person' }, opts({ min_score: 0 }));
    expect(r.matches[0]?.evidence.features['entity_type']).toBeLessThan(0);
  });

  it('does not match on legal form or one common token only', () => {
    expect(ids({ name: 'Global Trading LLC', type: 'company' })).toEqual([]);
    expect(ids({ name: 'Ivan Sidorov' })).toEqual([]);
    expect(ids({ name: 'Acme Trading Ltd', type: 'company' })).toEqual(['us_ofac_sdn:4']);
  });

  it('honours thresholds, limits and carries evidence', () => {
    const policy = resolvePolicy({ dataset_thresholds: { sanctions: 0.99 } });
    expect(ids({ name: 'Vladimir Pulin' }, opts({ policy }))).toEqual([]);
    expect(effectiveThreshold(policy, ['sanctions'])).toBe(0.99);
    expect(
      effectiveThreshold(resolvePolicy({ use_case_thresholds: { payments: 0.9 } }), ['pep'], 'payments'),
    ).toBe(0.9);
    const r = screener.screen({ name: 'Vladimir Putin' }, opts({ min_score: 0, limit: 1 }));
    expect(r.matches).toHaveLength(1);
    const ev = r.matches[0]!.evidence;
    expect(ev.matched_name).toBeTypeOf('string');
    expect(ev.threshold).toBe(DEFAULT_POLICY.review_threshold);
    expect(ev.features['name']).toBeGreaterThan(0);
    expect(ev.dataset_version).toBe('test-v1');
  });

  it('applies feature weights', () => {
    const policy = resolvePolicy({ feature_weights: { dob: 0 } });
    const m = screener.screen({ name: 'Ivan Petrov', date_of_birth: '1990' }, opts({ policy })).matches[0];
    expect(m?.score).toBe(1);
  });

  it('is deterministic', () => {
    const a = screener.screen({ name: 'Ocean Star' }, opts({ min_score: 0 }));
    const b = screener.screen({ name: 'Ocean Star' }, opts({ min_score: 0 }));
    expect(a).toEqual(b);
  });
});

describe('index', () => {
  it('round-trips through serialize/deserialize with identical results', () => {
    const buf = serializeIndex(index);
    const back = deserializeIndex(buf);
    expect(back.version).toBe('test-v1');
    for (const b of Object.values(back.buffers)) expect(b).toBeInstanceOf(SharedArrayBuffer);
    const s2 = openIndex(back);
    for (const name of ['Vladimir Putin', 'Ocean Star', 'Abu Bakr Baghdadi', 'Acme Trading']) {
      expect(s2.screen({ name }, opts({ min_score: 0 }))).toEqual(
        screener.screen({ name }, opts({ min_score: 0 })),
      );
    }
    expect(() => deserializeIndex(Buffer.from('nope-nope-nope'))).toThrow();
  });

  it('reports stats', () => {
    const st = indexStats(index);
    expect(st.entities).toBe(ENTITIES.length);
    expect(st.names).toBeGreaterThanOrEqual(ENTITIES.length);
    expect(st.by_schema['Person']).toBe(6);
    expect(st.by_dataset['sanctions']).toBe(8);
    expect(st.bytes).toBeGreaterThan(0);
  });

  it("reports an entity's best-scoring name, the first of equal ones, whichever name comes first", () => {
    // names are scored in id order, and a name whose bound cannot beat its entity's best so far is not scored
    const s = openIndex(
      buildIndex(
        [
          ent('1', 'Person', ['Ivan Petrovich Demovsky', 'Ivan Demovsky', 'Demovsky Ivan', 'Ivan Demovskiy']),
          ent('2', 'Person', ['Ivan Demovsky', 'Ivan Petrovich Demovsky']),
        ],
        'v1',
      ),
    );
    const matches = s.screen({ name: 'Ivan Demovsky' }, opts({ min_score: 0.5 })).matches;
    expect(matches.map((m) => [m.entity_id, m.score, m.evidence.matched_name])).toEqual([
      ['us_ofac_sdn:1', 1, 'Ivan Demovsky'],
      ['us_ofac_sdn:2', 1, 'Ivan Demovsky'],
    ]);
  });

  it('scores a name shared by several entities as each of them alone would', () => {
    // one content (normalised text) in a company, a person and as a weak alias: bestNames computes its bounds and
    // score once per content and org flag, so the organisation rules and the weak discount must still apply apart
    const shared = [
      ent('c', 'Company', ['Acme Star']),
      ent('p', 'Person', ['Acme Star']),
      ent('w', 'Person', ['Jon Doe', { value: 'Acme Star', kind: 'weak' }]),
    ];
    const o = opts({ min_score: 0.3, policy: resolvePolicy({ include_weak_aliases: true }) });
    const scores = (entities: Entity[], q: ScreenSubject): Record<string, number> =>
      Object.fromEntries(
        openIndex(buildIndex(entities, 'v1'))
          .screen(q, o)
          .matches.map((m) => [m.entity_id, m.score]),
      );
    for (const name of ['Acme Star Trading', 'Acme Star', 'Akme Starr']) {
      const together = scores(shared, { name });
      const alone = Object.assign({}, ...shared.map((e) => scores([e], { name })));
      expect(Object.keys(together).length).toBe(3);
      expect(together).toEqual(alone);
    }
    const t = scores(shared, { name: 'Acme Star Trading' });
    expect(t['us_ofac_sdn:c']).not.toBe(t['us_ofac_sdn:p']);
    expect(t['us_ofac_sdn:w']).toBeLessThan(t['us_ofac_sdn:p']!);
  });

  it('handles an empty index', () => {
    const s = openIndex(buildIndex([], 'empty'));
    expect(s.screen({ name: 'Anyone' }, opts()).matches).toEqual([]);
  });
});

describe('per-thread caches (prepared names, entity metadata)', () => {
  it('an index opened after another in the same thread reports its own names and metadata for the same ids', () => {
    // both indexes hold one entity: entity 0, name 0 in each, with different names, programs and sources
    const before = openIndex(
      buildIndex([ent('1', 'Person', ['Ivan Demovsky'], { programs: ['OLD-PROGRAM'] })], 'v1'),
    );
    const v2 = (): ReturnType<typeof openIndex> =>
      openIndex(
        buildIndex(
          [
            ent('2', 'Person', ['Ivan Petrovich Demovsky'], {
              programs: ['NEW-PROGRAM'],
              source: 'gb_hmt_sanctions',
            }),
          ],
          'v2',
        ),
      );
    const after = v2();
    const q = { name: 'Ivan Demovsky' };
    const o = opts({ min_score: 0.5 });
    const first = before.screen(q, o).matches;
    expect(first.map((m) => [m.entity_id, m.programs, m.score])).toEqual([
      ['us_ofac_sdn:1', ['OLD-PROGRAM'], 1],
    ]);
    const fresh = v2().screen(q, o).matches;
    const second = after.screen(q, o).matches;
    expect(
      second.map((m) => [m.entity_id, m.programs, m.evidence.matched_name, m.evidence.dataset_version]),
    ).toEqual([['gb_hmt_sanctions:2', ['NEW-PROGRAM'], 'Ivan Petrovich Demovsky', 'v2']]);
    expect(second[0]!.score).toBeLessThan(1);
    expect(second).toEqual(fresh);
  });

  it('a match owns its arrays: changing them does not change what later screens report', () => {
    const s = openIndex(buildIndex([ent('1', 'Person', ['Ivan Demovsky'], { programs: ['SDGT'] })], 'v1'));
    const first = s.screen({ name: 'Ivan Demovsky' }, opts()).matches[0]!;
    first.programs.push('ADDED');
    first.datasets.length = 0;
    const again = s.screen({ name: 'Ivan Demovsky' }, opts()).matches[0]!;
    expect(again.programs).toEqual(['SDGT']);
    expect(again.datasets).toEqual(['sanctions']);
  });
});
