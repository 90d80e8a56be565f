// Name normalisation shared by index build and screening: both sides go through exactly the same steps so
// that aggressive folding (w→v, ou→u, …) only ever creates equalities, never asymmetries.
import anyAscii from 'any-ascii';
import { burmeseWords, MYANMAR_RE } from './burmese.js';
import { FOREIGN_NAME_DOT_RE, hanForeignReading, hanRussianReadings } from './han-foreign.js';
import { KATAKANA_RE, kanaOlderReading, kanaRunReading } from './kana-foreign.js';
import {
  COMPANY_WORD_ABBREVIATIONS,
  HONORIFICS,
  JAPANESE_FAMILY_NAMES,
  JAPANESE_GIVEN_NAMES,
  KOREAN_FAMILY_HANJA,
  KOREAN_GIVEN_HANJA,
  NAME_VARIANT_GROUPS,
} from './name-variants.js';

export type NameKind = 'person' | 'org' | 'vessel' | 'any';

export interface NormalizedName {
  /** folded, canonical tokens used for matching (legal forms, titles, stopwords removed), in name order; a
   * repeated word stays repeated */
  tokens: string[];
  /** canonical legal-form codes found at the edges of the name (llc, ltd, jsc, …) */
  legalForms: string[];
  /** written in a script that omits short vowels (Arabic, Hebrew, Thai …): compare consonant skeletons */
  abjad: boolean;
  /** the Han, Hangul and kana characters of the name as written (empty if none): in these scripts one character
   * is one syllable, so two names in the same script are also compared character by character; none of them tells
   * l from r, so a name with any of them compares l and r at half an edit (edit-distance.ts) */
  cjk?: string;
  /** the name's letters and digits as written (lower-case ASCII, no spaces or punctuation, legal forms and titles
   * kept: `ZANGANEH, Touraj` → zanganehtouraj), and for a name written `FAMILY, Given` the same in the other order
   * (rawSwapped); absent for a name in an abjad or in Han, Hangul or kana. Folding reads a word's letters in their
   * context (a final -eh, a doubled or swapped letter), so two spellings that differ only in spacing or by one typing
   * slip can fold far apart: rawSimilarity compares these instead */
  raw?: string;
  rawSwapped?: string;
  /** the same letters without the legal forms peeled from the name's edges, when any were and that changes them
   * (`LTD LIABILITY COMPANY YOOUONEY` → yoouoney): a typing slip is found there however each name writes its legal
   * form (oneEditAsWritten) */
  rawCore?: string;
}

// scripts that leave short or inherent vowels unwritten: Hebrew, Arabic/Persian/Urdu, Syriac, Thaana, Thai, Lao,
// Khmer (Burmese is read with its vowels, burmese.ts)
const ABJAD_RE = /[\u0590-\u08FF\u0E00-\u0EFF\u1780-\u17FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
const SEMITIC_RUN_RE = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]+/g;
const HAN_RE = /\p{Script=Han}+/gu;
const HANGUL_RE = /\p{Script=Hangul}+/gu;
const GREEK_RE = /\p{Script=Greek}+/gu;
const NON_ASCII_RE = /[^ -~\t\n\r]/;
const CJK_RE = /[\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

// tokens repeat heavily across a list (and across queries): memoise the regex chain below
const foldCache = new Map<string, string>();
const FOLD_CACHE_QUERY_MAX = 200_000;
let foldCacheMax = FOLD_CACHE_QUERY_MAX;

/** An index build folds millions of distinct tokens: it raises the memo's bound while it runs, then drops the
 * memo (list tokens that queries rarely need again) and restores the query-time bound. */
export function buildFoldCache(building: boolean): void {
  foldCache.clear();
  foldCacheMax = building ? 1_000_000 : FOLD_CACHE_QUERY_MAX;
}

/** Light phonetic fold of one lower-case ASCII token. Order matters: multi-letter rules first. */
export function foldToken(raw: string): string {
  const hit = foldCache.get(raw);
  if (hit !== undefined) return hit;
  const t = foldUncached(raw);
  if (foldCache.size >= foldCacheMax) foldCache.clear();
  foldCache.set(raw, t);
  return t;
}

function foldUncached(raw: string): string {
  let t = raw;
  if (t.length > 3) {
    // Slavic patronymics and surname endings written many ways: -ovich/-ovitch/-owitsch/-ovics/-owicz …
    t = t.replace(/([aeo])[vw][iy](?:tsch|tsj|tch|tj|tx|ch|cs|ci|cz|c|sh)$/, '$1vich');
    t = t.replace(/sk(?:iy|yy|ij|yi|ii|yj|y|i)$/, 'ski');
    t = t.replace(/off$/, 'ov').replace(/eff$/, 'ev');
    // Indian given names end in -endra/-indra or, as Hindi and Punjabi speakers say them, -ender/-inder (Narendra
    // and Narender, Surendra and Surender, Ravindra and Ravinder): one name. Not -andra (Alexandra, Alexander)
    if (t.endsWith('ndra')) t = t.replace(/([ei])ndra$/, '$1nder');
  }
  // each rule in order, run only where the letters it rewrites occur (most words have few of them: an index build
  // folds every distinct word once, and a regular expression that finds nothing still costs a search)
  if (t.includes('tsch')) t = t.replace(/tsch/g, 'ch');
  if (t.includes('tch')) t = t.replace(/tch/g, 'ch');
  if (t.includes('sch')) t = t.replace(/sch/g, 'sh');
  if (t.includes('dzh')) t = t.replace(/dzh/g, 'j');
  if (t.includes('dj')) t = t.replace(/dj/g, 'j');
  if (t.includes('ph')) t = t.replace(/ph/g, 'f');
  if (t.includes('ck')) t = t.replace(/ck/g, 'k');
  if (t.includes('kh')) t = t.replace(/kh/g, 'h');
  if (t.includes('gh')) t = t.replace(/gh/g, 'g');
  if (t.includes('th')) t = t.replace(/th/g, 't');
  if (t.includes('ou')) t = t.replace(/ou/g, 'u');
  if (t.includes('oo')) t = t.replace(/oo/g, 'u');
  if (t.includes('w')) t = t.replace(/w/g, 'v');
  if (t.includes('q')) t = t.replace(/q/g, 'k');
  if (t.includes('c')) t = t.replace(/c(?=[eiy])/g, 's').replace(/c(?!h)/g, 'k');
  if (t.includes('x'))
    // a word-initial x is never "ks" (pinyin Xi, Portuguese Xavier, English Xerxes): read it as s
    t = t.replace(/^x(?=[aeiouy])/, 's').replace(/x/g, 'ks');
  if (t.length > 1 && t.indexOf('y', 1) >= 0) t = t[0] + t.slice(1).replace(/y/g, 'i');
  if (hasDoubledLetter(t)) t = t.replace(/([a-z])\1+/g, '$1');
  if (t.length > 3) t = t.replace(/([aeiou])h$/, '$1');
  // Slavic й written j at the end (Sergej, Nikolaj, Aleksej) reads as i
  if (t.length > 3) t = t.replace(/([aeo])j$/, '$1i');
  // silent final e after a consonant (Clarke/Clark, Browne/Brown, Stripe/Strip)
  if (t.length > 4) t = t.replace(/([b-df-hj-np-tv-z])e$/, '$1');
  return t;
}

/** Whether a letter a–z stands twice in a row in `t` (foldUncached's doubled-letter rule has work to do). */
function hasDoubledLetter(t: string): boolean {
  for (let i = 1; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === t.charCodeAt(i - 1) && c >= 97 && c <= 122) return true;
  }
  return false;
}

