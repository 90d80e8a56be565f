// One normalisation step: a foreign name written in katakana (ウラジーミル・プーチン, ドナルド・トランプ) read back
// as the sounds it transcribes. Japanese writes foreign names in katakana, one mora per character, with a few
// loan-word conventions: ー lengthens the vowel before it, ッ doubles the next consonant, a small vowel after a
// consonant syllable replaces its vowel (ファ fa, ティ ti, ヴィ vi, ウィ wi), and a vowel (u, after t/d o) is
// inserted after every consonant the source pronounces without one (クリントン ku-ri-n-to-n = Clinton). any-ascii
// reads the characters mora by mora (urajimiru); this step drops the inserted vowels where the source had a
// consonant cluster or a final consonant. Parts of the name are written apart with ・ or ＝ (word breaks).
import anyAscii from 'any-ascii';
import { partsWhollyIn } from './name-parts.js';

/** Katakana words: the syllabary with its long-vowel mark (ー) and iteration marks. */
export const KATAKANA_RE = /[\u30A1-\u30FA\u30FC-\u30FE\u31F0-\u31FF]+/g;
const KATAKANA_TEST_RE = /[\u30A1-\u30FA\u31F0-\u31FF]/;
const KATAKANA_WORD_RE = new RegExp(`^${KATAKANA_RE.source}$`);
/** Word breaks between the parts of a name in katakana. */
const KANA_BREAK_RE = /[\s・･=＝·]+/;

/** Each katakana character: its consonant onset and vowel (Hepburn). */
const KANA: Readonly<Record<string, readonly [string, string]>> = (() => {
  const rows: [string, string][] = [
    ['アイウエオ', ''],
    ['カキクケコ', 'k'],
    ['ガギグゲゴ', 'g'],
    ['サシスセソ', 's'],
    ['ザジズゼゾ', 'z'],
    ['タチツテト', 't'],
    ['ダヂヅデド', 'd'],
    ['ナニヌネノ', 'n'],
    ['ハヒフヘホ', 'h'],
    ['バビブベボ', 'b'],
    ['パピプペポ', 'p'],
    ['マミムメモ', 'm'],
    ['ラリルレロ', 'r'],
    ['ヴ', 'v'],
  ];
  const vowels = 'aiueo';
  const out: Record<string, readonly [string, string]> = {};
  for (const [chars, onset] of rows)
    for (let i = 0; i < chars.length; i++) out[chars[i]!] = [onset, onset === 'v' ? 'u' : vowels[i]!];
  // Hepburn onsets that are not the row's: shi, chi, tsu, fu, ji (ヂ as ジ, ヅ as ズ)
  Object.assign(out, {
    シ: ['sh', 'i'],
    チ: ['ch', 'i'],
    ツ: ['ts', 'u'],
    フ: ['f', 'u'],
    ジ: ['j', 'i'],
    ヂ: ['j', 'i'],
    ヅ: ['z', 'u'],
    ヤ: ['y', 'a'],
    ユ: ['y', 'u'],
    ヨ: ['y', 'o'],
    ワ: ['w', 'a'],
    ヰ: ['w', 'i'],
    ヱ: ['w', 'e'],
    ヲ: ['', 'o'],
    ン: ['n', ''],
    ヷ: ['v', 'a'],
    ヸ: ['v', 'i'],
    ヹ: ['v', 'e'],
    ヺ: ['v', 'o'],
    ヵ: ['k', 'a'],
    ヶ: ['k', 'e'],
  });
  return out;
})();

/** Small kana that modify the syllable before them: a vowel replacing its vowel, or a glide (ya yu yo). */
const SMALL_VOWEL: Readonly<Record<string, string>> = { ァ: 'a', ィ: 'i', ゥ: 'u', ェ: 'e', ォ: 'o' };
const SMALL_GLIDE: Readonly<Record<string, string>> = { ャ: 'a', ュ: 'u', ョ: 'o', ヮ: 'a' };

interface Mora {
  onset: string;
  vowel: string;
  /** followed by ー */
  long: boolean;
  /** a small vowel replaced the vowel (ティ, ファ): written on purpose, never an inserted vowel */
  marked: boolean;
  /** followed by ッ (the next consonant doubled) */
  geminate: boolean;
  /** a small ya/yu/yo made it one syllable (ジョ jo, チャ cha) */
  glide: boolean;
  /** the character as written (for the older loan-word reading) */
  ch: string;
}

function morae(word: string): Mora[] {
  const out: Mora[] = [];
  for (const ch of word) {
    const prev = out[out.length - 1];
    if (ch === 'ー') {
      if (prev) prev.long = true;
      continue;
    }
    if (ch === 'ッ') {
      if (prev) prev.geminate = true;
      else out.push({ onset: '', vowel: '', long: false, marked: false, geminate: true, glide: false, ch });
      continue;
    }
    const small = SMALL_VOWEL[ch];
    if (small !== undefined && prev && prev.onset !== '' && prev.vowel !== '') {
      // ティ ti, ファ fa, ウィ wi, イェ ye, トゥ tu; シェ she, チェ che, ジェ je keep their onset
      prev.vowel = small;
      prev.marked = true;
      continue;
    }
    if (small !== undefined && prev && prev.onset === '' && (prev.vowel === 'u' || prev.vowel === 'i')) {
      // ウィ wi, ウェ we, ウォ wo; イェ ye
      prev.onset = prev.vowel === 'u' ? 'w' : 'y';
      prev.vowel = small;
      prev.marked = true;
      continue;
    }
    const glide = SMALL_GLIDE[ch];
    if (glide !== undefined && prev && prev.onset !== '') {
      // キャ kya, but シャ sha, チャ cha, ジャ ja; デュ dyu (a glide's u may still be inserted: ブッシュ Bush)
      if (!/(sh|ch|j)$/.test(prev.onset)) prev.onset += ch === 'ヮ' ? 'w' : 'y';
      prev.vowel = glide;
      prev.glide = true;
      continue;
    }
    const k =
      KANA[ch] ?? (small !== undefined ? ['', small] : glide !== undefined ? ['y', glide] : undefined);
    if (k === undefined) continue;
    out.push({ onset: k[0], vowel: k[1], long: false, marked: false, geminate: false, glide: false, ch });
  }
  return out;
}

