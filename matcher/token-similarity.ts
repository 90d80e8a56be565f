// Similarity of two folded tokens: edit ratio, typing slips, series numbers, initials, endings and (for abjad
// names) consonant skeletons; memoised per query token.

import { editRatio, letterBound, lrAlike, osaDoubled, VOWEL as VOWELS } from './edit-distance.js';
import type { PreparedName } from './prepared-name.js';
import { allDigits, hasDigit, PATRONYMIC_END } from './token-facts.js';
import { SCORE_PARAMS as PARAMS } from './weights.js';

// the tables this module reads as its own constants (packed-name.ts's PACKED says why)
const VOWEL = VOWELS;
const SCORE_PARAMS = PARAMS;

/** An initial against a token with that first letter. */
export const INITIAL_SIM = 0.9;

/** Per-letter scratch of typingSlip (left all zero after each call). */
const letterCount = new Int16Array(128);

/** Token similarity of equal consonant skeletons by skeleton length (1, 2, ≥ 3 consonants). */
export const SKELETON_EQUAL = [0, 0.75, 0.85, 0.95];

/** A typing slip (see typingSlip) costs this fraction of an edit: 1 − 0.7/length (counted from five letters, as
 * folding shortens tokens: `Noble` → `nobl`), so 0.86 in five letters, 0.88 in six, 0.9 in seven. */
export const TYPO_FLOOR_EDITS = 0.7;

/** Two tokens of 4+ letters that differ by one typing slip: the same first letter, the same consonant letters,
 * and one optimal-string-alignment edit (adjacent letters swapped, a vowel or doubled letter added or dropped):
 * SIONPA/SINOPA, JZAMIN/JAZMIN, BTETLE/BETTLE, but not MARTIN/MARVIN or SINOPA/SINOTA. */
export function typingSlip(a: string, b: string): boolean {
  if (a[0] !== b[0] || Math.min(a.length, b.length) < 4 || Math.abs(a.length - b.length) > 1) return false;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i) & 127;
    if (!VOWEL[c]) letterCount[c] = 1;
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i) & 127;
    if (!VOWEL[c]) letterCount[c]! |= 2;
  }
  let same = true;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i) & 127;
    if (letterCount[c] !== 0 && letterCount[c] !== 3) same = false;
    letterCount[c] = 0;
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i) & 127;
    if (letterCount[c] !== 0 && letterCount[c] !== 3) same = false;
    letterCount[c] = 0;
  }
  return same && osaDoubled(a, b, 0, 0) <= 2;
}

/** The similarity of two tokens of 5+ letters that have the same letters in another order (SCRAMBLED_MIN_LEN): a
 * name part whose letters were typed out of order or reversed (nitPu/Putin), the letters all right, as good as one
 * edit in a five-letter token. */
export const SCRAMBLED_SIM = 0.8;
const SCRAMBLED_MIN_LEN = 5;

/** Whether two tokens of SCRAMBLED_MIN_LEN+ letters are made of the same letters, each as many times (an anagram):
 * as long, with no letter unshared (letterBound 0). */
export function scrambled(a: string, b: string): boolean {
  return a.length === b.length && a.length >= SCRAMBLED_MIN_LEN && letterBound(a, b) === 0;
}

/** Two tokens of a company name that differ by one edit of any letter but the first (a letter changed, added,
 * dropped or two swapped), the longer of 5+ letters: PLJNAR/PLANAR, BARUP/BARUS, PLAMA/PLASMA. Company names are
 * coined words, not a small stock of given names and surnames that differ by one letter (MARTIN/MARVIN), so one
 * wrong key in a customer file's company name costs what a typing slip costs in a person's name. */
export function companyTypo(a: string, b: string): boolean {
  if (a[0] !== b[0] || Math.max(a.length, b.length) < 5 || Math.min(a.length, b.length) < 4) return false;
  if (Math.abs(a.length - b.length) > 1) return false;
  return osaDoubled(a, b, 0, 0) <= 2;
}

/** Distinct other tokens a name's memo keeps per token and mode (pairSimilarity). */
const PAIR_MEMO_MAX = 4096;

/** tokenSimilarity of q's i-th token and the token `b` (skeleton `skB`), in the current l/r mode: memoised on q,
 * as a screen's query meets the same list tokens in many candidate names (aliases of one entity, common names).
 * The similarity depends only on the two tokens (a skeleton is its token's), abjadMode, prefixOk and lrAlike, which
 * key the memo. */
