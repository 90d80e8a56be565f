import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('ofac_cons_csv — fixture', () => {
  it('uses the cons_* file names, treats add/comments as optional, reports bad rows', async () => {
    const { entities, issues, byId } = await collect('ofac_cons_csv', fixturePath('ofac_cons_csv'));
    expect(entities.map((e) => e.entity_id)).toEqual(['us_ofac_cons:7001', 'us_ofac_cons:7002']);
    const co = byId.get('7001')!;
    expect(co.schema).toBe('Organization');
    expect(co.programs).toEqual(['CMIC-EO13959']);
    expect(namesOf(co, 'weak')).toEqual(['EMIC']);
    expect(co.identifiers).toEqual([{ type: 'registration', value: '91110000000000000X', country: 'CN' }]);
    const p = byId.get('7002')!;
    expect(namesOf(p)).toEqual(['PLCTEST, Fictional Person', 'PLCTEST, Fictional']);
    expect(p.birth_dates).toEqual(['1962']);
    expect(p.birth_places).toEqual(['Shati']);
    expect(issues.map((i) => `${i.file}:${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      'fixture-cons_prim.csv:3::expected 12 columns, found 2; row skipped',
      'fixture-cons_alt.csv:2:ent_num:orphan row: ent_num 7999 not in fixture-cons_prim.csv',
    ]);
  });
});

describe.skipIf(!hasSharedData)('ofac_cons_csv — real data', () => {
  it('reads the consolidated non-SDN list (2025-12-19)', async () => {
    const { entities, issues, byId } = await collect('ofac_cons_csv', dataPath('ofac_cons'));
    expect(countBy(entities, (e) => e.schema)).toEqual({ Person: 79, Organization: 363 });
    expect(issues).toEqual([]);
    expect(
      countBy(
        entities.flatMap((e) => e.names),
        (n) => n.kind,
      ),
    ).toEqual(expect.objectContaining({ primary: 442 }));
    const haniya = byId.get('9639')!;
    expect(haniya.entity_id).toBe('us_ofac_cons:9639');
    expect(haniya.source).toBe('us_ofac_cons');
    expect(namesOf(haniya)).toEqual(['HANIYA, Ismail Abdul Salah', 'HANIYA, Ismail', 'HANIYYA, Ismaeel']);
    expect(haniya.birth_dates).toEqual(['1962']);
    expect(haniya.programs).toEqual(['NS-PLC']);
    expect(entities.every((e) => e.datasets.join() === 'sanctions')).toBe(true);
  });
});