const U_FINAL_ONSETS = new Set(['k', 'g', 's', 'z', 'ts', 'f', 'b', 'p', 'm', 'r', 'v', 'sh']);
const S_ONSETS = new Set(['s', 'z', 'ts']);
/** Consonant clusters of European names that Japanese breaks with u: the first consonant's onset → the onsets
 * that may follow it (kr ks kt, gr, pr ps pt, br, fr, vr). s and r before any consonant are handled apart. */
const U_CLUSTERS: Readonly<Record<string, ReadonlySet<string>>> = {
  k: new Set(['r', 's', 't']),
  g: new Set(['r']),
  p: new Set(['r', 's', 't']),
  b: new Set(['r']),
  f: new Set(['r']),
  v: new Set(['r']),
};

/** Whether the vowel of `m` (followed by `next`, or last in the word) is one Japanese inserted after a
 * consonant the source pronounced bare: u after most consonants at the word's end (ル r, ス s, ク k, シュ sh), o
 * after t/d at the end (ト t, ド d), i after a doubled ch/j at the end (ッチ ch); inside the word u in a
 * consonant cluster: s before a consonant (スミス Smith, ストーン), r before a consonant (アルバート Albert), a stop
 * before r (クリントン Clinton, ブラウン Brown), k/p before s or t (アレクサンドル Aleksandr, ヴィクトル Viktor), and o
 * of t/d before r (トランプ Trump, アンドレイ Andrei) unless that r ends the word. */
function inserted(m: Mora, next: Mora | undefined, prev: Mora | undefined, last: boolean): boolean {
  if (m.long || m.marked || m.geminate || m.onset === '' || m.onset === 'n') return false;
  if (next === undefined) {
    if (m.vowel === 'u') return U_FINAL_ONSETS.has(m.onset);
    if (m.vowel === 'o') return m.onset === 't' || m.onset === 'd';
    if (m.vowel === 'i') return (m.onset === 'ch' || m.onset === 'j') && prev?.geminate === true;
    return false;
  }
  const nextOnset = next.onset;
  if (nextOnset === '' || nextOnset === 'y' || nextOnset === 'w') return false;
  if (m.vowel === 'u') {
    if (S_ONSETS.has(m.onset) || m.onset === 'r') return nextOnset !== 'n' || next.vowel !== '';
    return U_CLUSTERS[m.onset]?.has(nextOnset) ?? false;
  }
  // but -トル/-ドル at the end keep their o (ヴィクトル Viktor, ヘクトル Hector)
  if (m.vowel === 'o' && (m.onset === 't' || m.onset === 'd'))
    return nextOnset === 'r' && !(last && next.vowel === 'u');
  return false;
}

/** One katakana word read as the foreign word it transcribes (ウラジーミル → urajimir, クリントン → kurinton →
 * krinton). With `older`, the older loan-word conventions replace the modern ones: チ is ti and ジ/ヂ di (チーム
 * team, ラジオ radio), and a word-initial ウ before ra-row is v (ウラジオストク Vladivostok). */
export function kanaForeignReading(word: string, older = false): string {
  const ms = morae(word);
  let out = '';
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    let onset = m.onset;
    if (older && !m.marked && !m.glide && ms[i - 1]?.geminate !== true) {
      if (m.ch === 'チ') onset = 't';
      else if (m.ch === 'ジ' || m.ch === 'ヂ') onset = 'd';
      else if (i === 0 && m.ch === 'ウ' && ms[1]?.onset === 'r') {
        out += 'v';
        continue;
      }
    }
    // ン before b, p or m is m (Hepburn): トランプ Trump
    if (m.ch === 'ン' && /^[bpm]/.test(ms[i + 1]?.onset ?? '')) onset = 'm';
    out += onset;
    if (!inserted(m, ms[i + 1], ms[i - 1], i + 2 === ms.length)) out += m.vowel;
    if (m.geminate) {
      const n = ms[i + 1];
      // ッチ is tch (Hepburn), else the next consonant twice
      if (n !== undefined) out += n.onset === 'ch' ? 't' : (n.onset[0] ?? '');
    }
  }
  return out;
}

/** Whether `s` holds katakana. */
export function hasKatakana(s: string): boolean {
  return KATAKANA_TEST_RE.test(s);
}

/** The older loan-word reading of a name written wholly in katakana (word breaks ・ ＝ or spaces between its
 * parts), when it differs from the modern one; else undefined. Screened beside the name as an alternative. */
export function kanaOlderReading(raw: string): string | undefined {
  const words = partsWhollyIn(raw, KANA_BREAK_RE, KATAKANA_WORD_RE);
  if (words === undefined || words.length === 0) return undefined;
  const older = words.map((w) => kanaForeignReading(w, true)).join(' ');
  return older === words.map((w) => kanaForeignReading(w)).join(' ') ? undefined : older;
}

/** A katakana run anywhere in a name, read as a foreign word (falls back to any-ascii for stray marks). */
export function kanaRunReading(run: string): string {
  const r = kanaForeignReading(run);
  return r.length > 0 ? r : anyAscii(run).toLowerCase();
}
