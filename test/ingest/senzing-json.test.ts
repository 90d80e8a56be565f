import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('senzing_json — fixture', () => {
  it('reads nested and flat Senzing records and reports bad lines', async () => {
    const { entities, issues, byId } = await collect(
      'senzing_json',
      fixturePath('senzing_json/us_congress_senzing.json'),
    );
    expect(entities.map((e) => e.entity_id)).toEqual([
      'us_congress:Q-TEST-1',
      'us_congress:Q-TEST-2',
      'us_congress:Q-TEST-4',
    ]);
    const p = byId.get('Q-TEST-1')!;
    expect(p.names).toEqual([
      { value: 'Exampla R. Testperson', kind: 'primary', script: 'Latn' },
      { value: 'Exampla Testperson', kind: 'alias', script: 'Latn' },
      { value: 'Ex', kind: 'alias', script: 'Latn' },
    ]);
    expect(p.birth_dates).toEqual(['1961']);
    expect(p.nationalities).toEqual(['US']);
    expect(p.datasets).toEqual(['pep']);
    expect(p.identifiers).toEqual([{ type: 'wikidata', value: 'Q999999999' }]);
    expect(namesOf(byId.get('Q-TEST-2'))).toEqual(['Flat Attributes']);
    expect(byId.get('Q-TEST-2')!.gender).toBe('female');
    expect(byId.get('Q-TEST-4')!.schema).toBe('Organization');
    expect(byId.get('Q-TEST-4')!.countries).toEqual(['US']);
    expect(issues.map((i) => `${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      '1:NAMES.NAME_TYPE:unknown NAME_TYPE "NICKNAME"; kept as alias',
      '2:RECORD_TYPE:record Q-POSITION has no RECORD_TYPE (position record); skipped',
      '3:DATES.DATE_OF_BIRTH:unparseable date "1975-13-01"',
      '3:COUNTRIES.NATIONALITY:unknown country "Atlantis"',
      '4:RECORD_TYPE:unknown RECORD_TYPE "VEHICLE"; skipped',
      '5:RECORD_ID:record without RECORD_ID; skipped',
      '7::invalid JSON line; skipped',
      '9::line is not a JSON object; skipped',
    ]);
  });
});

describe.skipIf(!hasSharedData)('senzing_json — real data', () => {
  it('reads the us_congress PEP export', async () => {
    const { entities, issues, byId } = await collect(
      'senzing_json',
      dataPath('opensanctions/watchman/us_congress_senzing.json'),
    );
    expect(countBy(entities, (e) => e.schema)).toEqual({ Person: 1317 });
    expect(
      countBy(
        entities.flatMap((e) => e.names),
        (n) => n.kind,
      ),
    ).toEqual({ primary: 1317, alias: 33 });
    // The two position records ("United States representative" / "senator") are skipped and reported.
    expect(issues.map((i) => i.field)).toEqual(['RECORD_TYPE', 'RECORD_TYPE']);
    expect(byId.has('Q13218630')).toBe(false);
    for (const e of entities) expect(e.datasets).toEqual(['pep']);
    const franklin = byId.get('Q101198561')!;
    expect(franklin.entity_id).toBe('us_congress:Q101198561');
    expect(namesOf(franklin)).toEqual(['Scott Franklin', 'C. Scott Franklin']);
    expect(franklin.birth_dates).toEqual(['1964']);
    expect(franklin.nationalities).toEqual(['US']);
    expect(franklin.identifiers).toEqual([{ type: 'wikidata', value: 'Q101198561' }]);
    expect(namesOf(byId.get('NK-AQ4HymsADSK2D63MkyTqfC'))).toEqual(['Jennifer L. McClellan']);
  });
});
