import { describe, expect, it } from 'vitest';
import { FORMATS, readSource } from '../../ingest/index.js';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData, repoRoot } from './shared-data.js';

describe('ofac_sdn_csv — fixture', () => {
  it('parses good rows, reports bad ones with file/line/field and keeps going', async () => {
    const { entities, issues, byId } = await collect('ofac_sdn_csv', fixturePath('ofac_sdn_csv'));
    expect(entities.map((e) => e.source_id)).toEqual(['101', '102', '103', '106', '107', '109']);

    const p = byId.get('101')!;
    expect(p.entity_id).toBe('us_ofac_sdn:101');
    expect(p.schema).toBe('Person');
    expect(p.programs).toEqual(['SDGT', 'IRGC']);
    expect(p.datasets).toEqual(['sanctions']);
    expect(p.birth_dates).toEqual(['1950', '1952-10-12']);
    expect(p.birth_places).toEqual(['Springfield, Syria']);
    expect(p.nationalities).toEqual(['SY', 'LB']);
    expect(p.countries).toEqual(['SY']);
    expect(p.gender).toBe('male');
    // alt.csv "testman,   alpha beta" duplicates the primary; "ALPHA T" is both weak (Remarks) and fka (alt.csv).
    expect(p.names).toEqual([
      { value: 'TESTMAN, Alpha Beta', kind: 'primary', script: 'Latn' },
      { value: 'TESTMAN, Alpha', kind: 'alias', script: 'Latn' },
      { value: 'ALPHA T', kind: 'former', script: 'Latn' },
      { value: 'OLD ALPHA', kind: 'former', script: 'Latn' },
    ]);
    expect(p.identifiers).toEqual([
      { type: 'passport', value: 'A123456', country: 'SY' },
      { type: 'passport', value: 'B999', country: 'LB' },
      { type: 'national_id', value: '7788', country: 'SY' },
    ]);

    const org = byId.get('102')!;
    expect(org.schema).toBe('Organization');
    expect(namesOf(org, 'primary')).toEqual(['FAKE "QUOTED" TRADING CO., LTD.']);
    expect(namesOf(org, 'alias')).toEqual(['NEW FAKE TRADING']);
    expect(namesOf(org, 'weak')).toEqual(['FQT']);
    expect(org.countries).toEqual(['RU', 'PS']);
    expect(org.identifiers).toContainEqual({ type: 'lei', value: '253400V1H6ART1UQ0N98' });
    expect(org.identifiers).toContainEqual({
      type: 'crypto_wallet',
      value: '12QTD5BFWRSDNSAZY76UVE1XYCGNTOJH9H',
    });

    const v = byId.get('103')!;
    expect(v.schema).toBe('Vessel');
    expect(v.countries).toEqual(['PA']);
    expect(v.identifiers).toEqual([
      { type: 'call_sign', value: '9BQX7' },
      { type: 'imo', value: '9187629' },
      { type: 'mmsi', value: '572469210' },
    ]);
    expect(namesOf(v, 'former')).toEqual(['SEA TEST']);

    expect(byId.get('106')!.birth_dates).toEqual(['1960', '1961', '1962']);
    expect(byId.get('107')!.schema).toBe('Aircraft');
    // sdn_comments.csv continues the truncated Remarks of 109 mid-word.
    expect(namesOf(byId.get('109'), 'weak')).toEqual(['CONTINUED NAME']);

    const got = issues.map((i) => `${i.file}:${i.line}:${i.field ?? ''}:${i.message}`);
    expect(got).toEqual(
      expect.arrayContaining([
        'fixture-sdn.csv:4::expected 12 columns, found 4; row skipped',
        'fixture-sdn.csv:5:SDN_Type:unknown SDN_Type "spaceship"; row skipped',
        'fixture-sdn.csv:6:Remarks.DOB:unparseable date "31 Feb 1970"',
        'fixture-sdn.csv:6:Remarks.nationality:unknown country "Atlantis"',
        'fixture-sdn.csv:8:name:entity 108 has no name; skipped',
        'fixture-sdn.csv:9:ent_num:invalid ent_num "abc"; row skipped',
        'fixture-alt.csv:4:alt_type:unknown alt_type "xyz"',
        'fixture-alt.csv:7::expected 5 columns, found 3; row skipped',
        'fixture-add.csv:3:Country:unknown country "Atlantis"',
        'fixture-alt.csv:6:ent_num:orphan row: ent_num 999 not in fixture-sdn.csv',
        'fixture-add.csv:5:ent_num:orphan row: ent_num 998 not in fixture-sdn.csv',
        'fixture-sdn_comments.csv:2:ent_num:orphan row: ent_num 997 not in fixture-sdn.csv',
      ]),
    );
  });

  it('throws clear errors for unknown formats and missing paths', () => {
    expect(() => readSource('nope', '/tmp', () => {})).toThrow(/unknown format "nope"/);
    expect(() => readSource('ofac_sdn_csv', '/definitely/not/here', () => {})).toThrow(/not found/);
    expect(FORMATS).toContain('ofac_sdn_csv');
  });

  it('loads the fictional demo dataset cleanly', async () => {
    const { entities, issues, byId } = await collect('ofac_sdn_csv', `${repoRoot}/ingest/fixtures/demo`);
    expect(issues).toEqual([]);
    expect(entities).toHaveLength(25);
    expect(countBy(entities, (e) => e.schema)).toEqual({
      Person: 13,
      Organization: 9,
      Vessel: 2,
      Aircraft: 1,
    });
    for (const e of entities) {
      expect(e.programs).toContain('DEMO');
      expect(e.notes).toMatch(/^FICTIONAL DEMO ENTRY/m);
    }
    const ivan = byId.get('900001')!;
    expect(namesOf(ivan)).toEqual([
      'DEMOVSKY, Ivan Petrovich',
      'DEMOVSKI, Ivan',
      'DEMOWSKY, Iwan Petrowitsch',
      'VANYA DEMO',
    ]);
    expect(ivan.birth_dates).toEqual(['1961-03-12']);
    expect(ivan.identifiers).toEqual([{ type: 'passport', value: 'DM1234567', country: 'RU' }]);
    expect(byId.get('900201')!.identifiers).toContainEqual({ type: 'imo', value: '9999993' });
    expect(namesOf(byId.get('900103'), 'weak')).toEqual(['DEMOBANK']);
  });
});