/** Consonant skeleton with coarse classes (p/b/f/v, k/q/c/g, s/z): used for abjad-script comparison and
 * as a phonetic retrieval key. Input is a folded token. Adjacent consonants of one class merge; consonants
 * separated by a vowel do not. */
export function skeleton(folded: string): string {
  let out = '';
  let prev = '';
  for (let i = 0; i < folded.length; i++) {
    let c = folded[i]!;
    if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y' || c === 'w') {
      continue;
    }
    if (c === 'p' || c === 'f' || c === 'v') c = 'b';
    else if (c === 'q' || c === 'c' || c === 'g') c = 'k';
    else if (c === 'z') c = 's';
    if (c !== prev) out += c;
    prev = c;
  }
  // a final h is a vowel marker (-ah, -eh, Arabic ta marbuta / ha) rather than a consonant
  if (out.length > 2 && out.charCodeAt(out.length - 1) === 104) out = out.slice(0, -1);
  return out;
}

// ---- variant table -------------------------------------------------------------------------------------

const VARIANTS = new Map<string, string>();
for (const group of NAME_VARIANT_GROUPS) {
  const canon = foldToken(group[0]!.replace(/ /g, ''));
  for (const v of group) {
    const f = foldToken(v.replace(/ /g, ''));
    if (!VARIANTS.has(f)) VARIANTS.set(f, canon);
  }
}

/** A particle (al, bin, abu, de, van …) or `abdul`, which are written glued to the next word (BINmansor,
 * ELkhansa, ABDULrahim): the folded spellings of each, canonical spelling by spelling (el → al, ben → bin,
 * abd → abdul). */
export function glueHeads(particles: ReadonlySet<string>): Map<string, string> {
  const heads = new Map<string, string>();
  for (const p of particles) if (p.length >= 2) heads.set(p, p);
  heads.set('abdul', 'abdul');
  for (const [spelling, canon] of VARIANTS)
    if (heads.get(canon) === canon && spelling.length >= 2) heads.set(spelling, canon);
  return heads;
}

/** A folded word's canonical token in the variant table (karem → karim), or the word itself. */
export function canonicalWord(folded: string): string {
  return canonicalToken(foldToken(folded));
}

function canonicalToken(folded: string): string {
  const direct = VARIANTS.get(folded);
  if (direct !== undefined) return direct;
  // patronymic built on a variant stem: volodimirovich → vladimirovich
  const m = /^(.+?)([aeo]vich|ovna|evna)$/.exec(folded);
  if (m) {
    const stem = VARIANTS.get(m[1]!);
    if (stem !== undefined) return stem + m[2]!;
  }
  return folded;
}

// ---- legal forms ---------------------------------------------------------------------------------------

