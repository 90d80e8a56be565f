// Table and behaviour tests for one normalisation step: names written in Burmese (matcher/burmese.ts).
import { describe, expect, it } from 'vitest';
import { burmeseSyllables, burmeseWords } from '../../matcher/burmese.js';
import { compare } from '../../matcher/compare.js';
import { buildIndex, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { normalizeName } from '../../matcher/normalize.js';
import { personEntity } from '../helpers/entities.js';

const T = 0.85;
const person = (a: string, b: string): number => compare('Person', a, b).score;

describe('names in Burmese', () => {
  it.each([
    ['မင်းအောင်လှိုင်', 'min aung hlaing'], // -င် in, ောင် aung, ှ before l is hl, ိုင် aing
    ['သိန်းစိန်', 'thein sein'], // ိန် ein
    ['ထွန်းထွန်းနောင်', 'htun htun naung'], // medial w with -န် is un
    ['ကျော်စွာ', 'kyaw swa'], // ကျ ky, ော် aw
    ['ချစ်ဆွေ', 'chit swe'], // ချ ch, -စ် it, ဆ s
    ['ရွှေမန်း', 'shwe man'], // ရှ sh
    ['မြင့်ဆွေ', 'myint swe'], // creaky -င့် int (the tone dot stored before the asat)
    ['စိုးဝင်း', 'soe win'], // open ို with the high tone is oe
    ['မျိုး', 'myo'], // … but o after a y-medial
    ['မြထွန်းဦး', 'mya htun oo'], // the inherent a, the independent vowel ဦ
  ])('reads %s as %s', (run, reading) => {
    expect(burmeseSyllables(run).join(' ')).toBe(reading);
  });

  it('a native name is one token per syllable; a name of several words with one of 5+ syllables is foreign', () => {
    expect(normalizeName('မင်းအောင်လှိုင်', 'person').tokens).toEqual(['min', 'aung', 'hlaing']);
    expect(burmeseWords(['ဗလာဒီမီယာ', 'ပူတင်'])).toEqual(['baladimiya', 'putin']);
    // read with its vowels: not compared by consonant skeleton
    expect(normalizeName('မင်းအောင်လှိုင်', 'person').abjad).toBe(false);
  });

  it('a Burmese name matches its Latin spelling; a name differing in a part does not', () => {
    expect(person('မင်းအောင်လှိုင်', 'MIN AUNG HLAING')).toBeGreaterThanOrEqual(T);
    expect(person('မင်းအောင်လှိုင်', 'Min Aung Thu')).toBeLessThan(T);
    expect(person('သိန်းစိန်', 'Thein Sein')).toBeGreaterThanOrEqual(T);
    expect(person('သိန်းစိန်', 'Thein Swe')).toBeLessThan(T);
    expect(person('မြင့်ဆွေ', 'Myint Swe')).toBeGreaterThanOrEqual(T);
    expect(person('မြင့်ဆွေ', 'Myint Oo')).toBeLessThan(T);
    expect(person('စိုးဝင်း', 'Soe Win')).toBeGreaterThanOrEqual(T);
    expect(person('စိုးဝင်း', 'Soe Myint')).toBeLessThan(T);
  });

  it('screening a Burmese name finds the listed Latin name, not another with a shared part', () => {
    const ent = (id: string, name: string) => personEntity('t', id, name);
    const sc = openIndex(
      buildIndex(
        [
          ent('mah', 'MIN AUNG HLAING'),
          ent('mat', 'Min Aung Thu'),
          ent('sw', 'Soe Win'),
          ent('sm', 'Soe Myint'),
        ],
        't',
      ),
    );
    const options = { datasets: ['sanctions' as const], policy: DEFAULT_POLICY, limit: 10 };
    expect(sc.screen({ name: 'မင်းအောင်လှိုင်' }, options).matches.map((m) => m.entity_id)).toEqual(['t:mah']);
    expect(sc.screen({ name: 'စိုးဝင်း' }, options).matches.map((m) => m.entity_id)).toEqual(['t:sw']);
  });
});
