import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('uk_csv — fixture', () => {
  it('joins subjects with names, dobs and identifiers and reports defects', async () => {
    const { entities, issues, byId } = await collect('uk_csv', fixturePath('uk_csv'));
    expect(entities.map((e) => e.entity_id)).toEqual([
      'gb_fcdo:RUS9001',
      'gb_fcdo:RUS9002',
      'gb_fcdo:DPR9003',
      'gb_fcdo:RUS9006',
    ]);
    const p = byId.get('RUS9001')!;
    expect(p.schema).toBe('Person');
    // "IVAN TESTOV" (alias) duplicates the primary_variation "Ivan Testov" case-insensitively.
    expect(p.names.map((n) => `${n.kind}:${n.value}`)).toEqual([
      'primary:Ivan Fictionovich TESTOV',
      'alias:Ivan Testov',
      'alias:Vanya Testov',
      'weak:The Tester',
    ]);
    expect(p.birth_dates).toEqual(['1970-05-06', '1971', '1972-02']);
    expect(p.programs).toEqual(['RUS']);
    expect(p.identifiers).toEqual([
      { type: 'passport', value: '751234567', country: 'RU' },
      { type: 'other', value: 'ABC' },
    ]);
    expect(byId.get('RUS9002')!.schema).toBe('Organization');
    const ship = byId.get('DPR9003')!;
    expect(ship.schema).toBe('Vessel');
    expect(namesOf(ship, 'primary')).toEqual(['SEA DEMO']); // assembled from name_1..6
    expect(ship.identifiers).toEqual([
      { type: 'un_reference', value: 'KPE999' },
      { type: 'imo', value: '9999993' },
    ]);
    expect(issues.map((i) => `${i.file}:${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      'subject_dobs.csv:5:year:unparseable date "1972-02-30"',
      'subject_identifiers.csv:6:identifier_type:unknown identifier_type "tattoo"; kept as other',
      'subject_names.csv:8:name_type:unknown name_type "nickname"; kept as alias',
      'subjects.csv:5:subject_type:unknown subject_type "spaceship"; row skipped',
      'subjects.csv:6::expected 6 columns, found 4; row skipped',
      'subjects.csv:7:name:entity RUS9006 has no primary name; promoted "Only Weak"',
      'subject_names.csv:11:unique_id:orphan row: unique_id XXX0001 not in subjects.csv',
      'subject_identifiers.csv:7:unique_id:orphan row: unique_id ZZZ0009 not in subjects.csv',
    ]);
  });
});

describe.skipIf(!hasSharedData)('uk_csv — real data', () => {
  it('reads the derived UK sanctions list', async () => {
    const { entities, issues, byId } = await collect('uk_csv', dataPath('uk_sanctions_list_derived'));
    expect(countBy(entities, (e) => e.schema)).toEqual({ Person: 3883, Organization: 1531, Vessel: 632 });
    expect(issues).toEqual([]);
    const kinds = countBy(
      entities.flatMap((e) => e.names),
      (n) => n.kind,
    );
    expect(kinds['primary']).toBe(6050); // 6,051 primary rows, one of them a case-duplicate
    expect(kinds['weak']).toBe(601);
    const putin = byId.get('RUS0251')!;
    expect(putin.entity_id).toBe('gb_fcdo:RUS0251');
    expect(namesOf(putin, 'primary')).toEqual(['Vladimir Vladimirovich PUTIN']);
    expect(namesOf(putin, 'alias')).toContain('Vladimir Putin');
    expect(putin.birth_dates).toEqual([]); // the reshaped data has no DOBs for the RUS regime
    expect(putin.programs).toEqual(['RUS']);
    expect(byId.get('AFG0006')!.birth_dates).toEqual(
      expect.arrayContaining(['1967-01-01', '1969-06-04', '1968']),
    );
    const ship = byId.get('DPR0075')!;
    expect(ship.schema).toBe('Vessel');
    expect(ship.identifiers).toContainEqual({ type: 'imo', value: '9562233' });
  });
});