const LEGAL_FORMS: ReadonlyArray<readonly [string, string]> = [
  ['llc', 'llc'],
  ['l l c', 'llc'],
  ['limited liability company', 'llc'],
  ['limited liability co', 'llc'],
  ['ooo', 'llc'],
  ['obshchestvo s ogranichennoy otvetstvennostyu', 'llc'],
  ['obshchestvo s ogranichennoi otvetstvennostiu', 'llc'],
  ['tov', 'llc'],
  ['sp z oo', 'llc'],
  ['sp z o o', 'llc'],
  ['spzoo', 'llc'],
  ['srl', 'llc'],
  ['sarl', 'llc'],
  ['societatea cu raspundere limitata', 'llc'],
  ['societe a responsabilite limitee', 'llc'],
  ['gmbh', 'gmbh'],
  ['gesellschaft mit beschrankter haftung', 'gmbh'],
  ['gesellschaft mit beschraenkter haftung', 'gmbh'],
  ['mbh', 'gmbh'],
  ['ltda', 'ltd'],
  ['limitada', 'ltd'],
  ['ltd', 'ltd'],
  ['limited', 'ltd'],
  ['private limited', 'ltd'],
  ['pvt ltd', 'ltd'],
  ['pte ltd', 'ltd'],
  ['pty ltd', 'ltd'],
  ['pvt', 'ltd'],
  ['pte', 'ltd'],
  ['pty', 'ltd'],
  ['co ltd', 'ltd'],
  ['company limited', 'ltd'],
  ['jsc', 'jsc'],
  ['ojsc', 'jsc'],
  ['cjsc', 'jsc'],
  ['pjsc', 'jsc'],
  ['oao', 'jsc'],
  ['zao', 'jsc'],
  ['pao', 'jsc'],
  ['ao', 'jsc'],
  ['jstc', 'jsc'],
  ['joint stock company', 'jsc'],
  ['open joint stock company', 'jsc'],
  ['closed joint stock company', 'jsc'],
  ['public joint stock company', 'jsc'],
  ['joint stock co', 'jsc'],
  ['aktsionernoe obshchestvo', 'jsc'],
  ['publichnoe aktsionernoe obshchestvo', 'jsc'],
  ['otkrytoe aktsionernoe obshchestvo', 'jsc'],
  ['zakrytoe aktsionernoe obshchestvo', 'jsc'],
  ['ag', 'ag'],
  ['aktiengesellschaft', 'ag'],
  ['kgaa', 'ag'],
  ['se', 'ag'],
  ['sa', 'sa'],
  ['societe anonyme', 'sa'],
  ['sociedad anonima', 'sa'],
  ['sa de cv', 'sa'],
  ['sal', 'sa'],
  ['ca', 'sa'],
  ['sab de cv', 'sa'],
  ['sapi de cv', 'sa'],
  ['s de rl de cv', 'sa'],
  ['de cv', 'sa'],
  ['sas', 'sa'],
  ['spa', 'sa'],
  ['sl', 'sa'],
  ['plc', 'plc'],
  ['public limited company', 'plc'],
  ['inc', 'inc'],
  ['incorporated', 'inc'],
  ['corp', 'corp'],
  ['corporation', 'corp'],
  ['co', 'co'],
  ['company', 'co'],
  ['cia', 'co'],
  ['bv', 'bv'],
  ['nv', 'bv'],
  ['bvba', 'bv'],
  ['llp', 'llp'],
  ['lp', 'llp'],
  ['limited partnership', 'llp'],
  ['limited liability partnership', 'llp'],
  ['ab', 'ab'],
  ['as', 'as'],
  ['a s', 'as'],
  ['asa', 'as'],
  ['aps', 'as'],
  ['oy', 'oy'],
  ['oyj', 'oy'],
  ['kg', 'kg'],
  ['kft', 'kft'],
  ['zrt', 'kft'],
  ['doo', 'llc'],
  ['d o o', 'llc'],
  ['sro', 'llc'],
  ['ad', 'jsc'],
  ['eood', 'llc'],
  ['ood', 'llc'],
  ['pt', 'pt'],
  ['tbk', 'pt'],
  ['bhd', 'bhd'],
  ['sdn bhd', 'bhd'],
  ['berhad', 'bhd'],
  ['kk', 'kk'],
  ['kabushiki kaisha', 'kk'],
  ['na', 'na'],
  ['fzco', 'fze'],
  ['fze', 'fze'],
  ['fzc', 'fze'],
  ['fz llc', 'fze'],
  ['wll', 'llc'],
];
/** Legal-form words written abbreviated or in full inside a form phrase (`LTD LIABILITY COMPANY`, `OPEN JSC`): each
 * phrase is also recognised with any of its words swapped for the other spelling. */
const FORM_WORD_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  limited: ['ltd'],
  ltd: ['limited'],
  company: ['co'],
  co: ['company'],
  corporation: ['corp'],
  incorporated: ['inc'],
  private: ['pvt'],
  'joint stock company': ['jsc'],
};

function formPhraseSpellings(phrase: string): string[] {
  let out = [phrase];
  for (const [word, others] of Object.entries(FORM_WORD_SPELLINGS)) {
    const next: string[] = [];
    for (const p of out) {
      next.push(p);
      const re = new RegExp(`(^| )${word}(?= |$)`);
      if (re.test(p)) for (const o of others) next.push(p.replace(re, `$1${o}`));
    }
    out = next;
  }
  return out;
}

/** LEGAL_FORMS with every phrase's other spellings (formPhraseSpellings), each phrase once, first listing first. */
const ALL_FORMS: ReadonlyArray<readonly [string, string]> = (() => {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const [phrase, code] of LEGAL_FORMS)
    for (const p of formPhraseSpellings(phrase))
      if (!seen.has(p)) {
        seen.add(p);
        out.push([p, code]);
      }
  return out;
})();

/** Short forms that are also plausible name tokens (Pol Pot, Kim Sa …): only stripped from person-like
 * names when at the end and when at least two other tokens remain. */
const AMBIGUOUS_FORMS = new Set([
  'ao',
  'ad',
  'ab',
  'as',
  'sa',
  'se',
  'sl',
  'kg',
  'pt',
  'na',
  'co',
  'oy',
  'kk',
  'sal',
  'ca',
]);

interface FormEntry {
  words: string[];
  code: string;
}
const FORMS_BY_FIRST = new Map<string, FormEntry[]>();
for (const [phrase, code] of ALL_FORMS) {
  const words = phrase.split(' ');
  const list = FORMS_BY_FIRST.get(words[0]!) ?? [];
  list.push({ words, code });
  FORMS_BY_FIRST.set(words[0]!, list);
}
for (const list of FORMS_BY_FIRST.values()) list.sort((a, b) => b.words.length - a.words.length);

// long legal-form phrases, written together, for recognising misspelt ones (Aktiengeselschaft, joynt stock company)
const LONG_FORMS = LEGAL_FORMS.map(([phrase]) => ({
  words: phrase.split(' '),
  joined: phrase.replace(/ /g, ''),
})).filter((f) => f.joined.length >= 10);

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Replaces a misspelt legal-form phrase at the end of the name (≤ 1 edit in 10 letters) by its spelling. */
const LONG_FORM_LAST = new Set(LONG_FORMS.map((f) => f.words[f.words.length - 1]![0]));

export function fixTailForm(words: string[]): string[] {
  const last = words[words.length - 1];
  if (last === undefined || !LONG_FORM_LAST.has(last[0]!)) return words;
  for (let w = Math.min(4, words.length - 1); w >= 1; w--) {
    const cand = words.slice(-w).join('');
    if (cand.length < 9) continue;
    const f = memoised(longFormMemo, cand, longFormOf);
    if (f === LONG_FORM_EXACT) return words;
    if (f !== undefined) return [...words.slice(0, words.length - w), ...f.words];
  }
  return words;
}

