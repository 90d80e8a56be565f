// Table and behaviour tests for one normalisation step: foreign names written in katakana
// (matcher/kana-foreign.ts).
import { describe, expect, it } from 'vitest';
import { compare } from '../../matcher/compare.js';
import { buildIndex, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { kanaForeignReading, kanaOlderReading } from '../../matcher/kana-foreign.js';
import { alternativeReadings, normalizeName } from '../../matcher/normalize.js';
import { personEntity } from '../helpers/entities.js';

const T = 0.85;
const person = (a: string, b: string): number => compare('Person', a, b).score;

describe('foreign names in katakana', () => {
  it.each([
    ['ウラジーミル', 'urajimir'], // ー lengthens (dropped), final ル is a bare r
    ['プーチン', 'puchin'],
    ['クリントン', 'krinton'], // u inserted in the cluster kl/kr
    ['スミス', 'smis'], // s before a consonant, s at the end
    ['アルバート', 'arbat'], // r before a consonant, t at the end
    ['ヴィクトル', 'viktor'], // ヴ is v, a small vowel replaces the vowel; -トル keeps its o
    ['ファーウェイ', 'fawei'], // ファ fa, ウェ we
    ['トランプ', 'tramp'], // o of t before r; ン before p is m
    ['ブッシュ', 'bussh'], // ッ doubles the next consonant; シュ at the end is sh
    ['リッチ', 'ritch'], // ッチ is tch
    ['ムガベ', 'mugabe'], // u before another consonant stays (not a cluster)
    ['オバマ', 'obama'],
  ])('reads %s as %s', (word, reading) => {
    expect(kanaForeignReading(word)).toBe(reading);
  });

  it('splits the parts at ・ and ＝ and keeps each part one token', () => {
    expect(normalizeName('ドナルド・トランプ', 'person').tokens).toEqual(['donard', 'tramp']);
    expect(normalizeName('ドナルド＝トランプ', 'person').tokens).toEqual(['donard', 'tramp']);
  });

  it('drops the vowels Japanese inserts, so a katakana name matches its Latin spelling; another name does not', () => {
    expect(person('ドナルド・トランプ', 'Donald Trump')).toBeGreaterThanOrEqual(T);
    expect(person('ドナルド・トランプ', 'Donald Tusk')).toBeLessThan(T);
    expect(person('ヴィクトル・ユシチェンコ', 'Viktor Yushchenko')).toBeGreaterThanOrEqual(T);
    expect(person('ヴィクトル・ユシチェンコ', 'Viktor Yanukovych')).toBeLessThan(T);
    expect(person('フランク・シナトラ', 'Frank Sinatra')).toBeGreaterThanOrEqual(T);
    expect(person('フランク・シナトラ', 'Frank Sinclair')).toBeLessThan(T);
  });

  it('l and r replace each other at half an edit in a katakana name (katakana writes both as r)', () => {
    // アレクサンドル・ルカシェンコ reads "areksandor rkashenko": a full edit for each l read as r fell under the threshold
    expect(normalizeName('アレクサンドル・ルカシェンコ').cjk).toBe('アレクサンドルルカシェンコ');
    expect(person('アレクサンドル・ルカシェンコ', 'Alexander Lukashenko')).toBeGreaterThanOrEqual(T);
    expect(person('アレクサンドル・ルカシェンコ', 'Alexander Lukin')).toBeLessThan(T);
    expect(person('アレクサンドル・ルカシェンコ', 'Alexander Yushchenko')).toBeLessThan(T);
  });

  it('reads チ as ti, ジ as di and an initial ウ before ra-row as v in the older loan-word reading', () => {
    expect(kanaForeignReading('ウラジーミル', true)).toBe('vradimir');
    expect(kanaForeignReading('プーチン', true)).toBe('putin');
    // a glide or a doubled consonant keeps the modern reading (ジョ jo, チャ cha, ッチ tch)
    expect(kanaForeignReading('ジョージ', true)).toBe('jodi');
    expect(kanaForeignReading('チャーチル', true)).toBe('chatir');
    expect(kanaForeignReading('リッチ', true)).toBe('ritch');
    // screened beside the name as an alternative; none when nothing differs or the name is not all katakana
    expect(alternativeReadings('ウラジーミル・プーチン')).toEqual(['vradimir putin']);
    expect(kanaOlderReading('バラク・オバマ')).toBeUndefined();
    expect(kanaOlderReading('プーチン 太郎')).toBeUndefined();
  });

  it('the older reading matches the Latin name written the old way; look-alike names do not', () => {
    expect(person('ウラジーミル・プーチン', 'Vladimir Putin')).toBeGreaterThanOrEqual(T);
    expect(person('ウラジーミル・プーチン', 'Vladimir Pushkin')).toBeLessThan(T);
    expect(person('ウラジーミル・プーチン', 'Vladimir Potanin')).toBeLessThan(T);
    expect(person('ウラジーミル・プーチン', 'Vladislav Putilin')).toBeLessThan(T);
  });

  it('screening a katakana name finds the listed Latin name among namesakes, not a look-alike', () => {
    const ent = (id: string, name: string) => personEntity('t', id, name);
    // more namesakes sharing the given name than the matcher scores per query
    const entities = Array.from({ length: 40 }, (_, i) =>
      ent(`v${i}`, `Vladimir ${String.fromCharCode(97 + (i % 26))}${'bcdfg'[i % 5]}kov${i}`),
    );
    entities.push(ent('putin', 'PUTIN, Vladimir Vladimirovich'), ent('putilin', 'Vladislav Putilin'));
    const sc = openIndex(buildIndex(entities, 't'));
    const options = { datasets: ['sanctions' as const], policy: DEFAULT_POLICY, limit: 10 };
    expect(sc.screen({ name: 'ウラジーミル・プーチン' }, options).matches.map((m) => m.entity_id)).toEqual([
      't:putin',
    ]);
  });
});