describe.skipIf(!hasSharedData)('ofac_sdn_csv — real data', () => {
  it('ofac_sdn (sdn 2024-07-02, side files 2025-01-03)', async () => {
    const { entities, issues, byId } = await collect('ofac_sdn_csv', dataPath('ofac_sdn'));
    expect(entities).toHaveLength(15_443);
    expect(countBy(entities, (e) => e.schema)).toEqual({
      Organization: 7270,
      Person: 6927,
      Vessel: 872,
      Aircraft: 374,
    });
    const orphans = countBy(
      issues.filter((i) => i.message.startsWith('orphan')),
      (i) => i.file,
    );
    expect(orphans['alt.csv']).toBe(1088);
    expect(orphans['add.csv']).toBeGreaterThan(1500);
    // Everything else is rare: unknown countries in a few addresses and identifier qualifiers.
    expect(issues.filter((i) => !i.message.startsWith('orphan')).length).toBeLessThan(30);

    const putin = byId.get('35096')!;
    expect(namesOf(putin, 'primary')).toEqual(['PUTIN, Vladimir Vladimirovich']);
    expect(putin.schema).toBe('Person');
    expect(putin.birth_dates).toEqual(['1952-10-07']);
    expect(putin.programs).toContain('RUSSIA-EO14024');
    expect(putin.nationalities).toEqual(['RU']);
    expect(putin.gender).toBe('male');
    const bnc = byId.get('306')!;
    expect(namesOf(bnc, 'weak')).toEqual(['BNC']);
    expect(namesOf(bnc, 'alias')).toContain('NATIONAL BANK OF CUBA');
    expect(bnc.countries).toEqual(expect.arrayContaining(['CH', 'ES', 'JP', 'PA']));
    const artavil = byId.get('15036')!;
    expect(artavil.schema).toBe('Vessel');
    expect(artavil.identifiers).toEqual(
      expect.arrayContaining([
        { type: 'imo', value: '9187629' },
        { type: 'mmsi', value: '572469210' },
        { type: 'call_sign', value: 'T2EU4' },
      ]),
    );
    for (const e of entities) {
      expect(e.names[0]!.kind).toBe('primary');
      for (const c of [...e.countries, ...e.nationalities]) expect(c).toMatch(/^[A-Z]{2}$/);
      for (const d of e.birth_dates) expect(d).toMatch(/^\d{4}(-\d{2}(-\d{2})?)?$/);
    }
  });

  it('ofac_sdn_2021 is consistent and predates the Putin designation', async () => {
    const { entities, issues, byId } = await collect('ofac_sdn_csv', dataPath('ofac_sdn_2021'));
    expect(entities).toHaveLength(8976);
    expect(countBy(entities, (e) => e.schema)).toEqual({
      Organization: 3673,
      Person: 4620,
      Vessel: 406,
      Aircraft: 277,
    });
    expect(issues.filter((i) => i.message.startsWith('orphan'))).toEqual([]);
    expect(byId.has('35096')).toBe(false);
    expect(byId.has('306')).toBe(true);
  });
});