/** One-word legal forms of three or four letters (llc, ltd, inc, eood, fzco …): too short to be read misspelt
 * anywhere (fuzzyFormWord), but at the end of a name one typing slip in them is still the form. */
const SHORT_FORMS: readonly string[] = [
  ...new Set(
    LEGAL_FORMS.map(([phrase]) => phrase).filter((f) => !f.includes(' ') && f.length >= 3 && f.length <= 4),
  ),
];
const slipFormMemo = new Map<string, string | null>();

/** The last word of a name of two or more words read as the short legal form it misspells by one typing slip —
 * the same first letter and the same letters, one optimal-string-alignment edit apart: a letter doubled, dropped
 * where it is doubled, or two swapped (`LTTD`, `LDT`, `EOD` for `EOOD`, `FZZCO`, `FCZO`); a letter changed
 * (`INK`, `LED`) is another word. */
export function fixTailFormSlip(words: string[]): string[] {
  const n = words.length;
  const w = words[n - 1];
  if (n < 2 || w === undefined || w.length < 3 || w.length > 5 || FORMS_BY_FIRST.has(w)) return words;
  const f =
    memoised(slipFormMemo, w, slipFormOf) ?? (n >= 3 && words[n - 2] === 'co' ? changedForm(w) : undefined);
  return f === undefined ? words : [...words.slice(0, n - 1), f];
}

/** After CO, a short form with one letter changed (`CO. LRD.`, `CO. LED.`): CO already says the name ends in its
 * legal form, so the word after it is that form mistyped, not another word. */
function changedForm(w: string): string | undefined {
  for (const f of SHORT_FORMS) if (f.length === w.length && f[0] === w[0] && osa(w, f, 1) <= 1) return f;
  return undefined;
}

function slipFormOf(w: string): string | undefined {
  for (const f of SHORT_FORMS) {
    if (f[0] !== w[0] || Math.abs(f.length - w.length) > 1 || !sameLetters(f, w)) continue;
    if (osa(w, f, 1) <= 1) return f;
  }
  return undefined;
}

/** Whether two words are made of the same set of letters. */
function sameLetters(a: string, b: string): boolean {
  for (const ch of a) if (!b.includes(ch)) return false;
  for (const ch of b) if (!a.includes(ch)) return false;
  return true;
}

const LONG_FORM_EXACT = { words: [], joined: '' };
/** The first long form (in LONG_FORMS' order) that `cand` spells exactly (LONG_FORM_EXACT) or misspells, or
 * undefined. */
function longFormOf(cand: string): (typeof LONG_FORMS)[number] | undefined {
  for (const f of LONG_FORMS) {
    if (cand === f.joined) return LONG_FORM_EXACT;
    if (Math.abs(cand.length - f.joined.length) > 2 || cand[0] !== f.joined[0]) continue;
    if (levenshtein(cand, f.joined) <= Math.floor(f.joined.length / 10)) return f;
  }
  return undefined;
}

/** Words (and joined tail words) recur from name to name: the edit-distance searches for misspelt legal forms
 * are remembered, per thread, up to this many entries each. */
const FORM_MEMO_MAX = 100_000;
const longFormMemo = new Map<string, (typeof LONG_FORMS)[number] | null>();
const formWordMemo = new Map<string, string | null>();

/** f(key), remembered in `memo` (null for undefined; cleared when full); f must be a pure function of the key. */
function memoised<T>(
  memo: Map<string, T | null>,
  key: string,
  f: (key: string) => T | undefined,
): T | undefined {
  const hit = memo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const v = f(key);
  if (memo.size >= FORM_MEMO_MAX) memo.clear();
  memo.set(key, v ?? null);
  return v;
}

// words of legal-form phrases long enough to be recognised misspelt (limietd, compnay, libaility, stoock)
// (and a few unambiguous 4-letter forms: gmbh → gbh, gmmbh)
const FORM_VOCAB: readonly string[] = [
  ...new Set(LEGAL_FORMS.flatMap(([phrase]) => phrase.split(' ')).filter((w) => w.length >= 5)),
  'gmbh',
  'ltda',
  'ojsc',
  'cjsc',
  'pjsc',
  'bvba',
  'sarl',
];
const FORM_VOCAB_SET = new Set(FORM_VOCAB);

/** Edits allowed in a misspelt legal-form word of `len` letters: 1 in 4–8 letters, 2 from 9. */
export function formEditBudget(len: number): number {
  return len >= 9 ? 2 : len >= 4 ? 1 : 0;
}

/** The legal-form word `w` is a misspelling of (bounded optimal-string-alignment distance scaled by
 * length, first letter or second letter agreeing), or undefined. */
export function fuzzyFormWord(w: string): string | undefined {
  if (w.length < 3 || FORM_VOCAB_SET.has(w) || FORMS_BY_FIRST.has(w)) return undefined;
  return memoised(formWordMemo, w, misspeltFormWord);
}

function misspeltFormWord(w: string): string | undefined {
  for (const v of FORM_VOCAB) {
    const budget = formEditBudget(v.length);
    if (Math.abs(v.length - w.length) > budget) continue;
    if (w[0] !== v[0] && w[1] !== v[1]) continue;
    if (osa(w, v, budget) <= budget) return v;
  }
  return undefined;
}

/** Optimal-string-alignment distance (adjacent transpositions cost one edit), stopping early above `max`. */
function osa(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[m]!;
}

/** The words legal-form phrases are made of (sa, de, cv, srl, llc …), for recognising a form written letter by
 * letter. */
const FORM_PHRASE_WORDS = new Set(LEGAL_FORMS.flatMap(([phrase]) => phrase.split(' ')));

/**
 * A legal form written without its dots, letter by letter (`s a de c v`, `s r l`, `l l c`, `s a l`): each run of two
 * or more one-letter words that spells a word of a legal-form phrase becomes that word, so the form is recognised
 * (and peeled) like `S.A. de C.V.` or `SRL`. A two-letter run only at the name's end or before another form word
 * (`s a de c v`), so initials at the start (`A B Trading`) stay initials.
 */
