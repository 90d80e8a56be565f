// Edit distance between folded tokens: optimal string alignment where a vowel replaced by a vowel (and, for names
// read from scripts that do not tell them apart, l by r) costs half an edit, its ratio form, and a cheap lower bound
// from the letters alone. Allocation-free (shared row arrays).

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);
// b's char codes and vowel flags, read once per call instead of once per cell
let codeB = new Int32Array(64);
let vowelB = new Uint8Array(64);

/** While set, l and r replace each other at half an edit, like two vowels: names read from scripts that do not
 * tell them apart (Chinese 拉 is la and ra, Korean ㄹ is l and r, Japanese ラ is both). Set by alignSimilarity for the pair it scores. */
export let lrAlike = false;

/** Sets lrAlike for the pair about to be scored or bounded (alignment and the bound set it, and clear it after). */
export function setLrAlike(on: boolean): void {
  lrAlike = on;
}

export const VOWEL = new Uint8Array(128);
for (const v of 'aeiouy') VOWEL[v.charCodeAt(0)] = 1;

/** Optimal string alignment distance (Levenshtein + adjacent transposition), where replacing a vowel by
 * another vowel costs half an edit: vowels are what transliterations disagree on most (Scholz/Schulze). */
export function osaDistance(a: string, b: string): number {
  return osaDoubled(a, b, 0, 0) / 2;
}

/** Twice osaDistance. With `floor` > 0 it may stop early once 1 − distance / `max` is sure to fall below `floor`,
 * returning a lower bound of twice the distance that puts it there: every cell of a row is at least the smaller
 * minimum of the two rows before it, so that smaller minimum never decreases from row to row and bounds the
 * distance. */
export function osaDoubled(a: string, b: string, floor: number, max: number): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return 2 * m;
  if (m === 0) return 2 * n;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(m * 2 + 2);
    rowB = new Int32Array(m * 2 + 2);
    rowC = new Int32Array(m * 2 + 2);
    codeB = new Int32Array(m * 2 + 2);
    vowelB = new Uint8Array(m * 2 + 2);
  }
  for (let j = 0; j < m; j++) {
    const cb = b.charCodeAt(j);
    codeB[j] = cb;
    vowelB[j] = cb < 128 ? VOWEL[cb]! : 0;
  }
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= m; j++) prev[j] = 2 * j;
  let prevMin = 0;
  const lr = lrAlike;
  for (let i = 1; i <= n; i++) {
    cur[0] = 2 * i;
    let rowMin = cur[0]!;
    const ca = a.charCodeAt(i - 1);
    const pa = i > 1 ? a.charCodeAt(i - 2) : -1;
    const va = ca < 128 ? VOWEL[ca]! : 0;
    for (let j = 1; j <= m; j++) {
      const cb = codeB[j - 1]!;
      const cost =
        ca === cb
          ? 0
          : (va === 1 && vowelB[j - 1] === 1) || (lr && ca + cb === 222 && (ca === 108 || ca === 114))
            ? 1
            : 2;
      let v = prev[j - 1]! + cost;
      const del = prev[j]! + 2;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 2;
      if (ins < v) v = ins;
      if (j > 1 && pa === cb && ca === codeB[j - 2]) {
        const tr = prev2[j - 2]! + 2;
        if (tr < v) v = tr;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (floor > 0) {
      const lower = Math.min(rowMin, prevMin);
      if (1 - lower / 2 / max < floor) return lower;
    }
    prevMin = rowMin;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m]!;
}

/** 1 − distance / longer length. With `floor`, a pair below the floor may return an upper bound below the floor
 * instead: from the length difference alone (min/max) or the letters (letterBound) without running the quadratic
 * distance, or from the distance's rows so far once they put it below the floor. */
export function editRatio(a: string, b: string, floor = 0): number {
  if (a === b) return 1;
  const max = Math.max(a.length, b.length);
  if (max === 0) return 1;
  const bound = Math.min(a.length, b.length) / max;
  if (bound < floor) return bound;
  if (floor > 0) {
    const lb = 1 - letterBound(a, b) / max;
    if (lb < floor) return lb;
  }
  return 1 - osaDoubled(a, b, floor, max) / 2 / max;
}

const letterCount = new Int16Array(128);

/** Letters an edit may replace at half cost while lrAlike is set: vowels, l and r. */
const HALF_COST_LR = VOWEL.slice();
HALF_COST_LR['l'.charCodeAt(0)] = 1;
HALF_COST_LR['r'.charCodeAt(0)] = 1;

/** A lower bound of osaDistance in O(n+m) from the letters the two strings do not share: every unshared
 * consonant costs a full edit, every unshared vowel (and l or r while lrAlike is set) at least half of one. */
export function letterBound(a: string, b: string): number {
  const half = lrAlike ? HALF_COST_LR : VOWEL;
  for (let i = 0; i < a.length; i++) letterCount[a.charCodeAt(i) & 127]!++;
  for (let i = 0; i < b.length; i++) letterCount[b.charCodeAt(i) & 127]!--;
  let aCons = 0;
  let bCons = 0;
  let aAll = 0;
  let bAll = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i) & 127;
    const v = letterCount[c]!;
    if (v > 0) {
      aAll += v;
      if (!half[c]) aCons += v;
      letterCount[c] = 0;
    }
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i) & 127;
    const v = letterCount[c]!;
    if (v < 0) {
      bAll -= v;
      if (!half[c]) bCons -= v;
    }
    letterCount[c] = 0;
  }
  return Math.max(aCons, bCons, 0.5 * Math.max(aAll, bAll));
}
