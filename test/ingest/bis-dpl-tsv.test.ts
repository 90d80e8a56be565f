import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { guessSchema } from '../../ingest/bis-dpl-tsv.js';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

const idOf = (name: string, effective: string) =>
  createHash('sha1').update(`${name}|${effective}`).digest('hex').slice(0, 16);

describe('bis_dpl_tsv — fixture', () => {
  it('merges address rows, keys entities by name + effective date, reports bad rows', async () => {
    const { entities, issues } = await collect('bis_dpl_tsv', fixturePath('bis_dpl_tsv/dpl.txt'));
    expect(entities.map((e) => `${e.schema}:${namesOf(e)[0]}:${e.countries.join('+')}`)).toEqual([
      'Person:JOHN EXAMPLE DOE:US',
      'Company:EXAMPLE FREIGHT LTD:AE+IQ',
      'Company:WIDGETCOM:CN',
      'Person:UNKNOWN COUNTRY PERSON:',
    ]);
    const john = entities[0]!;
    expect(john.source_id).toBe(idOf('JOHN EXAMPLE DOE', '2003-06-19'));
    expect(john.entity_id).toBe(`us_bis_dpl:${john.source_id}`);
    expect(john.datasets).toEqual(['debarment']);
    expect(john.notes).toContain('Denial effective 2003-06-19, expires 2056-06-29');
    expect(issues.map((i) => `${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      '6::expected 12 columns, found 2; row skipped',
      '7:Effective_Date:unparseable date "13/45/2020"; row skipped',
      '8:Country:unknown country "ZZTOP"',
      '9:Name:row without Name; skipped',
      '10:Name:"JOHN EXAMPLE DOE" (2003-06-19) repeated non-adjacently; row skipped',
    ]);
  });

  it('guesses Company from legal-form and business words', () => {
    expect(guessSchema('AIR FREIGHT LTD')).toBe('Company');
    expect(guessSchema('PETROM INTERNACIONAL TRADE, S.L.')).toBe('Company');
    expect(guessSchema('SYNAPTIX.NET')).toBe('Company');
    expect(guessSchema('ABEL HERNANDEZ, JR.')).toBe('Person');
    expect(guessSchema('ALI M HIJAZI')).toBe('Person');
  });
});

describe.skipIf(!hasSharedData)('bis_dpl_tsv — real data', () => {
  it('reads the Denied Persons List (665 rows → 547 denial orders)', async () => {
    const { entities, issues, byId } = await collect('bis_dpl_tsv', dataPath('us_bis_dpl/dpl.txt'));
    expect(entities).toHaveLength(547);
    expect(countBy(entities, (e) => e.schema)).toEqual({ Person: 444, Company: 103 });
    expect(new Set(entities.map((e) => e.source_id)).size).toBe(547);
    // One address has a US state code ("NM") in the Country column.
    expect(issues.map((i) => `${i.line}:${i.field}`)).toEqual(['593:Country']);
    const af = byId.get(idOf('AIR FREIGHT LTD', '2023-10-31'))!;
    expect(af.schema).toBe('Company');
    expect(af.countries).toEqual(['IQ', 'AE', 'JO']);
    const ash = byId.get(idOf('I. ASH', '2003-06-19'))!;
    expect(namesOf(ash)).toEqual(['I. ASH']);
    expect(ash.schema).toBe('Person');
    expect(ash.countries).toEqual(['US']);
  });
});
