// Table tests for one normalisation step: foreign names written in Chinese characters (matcher/han-foreign.ts).
import { describe, expect, it } from 'vitest';
import { compare } from '../../matcher/compare.js';
import { HAN_FOREIGN_SOUNDS, hanForeignReading } from '../../matcher/han-foreign.js';
import { normalizeName } from '../../matcher/normalize.js';

const T = 0.85;

describe('foreign names in Chinese characters', () => {
  it.each([
    ['贝拉克', 'belak'],
    ['奥巴马', 'obama'],
    ['弗拉基米尔', 'flajimir'],
    ['默克尔', 'mokr'],
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
});
