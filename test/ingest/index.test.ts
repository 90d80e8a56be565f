import { describe, expect, it } from 'vitest';
import type { Entity } from '../../ingest/entity.js';
import { AML_DATASETS, ENTITY_SCHEMAS } from '../../ingest/entity.js';
import { FORMATS, readSource } from '../../ingest/index.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

const ALL = [
  'ofac_sdn_csv',
  'ofac_cons_csv',
  'un_xml',
  'us_csl_csv',
  'uk_csv',
  'ftm_json',
  'senzing_json',
  'bis_dpl_tsv',
] as const;

const REAL: [string, string][] = [
  ['ofac_sdn_csv', 'ofac_sdn'],
  ['ofac_sdn_csv', 'ofac_sdn_2021'],
  ['ofac_cons_csv', 'ofac_cons'],
  ['un_xml', 'un_sc/UN_consolidated.xml'],
  ['us_csl_csv', 'us_csl/consolidated.csv.gz'],
  ['uk_csv', 'uk_sanctions_list_derived'],
  ['ftm_json', 'opensanctions/yente_fixtures'],
  ['senzing_json', 'opensanctions/watchman/us_congress_senzing.json'],
  ['bis_dpl_tsv', 'us_bis_dpl/dpl.txt'],
];

/** Contract violations of one entity, as readable strings (collected, not asserted one by one: the real
 * lists have ~120k names and per-value expect() calls would dominate the run time). */
function shapeProblems(e: Entity): string[] {
  const out: string[] = [];
  const bad = (what: string) => out.push(`${e.entity_id}: ${what}`);
  if (e.entity_id !== `${e.source}:${e.source_id}`) bad('entity_id is not source:source_id');
  if (!(ENTITY_SCHEMAS as readonly string[]).includes(e.schema)) bad(`schema ${e.schema}`);
  if (e.names[0]?.kind !== 'primary') bad('first name is not primary');
  const seen = new Set<string>();
  for (const n of e.names) {
    if (n.value !== n.value.trim() || /\s{2}/.test(n.value) || n.value === '')
      bad(`untidy name "${n.value}"`);
    if (seen.has(n.value.toLowerCase())) bad(`duplicate name "${n.value}"`);
    seen.add(n.value.toLowerCase());
  }
  for (const c of [...e.countries, ...e.nationalities]) if (!/^[A-Z]{2}$/.test(c)) bad(`country ${c}`);
  for (const d of e.birth_dates) if (!/^\d{4}(-\d{2}(-\d{2})?)?$/.test(d)) bad(`date ${d}`);
  for (const id of e.identifiers)
    if (!/^[\p{L}\p{N}]+$/u.test(id.value) || id.value !== id.value.toUpperCase())
      bad(`identifier ${id.value}`);
  if (e.datasets.length === 0) bad('no dataset');
  for (const d of e.datasets) if (!(AML_DATASETS as readonly string[]).includes(d)) bad(`dataset ${d}`);
  return out;
}

describe('readSource', () => {
  it('lists every format', () => {
    expect([...FORMATS].sort()).toEqual([...ALL].sort());
  });

  it('throws a clear error for an unknown format or a missing path', () => {
    expect(() => readSource('eu_fsf_xml', fixturePath('un_xml/un.xml'), () => {})).toThrow(
      /unknown format "eu_fsf_xml" \(known: .*ofac_sdn_csv/,
    );
    expect(() => readSource('toString', '/tmp', () => {})).toThrow(/unknown format "toString"/);
    for (const f of ALL) {
      expect(() => readSource(f, '/nonexistent/veriscreen/list', () => {})).toThrow(/path not found/);
    }
  });

  it('rejects a file where a directory is expected, on first iteration', async () => {
    const it = readSource('uk_csv', fixturePath('un_xml/un.xml'), () => {})[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow(/expected a directory/);
  });

  it('produces well-formed entities from every fixture', async () => {
    const fixtures: [string, string][] = [
      ['ofac_sdn_csv', 'ofac_sdn_csv'],
      ['ofac_cons_csv', 'ofac_cons_csv'],
      ['un_xml', 'un_xml/un.xml'],
      ['us_csl_csv', 'us_csl_csv/csl-excerpt.csv.gz'],
      ['uk_csv', 'uk_csv'],
      ['ftm_json', 'ftm_json'],
      ['senzing_json', 'senzing_json/us_congress_senzing.json'],
      ['bis_dpl_tsv', 'bis_dpl_tsv/dpl.txt'],
    ];
    for (const [format, p] of fixtures) {
      let n = 0;
      const problems: string[] = [];
      for await (const e of readSource(format, fixturePath(p), () => {})) {
        problems.push(...shapeProblems(e));
        n++;
      }
      expect(problems).toEqual([]);
      expect(n, format).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!hasSharedData)('all real lists', () => {
  it('parse into well-formed, unique entities', async () => {
    let total = 0;
    const problems: string[] = [];
    for (const [format, p] of REAL) {
      const ids = new Set<string>();
      for await (const e of readSource(format, dataPath(p), () => {})) {
        problems.push(...shapeProblems(e));
        if (ids.has(e.entity_id)) problems.push(`${e.entity_id}: duplicate id in ${p}`);
        ids.add(e.entity_id);
        total++;
      }
    }
    expect(problems).toEqual([]);
    expect(total).toBe(15_443 + 8976 + 442 + 1003 + 14_048 + 6046 + 596 + 1317 + 547);
  });
});
