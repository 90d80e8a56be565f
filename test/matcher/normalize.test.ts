import { describe, expect, it } from 'vitest';
import { compare } from '../../matcher/compare.js';
import { normalizeName } from '../../matcher/normalize.js';

const toks = (s: string, kind: 'person' | 'org' | 'any' = 'any'): string[] => normalizeName(s, kind).tokens;

describe('normalizeName', () => {
  it('transliterates non-Latin scripts', () => {
    expect(toks('Владимир Путин')).toEqual(toks('Vladimir Putin'));
    expect(toks('Αλέξανδρος')).toEqual(['aleksandros']);
    expect(normalizeName('محمد علي').abjad).toBe(true);
    expect(toks('习近平')).toEqual(toks('Xi Jinping'));
    expect(toks('김정은')).toEqual(toks('Kim Jong Un'));
  });

  it('removes diacritics and case', () => {
    expect(toks('Recep Tayyip Erdoğan')).toEqual(toks('RECEP TAYYIP ERDOGAN'));
    expect(toks('Société Générale')).toEqual(toks('societe generale'));
  });

  it('strips and canonicalises legal forms', () => {
    const a = normalizeName('Siemens Aktiengesellschaft', 'org');
    expect(a.tokens).toEqual(['siemens']);
    expect(a.legalForms).toEqual(['ag']);
    expect(normalizeName('OAO Gazprom', 'org').legalForms).toEqual(['jsc']);
    expect(normalizeName('Open Joint Stock Company Gazprom', 'org').tokens).toEqual(['gazprom']);
    expect(toks('Bowne Global Solutions, L.L.C.', 'org')).toEqual(toks('Bowne Global Solutions LLC', 'org'));
    expect(toks('ООО "АЯС 2000"', 'org')).toEqual(toks('AYaS 2000 Limited Liability Company', 'org'));
    // a name made only of legal-form words keeps its words
    expect(toks('Company', 'org').length).toBe(1);
  });

  it('does not strip ambiguous short forms from short person names', () => {
    expect(toks('Pol Pot', 'person')).toHaveLength(2);
    expect(toks('ប៉ុល ពត', 'person')).toHaveLength(2);
  });

  it('removes honorifics and punctuation', () => {
    expect(toks('Mr. Rami Makhlouf', 'person')).toEqual(toks('Rami Makhlouf', 'person'));
    expect(toks('Sheikh Isa Bin Tarif', 'person')).toEqual(toks('Isa bin Tarif', 'person'));
  });

  it('maps name variants to one canonical token', () => {
    for (const v of ['Mohammed', 'Muhammad', 'Mohamad', 'Mohamed', 'Mohammad'])
      expect(toks(v)).toEqual(toks('Muhammad'));
    for (const v of ['Youssef', 'Yousef', 'Yusuf', 'Yousuf']) expect(toks(v)).toEqual(toks('Yusuf'));
    for (const v of ['Husain', 'Hussain', 'Husayn']) expect(toks(v)).toEqual(toks('Hussein'));
    expect(toks('Usama')).toEqual(toks('Osama'));
    expect(toks('Abdel')).toEqual(toks('Abdul'));
    expect(toks('Ivanoff')).toEqual(toks('Ivanov'));
    expect(toks('Lavrow')).toEqual(toks('Lavrov'));
    expect(toks('Vladimirovitch')).toEqual(toks('Vladimirovich'));
    expect(toks('Volodymyrovych')).toEqual(toks('Vladimirovich'));
  });

  it('reads leetspeak digits inside words', () => {
    expect(toks('Ig0r Sech1n')).toEqual(toks('Igor Sechin'));
    expect(toks('Brigade Forty-Four')).toEqual(toks('Brigade 44'));
  });
});

describe('compare', () => {
  it('is order independent and handles SURNAME, Given', () => {
    expect(compare('Person', 'PUTIN, Vladimir Vladimirovich', 'Vladimir Vladimirovich Putin').score).toBe(1);
    expect(compare('Person', 'Smith, John', 'John Smith').score).toBe(1);
  });

  it('handles joined and split tokens', () => {
    expect(compare('Person', 'Abdulrahman Ali', 'Abdul Rahman Ali').score).toBeGreaterThanOrEqual(0.9);
    expect(compare('Organization', 'al-Qaida', 'alqaida').score).toBeGreaterThanOrEqual(0.9);
    expect(compare('Organization', 'Al Qaida', 'Al-Qaida').score).toBe(1);
    expect(compare('Person', 'AlisherUsmanov', 'Alisher Usmanov').score).toBeGreaterThanOrEqual(0.9);
  });

  it('scores legal-form-only overlap low and legal-form variants high', () => {
    expect(compare('Company', 'Acme Trading LLC', 'Global Trading LLC').score).toBeLessThan(0.6);
    expect(compare('Company', 'Volkswagen AG', 'Siemens AG').score).toBeLessThan(0.3);
    expect(compare('Company', 'CRYSTALORD LIMITED', 'CRYSTALORD LTD').score).toBe(1);
    expect(compare('Company', 'Siemens AG', 'Siemens Aktiengesellschaft').score).toBe(1);
  });

  it('keeps unrelated names sharing one common token low', () => {
    expect(compare('Person', 'Ivan Petrov', 'Ivan Sidorov').score).toBeLessThan(0.6);
    expect(compare('Person', 'Sergey Viktorovich Lavrov', 'Sergey Borisovich Lavrov').score).toBeLessThan(
      0.75,
    );
  });

  it('tolerates typos and transliteration', () => {
    expect(compare('Person', 'Vladimir Pulin', 'Vladimir Putin').score).toBeGreaterThanOrEqual(0.85);
    expect(compare('Person', 'Wladimir Putin', 'Vladimir Putin').score).toBe(1);
    expect(compare('Person', 'Владимир Путин', 'Vladimir Putin').score).toBe(1);
    expect(compare('Person', 'محمد علي', 'Mohamed Ali').score).toBeGreaterThanOrEqual(0.9);
  });

  it('uses identifiers when given subjects', () => {
    const s = compare(
      'Vessel',
      { name: 'Ocean Star', imo_number: 'IMO 9187629' },
      { name: 'Sea Queen', imo_number: '9187629' },
    ).score;
    expect(s).toBeGreaterThanOrEqual(0.95);
  });
});
