import { describe, expect, it } from 'vitest';
import { collect, countBy, namesOf } from './collect.js';
import { dataPath, fixturePath, hasSharedData } from './shared-data.js';

describe('ftm_json — fixture', () => {
  it('applies delta ops, links sanctions/wallets/passports, and reports bad lines', async () => {
    const { entities, issues, byId } = await collect('ftm_json', fixturePath('ftm_json'));
    // Delta file first (name order), then plain/; T-2 was deleted, P-2 has no screening topic or hint.
    expect(entities.map((e) => e.source_id)).toEqual(['T-1', 'T-3', 'P-1', 'P-3', 'P-4']);

    const t1 = byId.get('T-1')!;
    expect(t1.entity_id).toBe('opensanctions:T-1');
    expect(t1.source).toBe('opensanctions');
    // The later MOD replaced the ADD entirely (alias, previousName and passport are gone).
    expect(t1.names).toEqual([
      { value: 'Testa Exampleva', kind: 'primary', script: 'Latn' },
      { value: 'Тестa Экзамплева', kind: 'alias', script: 'Cyrl' },
      { value: 'Tessie', kind: 'weak', script: 'Latn' },
    ]);
    expect(t1.birth_dates).toEqual(['1970-05-06']);
    expect(t1.nationalities).toEqual(['RU']);
    expect(t1.gender).toBe('female');
    expect(t1.datasets).toEqual(['sanctions', 'pep_rca']);
    expect(t1.programs).toEqual(['EU Fictional Regime']);
    expect(t1.identifiers).toEqual([{ type: 'national_id', value: '9988' }]);

    const vessel = byId.get('T-3')!;
    expect(vessel.schema).toBe('Vessel');
    expect(vessel.identifiers).toEqual([{ type: 'imo', value: '9999993' }]);
    expect(vessel.countries).toEqual(['PA']);

    const co = byId.get('P-1')!;
    expect(co.schema).toBe('Company');
    expect(co.datasets).toEqual(['debarment']);
    expect(co.countries).toEqual(['GB', 'AE']);
    expect(co.identifiers).toContainEqual({ type: 'lei', value: '5299000000000000DEMO' });

    expect(namesOf(byId.get('P-3'))).toEqual(['Jane Hintperson']);
    expect(byId.get('P-3')!.datasets).toEqual(['sanctions']); // from the dataset name hint

    const walt = byId.get('P-4')!;
    expect(walt.datasets).toEqual(['wanted', 'crypto_wallets']);
    expect(walt.identifiers).toEqual([
      { type: 'passport', value: 'X555', country: 'IR' },
      { type: 'crypto_wallet', value: '0XABC123' },
    ]);

    expect(issues.map((i) => `${i.file}:${i.line}:${i.field ?? ''}:${i.message}`)).toEqual([
      'entities.delta.json:8:op:unknown delta op "FROB"; skipped',
      'entities.delta.json:9:entity.id:DEL without entity id; skipped',
      'entities.delta.json:10:entity:ADD without a valid entity (id, schema); skipped',
      'entities.delta.json:11::invalid JSON line; skipped',
      'entities.delta.json:3:properties.birthDate:unparseable date "not a date"',
      'plain/entities.ftm.json:9::not an FtM entity (needs string id and schema); skipped',
      'plain/entities.ftm.json:1:properties.country:unknown country "Atlantis"',
      'plain/entities.ftm.json:3:properties.alias:property is not an array; ignored',
      'plain/entities.ftm.json:8:id:duplicate entity id T-1; later copy skipped',
      'plain/entities.ftm.json:0:properties.topics:1 entities without a screening topic or dataset hint skipped',
    ]);
  });
});

describe.skipIf(!hasSharedData)('ftm_json — real data', () => {
  it('entities.delta.json: 1,129 live entities of which 576 are screenable', async () => {
    const { entities, issues, byId } = await collect(
      'ftm_json',
      dataPath('opensanctions/yente_fixtures/entities.delta.json'),
    );
    expect(countBy(entities, (e) => e.schema)).toEqual({
      Person: 451,
      Organization: 97,
      LegalEntity: 27,
      Company: 1,
    });
    // Only garbage birth dates in the source ("1504", "1402-06-24", …) are reported.
    expect(issues.map((i) => i.field)).toEqual(Array(8).fill('properties.birthDate'));
    const names = entities.flatMap((e) => e.names);
    const scripts = countBy(names, (n) => n.script ?? '-');
    expect(scripts['Kana']! + scripts['Jpan']!).toBeGreaterThan(2000);
    expect(scripts['Arab']).toBeGreaterThan(1000);
    expect(scripts['Hebr']).toBeGreaterThan(400);
    const aqi = byId.get('NK-2T3S8Hu29ktYnKSTgQp2wL')!;
    expect(namesOf(aqi, 'primary')).toEqual(['AL-QAIDA IN IRAQ']);
    expect(namesOf(aqi, 'alias')).toContain('ISIS');
    expect(aqi.datasets).toContain('sanctions');
    const salek = byId.get('NK-2XAfkJ9t2UuWnoRG5EBoYu')!;
    expect(salek.birth_dates).toEqual(['1965']);
    expect(salek.nationalities).toEqual(['AF']);
    expect(salek.programs).toContain('DTTOT');
    expect(namesOf(salek)).toContain('アブドゥルハイ・サレク');
  });

  it('reads the whole fixture directory (delta + zala + t1) without duplicate ids', async () => {
    const { entities, byId } = await collect('ftm_json', dataPath('opensanctions/yente_fixtures'));
    expect(entities).toHaveLength(596);
    expect(byId.size).toBe(596);
    const osetrova = byId.get('NK-2Tbri3s6GgNtAwsSXh4qpL')!;
    expect(osetrova.schema).toBe('Person');
    expect(osetrova.birth_dates).toEqual(['1988-01-07']);
    expect(osetrova.nationalities).toEqual(['RU']);
    expect(osetrova.datasets).toEqual(expect.arrayContaining(['sanctions', 'debarment']));
    expect(osetrova.identifiers).toContainEqual({ type: 'tax_id', value: '183116181362' });
    expect(namesOf(osetrova)).toContain('Мария Александровна Осетрова');
  });
});
