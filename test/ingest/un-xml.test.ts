import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('un_xml — fixture', () => {
  it('parses individuals and entities, reports defects with line and field', async () => {
    const { entities, issues, byId } = await collect('un_xml', fixturePath('un_xml/un.xml'));
    expect(entities.map((e) => e.entity_id)).toEqual(['un_sc:1001', 'un_sc:1002', 'un_sc:2001']);
    const p = byId.get('1001')!;
    expect(p.schema).toBe('Person');
    expect(p.names).toEqual([
      { value: 'GÉRARD TESTU AL-EXAMPLI DEMO', kind: 'primary', script: 'Latn' },
      { value: 'جيرار تستو', kind: 'alias', script: 'Arab' },
      { value: 'Gerard Testu', kind: 'alias', script: 'Latn' },
      { value: 'Odd Quality', kind: 'alias', script: 'Latn' },
      { value: 'Abu Demo', kind: 'weak', script: 'Latn' },
    ]);
    expect(p.birth_dates).toEqual(['1960', '1963-04-11', '1965', '1966', '1973-11']);
    expect(p.nationalities).toEqual(['IR']); // "na" is "not available", not Namibia
    expect(p.countries).toEqual(['SY']);
    expect(p.birth_places).toEqual(['Exampleville, Egypt']);
    expect(p.identifiers).toEqual([
      { type: 'un_reference', value: 'QDI999' },
      { type: 'passport', value: 'A123456', country: 'EG' },
      { type: 'national_id', value: '998877' },
    ]);
    expect(p.programs).toEqual(['Al-Qaida']);
    expect(p.gender).toBe('male');
    expect(p.notes).toContain('Fictional & invented.');
    expect(namesOf(byId.get('1002'), 'primary')).toEqual(['Only Weak Name']);
    const org = byId.get('2001')!;
    expect(org.schema).toBe('Organization');
    expect(namesOf(org, 'former')).toEqual(['Old Example Front']);
    expect(org.countries).toEqual(['KP']);

    expect(issues.map((i) => `${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      '20:QUALITY:unknown alias QUALITY "dubious"; kept as alias',
      '22:ADDRESS/COUNTRY:unknown country "Atlantis"',
      '28:INDIVIDUAL_DATE_OF_BIRTH:unparseable EXACT "1963-13-45"',
      '31:ISSUING_COUNTRY:unknown country "Mordor"',
      '35:DATAID:INDIVIDUAL without DATAID; skipped',
      '38:name:entity 1002 has no primary name; promoted "Only Weak Name"',
      '53::unexpected <BOGUS> in <ENTITIES>; skipped',
    ]);
    expect(issues.every((i) => i.file === 'un.xml')).toBe(true);
  });
});

describe.skipIf(!hasSharedData)('un_xml — real data', () => {
  it('reads the UN consolidated list (2026-02-27)', async () => {
    const { entities, issues, byId } = await collect('un_xml', dataPath('un_sc/UN_consolidated.xml'));
    expect(countBy(entities, (e) => e.schema)).toEqual({ Person: 730, Organization: 273 });
    expect(issues).toEqual([]);
    const scripts = countBy(
      entities.flatMap((e) => e.names),
      (n) => n.script ?? '-',
    );
    // 366 NAME_ORIGINAL_SCRIPT + 6 aliases written in Arabic; 11 Cyrillic originals.
    expect(scripts['Arab']).toBe(372);
    expect(scripts['Cyrl']).toBe(11);
    const weak = entities.flatMap((e) => e.names).filter((n) => n.kind === 'weak');
    expect(weak.length).toBeGreaterThan(590);
    expect(weak.length).toBeLessThanOrEqual(615);

    const saddam = byId.get('6908048')!;
    expect(saddam.entity_id).toBe('un_sc:6908048');
    expect(namesOf(saddam, 'primary')).toEqual(['SADDAM HUSSEIN AL-TIKRITI']);
    expect(namesOf(saddam, 'alias')).toEqual(['صدام حسين التكريتي']);
    expect(namesOf(saddam, 'weak')).toEqual(['Abu Ali']);
    expect(saddam.birth_dates).toEqual(['1937-04-28']);
    expect(saddam.nationalities).toEqual(['IQ']);
    expect(saddam.programs).toEqual(['Iraq']);
    expect(saddam.identifiers).toContainEqual({ type: 'un_reference', value: 'IQI001' });
    const adl = byId.get('113219')!;
    expect(namesOf(adl, 'alias')).toContain('Sayf-Al Adl');
    expect(adl.nationalities).toEqual(['EG']);
    const programs = new Set(entities.flatMap((e) => e.programs));
    expect(programs).toEqual(
      new Set([
        'Al-Qaida',
        'DPRK',
        'Taliban',
        'Iran',
        'Iraq',
        'DRC',
        'Libya',
        'Somalia',
        'CAR',
        'Haiti',
        'Yemen',
        'GB',
        'Sudan',
        'SouthSudan',
      ]),
    );
  });
});
