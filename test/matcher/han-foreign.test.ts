// Table tests for one normalisation step: foreign names written in Chinese characters (matcher/han-foreign.ts).
import { describe, expect, it } from 'vitest';
import { compare } from '../../matcher/compare.js';
import { HAN_FOREIGN_SOUNDS, hanForeignReading, hanRussianReadings } from '../../matcher/han-foreign.js';
import { buildIndex, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { alternativeReadings, normalizeName } from '../../matcher/normalize.js';
import { personEntity } from '../helpers/entities.js';

const T = 0.85;

describe('foreign names in Chinese characters', () => {
  it.each([
    ['贝拉克', 'belak'],
    ['奥巴马', 'obama'],
    ['弗拉基米尔', 'flajimir'],
    ['默克尔', 'mokr'],
    ['普京', 'pujin'], // -ng read as n, like 丁 and 康
    ['乔治', 'jozhi'], // 治 is not a transcription character: its Mandarin reading stays
  ])('reads %s as %s', (run, reading) => {
    expect(hanForeignReading(run)).toBe(reading);
  });

  it('every table reading is lower-case ASCII letters', () => {
    for (const [ch, v] of Object.entries(HAN_FOREIGN_SOUNDS)) expect(v, ch).toMatch(/^[a-z]+$/);
  });

  it.each([
    ['贝拉克·奥巴马', ['belak', 'obama']],
    ['贝拉克・奥巴马', ['belak', 'obama']], // the Japanese middle dot
    ['习近平', ['si', 'jinping']], // no middle dot: a Chinese name, read in Mandarin
    ['马云', ['ma', 'yun']],
  ])('normalises %s to %j', (raw, tokens) => {
    expect(normalizeName(raw, 'person').tokens).toEqual(tokens);
  });

  it('a foreign name in Chinese matches its Latin spelling, with l and r alike; another name does not', () => {
    expect(compare('Person', '贝拉克·奥巴马', 'Barack Obama').score).toBeGreaterThanOrEqual(T);
    expect(compare('Person', '贝拉克·奥巴马', 'Barack Olama').score).toBeLessThan(T);
    expect(compare('Person', '贝拉克·奥巴马', 'Pedro Obama').score).toBeLessThan(T);
    // l and r are alike only for names read from Chinese (or Korean): two Latin spellings keep them apart
    expect(compare('Person', 'Belak Obama', 'Barack Obama').score).toBeLessThan(
      compare('Person', '贝拉克·奥巴马', 'Barack Obama').score,
    );
  });

  it('reads 弗/夫 as v and a palatal ji as soft d or t in the Russian-table readings, screened beside the name', () => {
    expect(hanRussianReadings('弗拉基米尔·普京')).toEqual(['vladimir pudin', 'vlatimir putin']);
    expect(hanRussianReadings('尤利娅·季莫申科')).toEqual(['youliya dimoshenko', 'youliya timoshenko']);
    expect(alternativeReadings('弗拉基米尔·普京')).toEqual(['vladimir pudin', 'vlatimir putin']);
    // none without those characters, without a middle dot, or with other scripts mixed in
    expect(hanRussianReadings('贝拉克·奥巴马')).toEqual([]);
    expect(hanRussianReadings('弗拉基米尔普京')).toEqual([]);
    expect(hanRussianReadings('弗拉基米尔·Putin')).toEqual([]);
  });

  it('a Russian name in Chinese matches its Latin spelling through those readings; look-alike names do not', () => {
    expect(compare('Person', '弗拉基米尔·普京', 'Vladimir Putin').score).toBeGreaterThanOrEqual(T);
    expect(compare('Person', '弗拉基米尔·普京', 'Vladimir Potanin').score).toBeLessThan(T);
    expect(compare('Person', '弗拉基米尔·普京', 'Vladimir Pudovkin').score).toBeLessThan(T);
    expect(compare('Person', '弗拉基米尔·普京', 'Vladislav Putin').score).toBeLessThan(T);
    expect(compare('Person', '尤利娅·季莫申科', 'Yulia Tymoshenko').score).toBeGreaterThanOrEqual(T);
    expect(compare('Person', '尤利娅·季莫申科', 'Yulia Svyrydenko').score).toBeLessThan(T);
  });

  it('screening a Russian name in Chinese finds the listed Latin name among namesakes', () => {
    const ent = (id: string, name: string) => personEntity('t', id, name);
    const entities = Array.from({ length: 40 }, (_, i) =>
      ent(`v${i}`, `Vladimir ${String.fromCharCode(97 + (i % 26))}${'bcdfg'[i % 5]}kov${i}`),
    );
    entities.push(ent('putin', 'PUTIN, Vladimir Vladimirovich'), ent('pudovkin', 'Vladimir Pudovkin'));
    const sc = openIndex(buildIndex(entities, 't'));
    const options = { datasets: ['sanctions' as const], policy: DEFAULT_POLICY, limit: 10 };
    expect(sc.screen({ name: '弗拉基米尔·普京' }, options).matches.map((m) => m.entity_id)).toEqual([
      't:putin',
    ]);
  });
});