function isLetter(w: string): boolean {
  return w.length === 1 && w >= 'a' && w <= 'z';
}

export function joinSpelledForms(words: string[]): string[] {
  let out: string[] | undefined;
  for (let i = 0; i < words.length; ) {
    let j = i;
    while (j < words.length && isLetter(words[j]!)) j++;
    if (j - i >= 2 && i > 0) {
      const joined = words.slice(i, j).join('');
      const next = words[j];
      const placed = joined.length >= 3 || next === undefined || FORM_PHRASE_WORDS.has(next);
      if (placed && FORM_PHRASE_WORDS.has(joined)) {
        out ??= words.slice(0, i);
        out.push(joined);
        i = j;
        continue;
      }
    }
    const end = Math.max(j, i + 1);
    if (out) for (let k = i; k < end; k++) out.push(words[k]!);
    i = end;
  }
  return out ?? words;
}

/** Legal forms that are written glued to the word before them at the end of a company name (SERVICESLIMITED,
 * TACOLLC, COLTD), longest first. */
const GLUED_TAIL_FORMS = ['limited', 'coltd', 'gmbh', 'llc', 'ltd', 'inc'];

/** The last word split from a legal form glued to its end (`servicesltd` → `services ltd`, `colimited` → `co
 * limited`) when at least three letters stay before it. */
export function splitGluedTailForm(words: string[]): string[] {
  const last = words[words.length - 1];
  if (last === undefined) return words;
  if (last === 'coltd' && words.length > 1) return [...words.slice(0, -1), 'co', 'ltd'];
  for (const f of GLUED_TAIL_FORMS) {
    if (last.length < f.length + 3 || !last.endsWith(f) || FORMS_BY_FIRST.has(last)) continue;
    let head = last.slice(0, -f.length);
    const tail = f === 'coltd' ? ['co', 'ltd'] : [f];
    if (f === 'limited' && head.endsWith('co') && head.length >= 5) {
      head = head.slice(0, -2);
      tail.unshift('co');
    }
    return [...words.slice(0, -1), head, ...tail];
  }
  return words;
}

/** A legal-form phrase of 2+ words at the start of the name whose last word is glued to the next word (`JOINT
 * STOCK COMPANYPLASMA`, `LIMITED LIABILITY COMPANYINFORION`), split from it when at least three letters stay after
 * it, and the form's last word has 4+ letters. One-word forms are not split off (`COBALT` is no `CO BALT`). */
export function splitGluedHeadForm(words: string[]): string[] {
  const cands = FORMS_BY_FIRST.get(words[0] ?? '');
  if (cands === undefined) return words;
  for (const c of cands) {
    const n = c.words.length;
    if (n < 2 || words.length < n) continue;
    const last = c.words[n - 1]!;
    const w = words[n - 1]!;
    // a form's own word is not split (COMPANY after JOINT STOCK is not CO MPANY), nor a short one off a word that
    // may be a form word misspelt (COMPNAY is not CO MPNAY)
    if (last.length < 4 || w.length < last.length + 3 || !w.startsWith(last) || FORM_PHRASE_WORDS.has(w))
      continue;
    let same = true;
    for (let k = 0; k < n - 1; k++) if (words[k] !== c.words[k]) same = false;
    if (same) return [...words.slice(0, n - 1), last, w.slice(last.length), ...words.slice(n)];
  }
  return words;
}

/** Common company words written abbreviated (intl, mfg, bros …) read as the full word (COMPANY_WORD_ABBREVIATIONS),
 * except a name's only word. */
export function expandCompanyWords(words: string[]): string[] {
  if (words.length < 2) return words;
  let out: string[] | undefined;
  for (let i = 0; i < words.length; i++) {
    const full = COMPANY_WORD_ABBREVIATIONS[words[i]!];
    if (full === undefined) continue;
    out ??= words.slice();
    out[i] = full;
  }
  return out ?? words;
}

/** Every legal-form code, for callers that want to recognise them. */
export const LEGAL_FORM_CODES: ReadonlySet<string> = new Set(LEGAL_FORMS.map((f) => f[1]));

const HONORIFIC_SET = new Set(HONORIFICS);
const DROP_WORDS = new Set(['the', 'of', 'and', 'und', 'et']);
const VESSEL_PREFIXES = new Set(['mv', 'mt', 'ms', 'ss', 'fv', 'mts', 'my', 'sy', 'rv']);

// ---- numbers -------------------------------------------------------------------------------------------

const UNITS = new Map<string, number>(
  Object.entries({
    zero: 0,
    one: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    sixteen: 16,
    seventeen: 17,
    eighteen: 18,
    nineteen: 19,
  }),
);
const TENS = new Map<string, number>(
  Object.entries({
    twenty: 20,
    thirty: 30,
    forty: 40,
    fourty: 40,
    fifty: 50,
    sixty: 60,
    seventy: 70,
    eighty: 80,
    ninety: 90,
  }),
);

function numberWords(tokens: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const tens = TENS.get(t);
    if (tens !== undefined) {
      const next = tokens[i + 1];
      const unit =
        next === undefined
          ? undefined
          : (UNITS.get(next) ?? (/^[1-9]$/.test(next) ? Number(next) : undefined));
      if (unit !== undefined && unit > 0 && unit < 10) {
        out.push(String(tens + unit));
        i++;
      } else out.push(String(tens));
      continue;
    }
    const unit = UNITS.get(t);
    out.push(unit !== undefined && t !== 'one' ? String(unit) : t);
  }
  return out;
}

// ---- transliteration -----------------------------------------------------------------------------------

function splitSyllables(romanised: string): string[] {
  return romanised.match(/[A-Z][a-z]*/g) ?? [romanised];
}

const CONSONANT_RE = /[b-df-hj-np-tv-z]/i;