export function pairSimilarity(
  q: PreparedName,
  i: number,
  b: string,
  skB: string,
  abjadMode: boolean,
  prefixOk: boolean,
  org = false,
): number {
  const a = q.tokens[i]!;
  if (a === b) return 1;
  const slot = i * 16 + (abjadMode ? 1 : 0) + (prefixOk ? 2 : 0) + (lrAlike ? 4 : 0) + (org ? 8 : 0);
  if (q.sims === undefined) q.sims = [];
  let memo = q.sims[slot];
  if (memo === undefined) {
    memo = new Map();
    q.sims[slot] = memo;
  }
  let v = memo.get(b);
  if (v === undefined) {
    v = tokenSimilarity(a, b, q.skels[i]!, skB, abjadMode, prefixOk, org);
    if (memo.size < PAIR_MEMO_MAX) memo.set(b, v);
  }
  return v;
}

/** The masculine and feminine forms of one given name (Martin/Martina, Michael/Michaela, Luis/Luisa, Mario/Maria,
 * Antonio/Antonia): one form is the other with -a added to a consonant, or the two end in -o and -a on a stem of 4+
 * letters. They name two different people, though one letter apart; Tajik and Uzbek renderings of -ullah (Abdullo,
 * Abdulla: folded -ulo, -ula) are one name and are left out, and so are words longer than a given name
 * (GENDERED_MAX_LEN): a vessel's `ANTARKTIKA` is `NS ANTARCTIC`, whose kind alignment does not know. */
export function genderedPair(a: string, b: string): boolean {
  if (Math.max(a.length, b.length) > GENDERED_MAX_LEN) return false;
  const d = a.length - b.length;
  if (d === 1 || d === -1) {
    const long = d > 0 ? a : b;
    const short = d > 0 ? b : a;
    return (
      short.length >= 4 &&
      long.endsWith('a') &&
      long.startsWith(short) &&
      !VOWEL[short.charCodeAt(short.length - 1) & 127]
    );
  }
  if (d !== 0 || a.length < 5) return false;
  const ea = a[a.length - 1];
  const eb = b[b.length - 1];
  if (!((ea === 'a' && eb === 'o') || (ea === 'o' && eb === 'a'))) return false;
  return a.slice(0, -1) === b.slice(0, -1) && !a.endsWith('ul' + ea);
}

/** Longest folded token read as a gendered given name (genderedPair): Alexandra, Gabriela, Fernanda. */
const GENDERED_MAX_LEN = 9;

/** Similarity of two folded tokens in [0,1]. */
export function tokenSimilarity(
  a: string,
  b: string,
  skA: string,
  skB: string,
  abjadMode: boolean,
  prefixOk = false,
  org = false,
): number {
  if (a === b) return 1;
  // numbers: two different numbers are members of one series (a fund vintage, a sister vessel), aligned at the
  // lowest similarity that still aligns; a number against a word or a mixed token never aligns
  if (hasDigit(a) || hasDigit(b)) return allDigits(a) && allDigits(b) ? SCORE_PARAMS.numberSim : 0;
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? INITIAL_SIM : 0;
  if (!org && !abjadMode && genderedPair(a, b)) return 0;
  let s = editRatio(a, b, SCORE_PARAMS.minTokenSim);
  const slipFloor = 1 - TYPO_FLOOR_EDITS / Math.max(a.length, b.length, 5);
  if (s < slipFloor && (typingSlip(a, b) || (org && companyTypo(a, b)))) s = slipFloor;
  if (s < SCRAMBLED_SIM && !abjadMode && scrambled(a, b)) s = SCRAMBLED_SIM;
  // two letters added at the end of a token (an ending: Abiy/Abiyot, Amazon/Amazonis) count as one edit, when
  // both names have other tokens to corroborate it and the longer token is not a patronymic built on the other
  // (Oleksandr/Oleksandrovych); three or more letters are another name (Ken/Kendra, Jose/Josefina)
  if (prefixOk && Math.abs(a.length - b.length) === 2 && Math.min(a.length, b.length) >= 3) {
    const long = a.length > b.length ? a : b;
    if (long.startsWith(a.length > b.length ? b : a) && !PATRONYMIC_END.test(long)) {
      const pv = 1 - 1 / long.length;
      if (pv > s) s = pv;
    }
  }
  if (abjadMode && skA.length > 0 && skB.length > 0) {
    // equal skeletons of one or two consonants (Arabic roots have three) coincide too easily
    const k =
      skA === skB
        ? (SKELETON_EQUAL[Math.min(skA.length, 3)] ?? 0.95)
        : editRatio(skA, skB, SCORE_PARAMS.minTokenSim) * 0.9;
    if (k > s) s = k;
  }
  return s;
}
