import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('us_csl_csv — fixture', () => {
  it('reads gzip, merges multi-list rows, parses ids, reports bad rows', async () => {
    const { entities, issues, byId } = await collect(
      'us_csl_csv',
      fixturePath('us_csl_csv/csl-excerpt.csv.gz'),
    );
    expect(entities.map((e) => e.source_id)).toEqual(['5001', 'bbb2', '5004', '5005', 'fff6']);
    const p = byId.get('5001')!;
    expect(p.entity_id).toBe('us_csl:5001');
    expect(p.schema).toBe('Person');
    expect(namesOf(p)).toEqual(['EXAMPLOV, Ivan', 'EXAMPLOFF, Ivan', 'IVAN THE EXAMPLE', 'EXAMPLOV, I.']);
    // SDN + SSI rows merged.
    expect(p.programs).toEqual(['SDGT', 'IRGC', 'UKRAINE-EO13662']);
    expect(p.birth_dates).toEqual(['1968', '1970-01-02']);
    expect(p.nationalities).toEqual(['RU', 'BY']);
    expect(p.countries).toEqual(['RU']);
    expect(p.gender).toBe('male');
    expect(p.identifiers).toEqual([
      { type: 'passport', value: '1234567', country: 'RU' },
      { type: 'passport', value: 'K475336', country: 'JO' },
      { type: 'crypto_wallet', value: '1FZ29BQP82PE3VXX' },
    ]);
    const el = byId.get('bbb2')!;
    expect(el.schema).toBe('LegalEntity');
    expect(el.datasets).toEqual(['debarment']);
    expect(el.countries).toEqual(['BY']);
    const v = byId.get('5005')!;
    expect(v.schema).toBe('Vessel');
    expect(v.countries).toEqual(['IR']);
    expect(v.identifiers).toEqual([
      { type: 'call_sign', value: '9BXX' },
      { type: 'imo', value: '9999981' },
      { type: 'mmsi', value: '999000111' },
    ]);
    expect(issues.map((i) => `${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      '5::expected 29 columns, found 2; row skipped',
      '6:type:unknown type "Spaceship"; row skipped',
      '7:dates_of_birth:unparseable date "31 Feb 1970"',
      '7:nationalities:unknown country "XX"',
      '9:entity_number:entity 5001 repeated non-adjacently; row skipped',
      '10:source:unknown list "Mystery List (XYZ) - Nowhere"; treated as sanctions',
      '11:_id:row without entity_number or _id; skipped',
    ]);
  });
});

describe.skipIf(!hasSharedData)('us_csl_csv — real data', () => {
  it('reads the 2022 CSL (14,160 rows → 14,048 entities after merging multi-list rows)', async () => {
    const { entities, issues, byId } = await collect('us_csl_csv', dataPath('us_csl/consolidated.csv.gz'));
    expect(entities).toHaveLength(14_048);
    expect(countBy(entities, (e) => e.schema)).toEqual({
      Person: 5284,
      Organization: 4423,
      LegalEntity: 3625,
      Vessel: 433,
      Aircraft: 283,
    });
    expect(countBy(entities, (e) => e.datasets.join('+'))).toEqual({ sanctions: 10_423, debarment: 3625 });
    expect(issues.length).toBeLessThan(5);
    const bnc = byId.get('306')!;
    expect(namesOf(bnc)).toEqual(['BANCO NACIONAL DE CUBA', 'BNC', 'NATIONAL BANK OF CUBA']);
    expect(bnc.programs).toEqual(['CUBA']);
    expect(bnc.countries).toEqual(expect.arrayContaining(['CH', 'ES', 'JP', 'PA']));
    // On SDN, SSI and CAP: one entity.
    expect(byId.get('18725')!.notes).toMatch(/Capta List[\s\S]*Specially Designated[\s\S]*Sectoral/);
    const el = byId.get('4398d33e9e93c7477af39f1e0bfffc13ddd47bcc')!;
    expect(namesOf(el, 'primary')).toEqual(['140 Repair Plant JSC']);
    expect(el.schema).toBe('LegalEntity');
    expect(el.datasets).toEqual(['debarment']);
    expect(el.countries).toEqual(['BY']);
  });
});