/** Romanised Arabic/Hebrew: w after a consonant becomes u, except before a (alef) and after the article l. */
export function wawAsVowel(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === 'w' || c === 'W') {
      const prev = s[i - 1] ?? ' ';
      const article = (prev === 'l' || prev === 'L') && !/[a-z]/i.test(s[i - 2] ?? ' ');
      if (CONSONANT_RE.test(prev) && !article && s[i + 1]?.toLowerCase() !== 'a') {
        out += 'u';
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** A foreign name written in Hangul, from its romanised syllables: ㄹ is r at a syllable start (l after
 * another ㄹ), the inserted vowels eu and a word-final i after ch are dropped. */
function foreignHangul(syl: readonly string[]): string {
  let out = '';
  for (let i = 0; i < syl.length; i++) {
    let x = syl[i]!;
    if (x.startsWith('l') && !out.endsWith('l')) x = 'r' + x.slice(1);
    x = x.replace(/eu/g, '').replace(/eo/g, 'o');
    if (i === syl.length - 1 && x === 'chi') x = 'ch';
    out += x;
  }
  return out;
}

/** A Han run read as a Japanese name when it starts with a known family name: family + given name (from the
 * table, else the characters' default reading). Runs of 1–2 characters stay Chinese readings. */
function japaneseReading(run: string): string | undefined {
  if (run.length < 3 || run.length > 5) return undefined;
  for (const len of [3, 2, 1]) {
    const fam = JAPANESE_FAMILY_NAMES[run.slice(0, len)];
    if (fam === undefined) continue;
    const rest = run.slice(len);
    if (rest.length === 0 || rest.length > 3) continue;
    const given = JAPANESE_GIVEN_NAMES[rest];
    // a one-character family name is too ambiguous with Chinese names unless the given name is known
    if (given === undefined && len === 1) continue;
    return `${fam} ${given ?? anyAscii(rest).toLowerCase()}`;
  }
  return undefined;
}

/** Han and Hangul romanise to CamelCase syllables; give them name-like token boundaries. */
function transliterate(s: string): string {
  let out = s;
  if (NON_ASCII_RE.test(out)) {
    // several Han words (結衣 田中, 近平 习): each word is one name part, written as one token
    const hanRuns = out.match(HAN_RE)?.length ?? 0;
    // parts written apart with a middle dot: a transcribed foreign name (贝拉克·奥巴马), read by sound
    const foreignHan = hanRuns > 0 && FOREIGN_NAME_DOT_RE.test(out);
    out = out.replace(HAN_RE, (run) => {
      if (foreignHan) return ` ${hanForeignReading(run)} `;
      const jp =
        hanRuns > 1 ? (JAPANESE_FAMILY_NAMES[run] ?? JAPANESE_GIVEN_NAMES[run]) : japaneseReading(run);
      if (jp !== undefined) return ` ${jp} `;
      const syl = splitSyllables(anyAscii(run));
      // one 2–3 character word: family name + given name; longer runs are usually transcribed foreign names
      if (hanRuns === 1 && syl.length >= 2 && syl.length <= 3) return ` ${syl[0]} ${syl.slice(1).join('')} `;
      return ` ${syl.join('')} `;
    });
    // Hangul: a Korean name is a one-syllable family name and a (mostly two-syllable) given name, romanised
    // syllable by syllable (Kim Jong Un). A word of 3+ syllables in a name of several words, or a single word
    // of 5+, is a transcribed foreign name (블라디미르 푸틴): one token, without the vowel eu that Korean
    // inserts after consonant clusters (beul-la-di-mi-reu → bladimir).
    const hangulRuns = out.match(HANGUL_RE) ?? [];
    const foreign =
      hangulRuns.length > 1 ? hangulRuns.some((r) => r.length >= 3) : (hangulRuns[0]?.length ?? 0) >= 5;
    out = out.replace(HANGUL_RE, (run) => {
      const syl = splitSyllables(anyAscii(run)).map((x) => x.toLowerCase());
      if (foreign) return ` ${foreignHangul(syl)} `;
      return ` ${syl.map((x) => x.replace(/eo/g, 'o').replace(/eu/g, 'u')).join(' ')} `;
    });
    // katakana: a transcribed foreign name, one word per run, without the vowels Japanese inserts after a
    // consonant the source pronounces bare (ウラジーミル → urajimir, クリントン → krinton)
    out = out.replace(KATAKANA_RE, (run) => ` ${kanaRunReading(run)} `);
    // Burmese: syllable by syllable, each syllable's rhyme read as names are romanised (မင်းအောင်လှိုင် → min
    // aung hlaing)
    const myanmarWords = burmeseWords(out.match(MYANMAR_RE) ?? []);
    let w = 0;
    out = out.replace(MYANMAR_RE, () => ` ${myanmarWords[w++] ?? ''} `);
    // Modern Greek digraphs: ντ = d, μπ = b, ου = u (any-ascii transliterates letter by letter)
    out = out.replace(GREEK_RE, (run) =>
      run
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .replace(/ντ/g, 'd')
        .replace(/μπ/g, 'b')
        .replace(/ου/g, 'u'),
    );
    // Arabic/Hebrew waw after a consonant is mostly the long vowel u/o (فرناندو = Fernando, محمود = Mahmud);
    // it stays w before alef (نواف Nawaf) and after the article (الوهاب al-Wahhab)
    out = out.replace(SEMITIC_RUN_RE, (run) => wawAsVowel(anyAscii(run)));
    out = anyAscii(out);
  }
  return out;
}

// letters and digits mixed in one token (Ig0r Sech1n): read the digits as the letters they imitate
const LEET_RE = /^(?=.*[a-z])(?=.*[0-9])[a-z0-9]+$/;
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '9': 'g',
  '8': 'b',
};
// Roman numerals after the first word (Fund VIII, Bowne Global Solutions II, Mohammed VI) read as numbers;
// "xi" is left alone (Xi, Wang Xi), and single letters are initials
const ROMAN_RE = /^(x{0,3})(ix|iv|v?i{0,3})$/;
const ROMAN: Record<string, number> = { i: 1, v: 5, x: 10 };
export function romanToNumber(t: string): string | undefined {
  if (t.length < 2 || t === 'xi' || !ROMAN_RE.test(t)) return undefined;
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const v = ROMAN[t[i]!]!;
    const next = ROMAN[t[i + 1] ?? ''] ?? 0;
    n += v < next ? -v : v;
  }
  return String(n);
}

function unLeet(t: string): string {
  return /^[0-9]+(st|nd|rd|th)$/.test(t) ? t : t.replace(/[0-9]/g, (d) => LEET[d] ?? d);
}

const QUOTE_RE = /['’‘`´ʼʻ"]/;

const GLUED_FORM_RE =
  /([a-z]{3,})(AG|GmbH|LLC|Ltd|LTD|Inc|PLC|JSC|PJSC|OJSC|LLP|BV|NV|SpA|SARL|SAS)(?![A-Za-z])/g;

// ---- main entry ----------------------------------------------------------------------------------------

interface Item {
  tok: string;
  form?: string;
  /** the words as written when the form was recognised through a misspelt word (restored if not peeled) */
  orig?: string[];
}

export function normalizeName(raw: string, kind: NameKind = 'any'): NormalizedName {
  let s = raw.normalize('NFKC');
  const abjad = ABJAD_RE.test(s);
  const cjk = NON_ASCII_RE.test(s) ? (s.match(CJK_RE) ?? []).join('') : '';
  // a legal form glued to the name in CamelCase (SiemensAG, AcmeGmbH)
  s = s.replace(GLUED_FORM_RE, '$1 $2');
  s = transliterate(s).toLowerCase();
  // dotted initialisms (A.B.C., L.L.C., G.m.b.H., U.S.) become one token; spaced initials (V. V.) stay apart
  // (each replace only where its character occurs: most names have none of them)
  if (s.includes('.'))
    s = s.replace(/(?<![a-z0-9])((?:[a-z]\.)+[a-z])\.?(?![a-z0-9])/g, (m) => m.replace(/\./g, ''));
  if (QUOTE_RE.test(s)) s = s.replace(/['’]s\b/g, '').replace(/['’‘`´ʼʻ"]/g, '');
  if (s.includes('&')) s = s.replace(/&/g, ' and ');
  const letters = abjad || cjk ? undefined : rawLetters(s);
  s = s.replace(/[^a-z0-9]+/g, ' ').trim();
  let words = s.length ? s.split(' ') : [];
  words = fixTailForm(numberWords(words));
  for (let i = 1; i < words.length; i++) {
    const r = romanToNumber(words[i]!);
    if (r !== undefined) words[i] = r;
  }

  // legal forms: replace phrases by markers, then peel markers and connectives off both ends; a misspelt
  // form word (limietd, compnay) is read as the form when its phrase ends up peeled at an edge
  if (kind !== 'person') {
    words = fixTailFormSlip(words);
    words = splitGluedTailForm(words);
    words = splitGluedHeadForm(words);
    words = joinSpelledForms(words);
    words = expandCompanyWords(words);
  }
  const asWritten = words;
  const fixed = kind === 'person' ? words : words.map((w) => fuzzyFormWord(w) ?? w);
  const items: Item[] = [];
  for (let i = 0; i < fixed.length; i++) {
    // a vowel-less romanisation (Arabic, Persian, Hebrew) spells short forms by chance (عسل → sl): not read as forms
    const cands = abjad && fixed[i]!.length <= 3 ? undefined : FORMS_BY_FIRST.get(fixed[i]!);
    let matched: FormEntry | undefined;
    if (cands) {
      for (const c of cands) {
        let ok = i + c.words.length <= fixed.length;
        for (let k = 0; ok && k < c.words.length; k++) if (fixed[i + k] !== c.words[k]) ok = false;
        if (ok) {
          matched = c;
          break;
        }
      }
    }
    if (matched) {
      const n = matched.words.length;
      const item: Item = { tok: matched.words.join(''), form: matched.code };
      const orig = asWritten.slice(i, i + n);
      // a lone misspelt form is not peeled: it stays the word as written
      if (fixed.length === n && orig.some((w, k) => w !== fixed[i + k])) item.orig = orig;
      items.push(item);
      i += n - 1;
    } else items.push({ tok: asWritten[i]! });
  }
  const legalForms: string[] = [];
  const isEdgeForm = (it: Item, atEnd: boolean, remaining: number): boolean => {
    if (it.form === undefined) return false;
    if (kind === 'org' || kind === 'vessel') return remaining >= 1;
    if (AMBIGUOUS_FORMS.has(it.tok)) return atEnd && remaining >= 2;
    return remaining >= 1;
  };
  let lo = 0;
  let hi = items.length;
  for (let changed = true; changed && hi > lo; ) {
    changed = false;
    const last = items[hi - 1]!;
    if (isEdgeForm(last, true, hi - lo - 1)) {
      legalForms.push(last.form!);
      hi--;
      changed = true;
    } else if (hi - lo > 1 && DROP_WORDS.has(last.tok)) {
      hi--;
      changed = true;
    }
    const first = items[lo];
    if (first && hi > lo && isEdgeForm(first, false, hi - lo - 1)) {
      legalForms.push(first.form!);
      lo++;
      changed = true;
    }
  }
  let toks: string[] = [];
  for (let i = lo; i < hi; i++) {
    const it = items[i]!;
    if (it.orig !== undefined) toks.push(...it.orig);
    else toks.push(it.form ?? it.tok);
  }
  // titles are dropped from a person's name, and from an untyped one unless a legal form says it is a company's
  // (KOREA RYONBONG GENERAL CORPORATION: GENERAL is part of the name there)
  if (kind === 'person' || (kind === 'any' && legalForms.length === 0)) {
    // an abjad name's romanised consonants spell short honorifics by chance (سارا → sr, Senior): only longer ones are
    // dropped from it
    const kept = toks.filter((t) => !HONORIFIC_SET.has(t) || (abjad && t.length <= 3));
    if (kept.length > 0) toks = kept;
  }
  if (kind === 'vessel' && toks.length > 1 && VESSEL_PREFIXES.has(toks[0]!)) toks = toks.slice(1);
  const kept = toks.filter((t) => !DROP_WORDS.has(t));
  if (kept.length > 0) toks = kept;

  const folded = toks.map((t) => foldToken(LEET_RE.test(t) ? unLeet(t) : t));
  const tokens: string[] = [];
  for (let i = 0; i < folded.length; i++) {
    const t = folded[i]!;
    // a name written in two parts (Tse-tung, Abdul Rahman) that the variant table knows as one
    const next = folded[i + 1];
    if (next !== undefined) {
      const joined = VARIANTS.get(t + next);
      if (joined !== undefined && t.length >= 2 && next.length >= 2) {
        tokens.push(joined);
        i++;
        continue;
      }
    }
    const c = canonicalToken(t);
    if (c.length > 0) tokens.push(c);
  }
  const out: NormalizedName = { tokens, legalForms, abjad };
  if (cjk) out.cjk = cjk;
  if (letters !== undefined && letters.written.length > 0) {
    out.raw = letters.written;
    if (letters.swapped !== undefined) out.rawSwapped = letters.swapped;
    const core = legalForms.length > 0 ? coreLetters(items, lo, hi) : '';
    if (core.length > 0 && core !== out.raw) out.rawCore = core;
  }
  return out;
}

const NOT_ALNUM_RE = /[^a-z0-9]+/g;

/** The letters of the words from `lo` to `hi` (the name between the legal forms peeled from its edges), each as
 * written (NormalizedName.rawCore). */
function coreLetters(items: readonly Item[], lo: number, hi: number): string {
  let out = '';
  for (let i = lo; i < hi; i++) {
    const it = items[i]!;
    out += it.orig !== undefined ? it.orig.join('') : it.tok;
  }
  return out;
}

/** The letters and digits of a lower-cased, transliterated name, as written and, for a name with one comma (`FAMILY,
 * Given`), with the part after the comma first (NormalizedName.raw). */
function rawLetters(s: string): { written: string; swapped?: string } {
  const written = s.replace(NOT_ALNUM_RE, '');
  const comma = s.indexOf(',');
  if (comma < 0 || s.indexOf(',', comma + 1) >= 0) return { written };
  const swapped = s.slice(comma + 1).replace(NOT_ALNUM_RE, '') + s.slice(0, comma).replace(NOT_ALNUM_RE, '');
  return swapped === written ? { written } : { written, swapped };
}

/** Other readings of a name, screened beside it: a 3-character Han name that reads as a Korean name (family
 * + two given-name Hanja, see name-variants.ts) also gets its Korean romanisation (金正恩 → Kim Jong Un); a
 * foreign name in Chinese characters its readings through the Russian transcription table (弗拉基米尔·普京 →
 * vladimir pudin, vlatimir putin; han-foreign.ts); a name in katakana its older loan-word reading
 * (ウラジーミル・プーチン → vradimir putin; kana-foreign.ts); in any script, the words before a slash (beforeSlash)
 * and, for a name that starts with Ben, its reading with Benjamin (givenBen). */
export function alternativeReadings(raw: string): string[] {
  const out: string[] = [];
  const before = beforeSlash(raw);
  if (before !== undefined) out.push(before);
  const ben = givenBen(raw);
  if (ben !== undefined) out.push(ben);
  if (!NON_ASCII_RE.test(raw)) return out;
  const s = raw.normalize('NFKC');
  out.push(...koreanReading(s), ...hanRussianReadings(s));
  const older = kanaOlderReading(s);
  if (older !== undefined) out.push(older);
  return out;
}

/** `Ben` as a name's first word, before another word of 2+ letters. */
const GIVEN_BEN_RE = /^\s*ben(?=\s+\p{L}{2})/iu;

/** A name that starts with the word Ben (Ben Netanyahu, Ben Bernanke) read with Benjamin, the name Ben is short for:
 * the variant table reads ben as the particle bin (Osama ben Laden), which no name starts with. */
export function givenBen(raw: string): string | undefined {
  return GIVEN_BEN_RE.test(raw) ? raw.replace(GIVEN_BEN_RE, 'Benjamin') : undefined;
}

/** A slash between two words of 2+ letters or digits each (not `A/S`, `c/o`, `d/b/a`). */
const SLASH_RE = /(?<=[\p{L}\p{N}]{2}['’.)]?)\s*\/\s*(?=[\p{L}\p{N}]{2})/u;

/** A name that gives another after a slash (`Al Qa'ida/Islamic Army`, `The Organization Base of Jihad/Mesopotamia`,
 * `LORD'S RESISTANCE MOVEMENT/ARMY`): the words before the first slash, when they are 2+ words, are a name of
 * their own. What follows is not read alone, as the slash may join two words of one name (`IMPORT/EXPORT
 * CORPORATION` is not `EXPORT CORPORATION`); a slash inside a legal form (`A/S`) has a one-word side. */
export function beforeSlash(raw: string): string | undefined {
  if (!raw.includes('/')) return undefined;
  const m = SLASH_RE.exec(raw);
  if (m === null) return undefined;
  const head = raw
    .slice(0, m.index)
    .replace(/\([^)]*$/, '')
    .trim();
  return head.split(/[\s\-‐]+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length >= 2 ? head : undefined;
}

/** `nfkc`: the name already NFKC-normalised (alternativeReadings). */
function koreanReading(nfkc: string): string[] {
  const han = nfkc.replace(/[\s·・.]/g, '');
  if (!/^\p{Script=Han}{3}$/u.test(han)) return [];
  const fam = KOREAN_FAMILY_HANJA[han[0]!];
  const g1 = KOREAN_GIVEN_HANJA[han[1]!];
  const g2 = KOREAN_GIVEN_HANJA[han[2]!];
  if (fam === undefined || g1 === undefined || g2 === undefined) return [];
  return [`${fam} ${g1} ${g2}`];
}

/** Lower-case, space-separated rendering of the normalised tokens (for logs and the CLI). */
export function normalizedText(raw: string, kind: NameKind = 'any'): string {
  return normalizeName(raw, kind).tokens.join(' ');
}
