// Name similarity: token alignment over folded tokens with an edit-distance token similarity, plus a
// whole-string comparison for joined/split names. Allocation-free in the hot loops (shared scratch arrays).

import { fnv1a } from './keys.js';
import { ORG_GENERIC_WORDS } from './name-variants.js';
import { type NameKind, type NormalizedName, normalizeName, skeleton } from './normalize.js';

export interface PreparedName {
  tokens: string[];
  skels: string[];
  weights: number[];
  abjad: boolean;
  joined: string;
  joinedSkel: string;
  legalForms: string[];
  /** Han/Hangul characters as written ('' if none) */
  cjk: string;
  /** every digit of the name, in order: names that differ in a number are not joined/split variants */
  digits: string;
  /** first letter of every token, for acronyms (PLA ↔ People's Liberation Army, JC ↔ Jean-Claude) */
  initials: string;
  /** the name as numbers for nameSimilarityBound (packName): token count, flags, the initials' letters, then the
   * tokens */
  packed: Int32Array;
  /** this name's token similarities as the query side, memoised by pairSimilarity (created on first use) */
  sims: Map<string, number>[] | undefined;
}

/** Particles that carry little identity: they still align but weigh little when unmatched. */
const PARTICLES = new Set([
  'al',
  'bin',
  'abu',
  'bint',
  'de',
  'da',
  'di',
  'del',
  'dela',
  'della',
  'van',
  'von',
  'der',
  'den',
  'la',
  'le',
  'du',
  'dos',
  'das',
  'na',
  'y',
  'e',
  'ait',
  'ould',
  'mac',
  'mc',
  'st',
]);

/** Unmatched generic/geographic words cost this fraction of a distinctive token in org names. */
const GENERIC = new Set(ORG_GENERIC_WORDS.flatMap((w) => normalizeName(w, 'org').tokens));
const GENERIC_COST = 0.3;
const PARTICLE_COST = 0.3;

export function tokenWeight(t: string): number {
  return weightOf(t.length, PARTICLES.has(t));
}

/** A token's weight from its length and whether it is a particle (tokenWeight, and the bound's packed tokens). */
function weightOf(len: number, particle: boolean): number {
  if (particle) return 0.6;
  if (len === 1) return 2;
  return Math.min(len, 10);
}

export function prepareNormalized(n: NormalizedName): PreparedName {
  const skels = n.tokens.map(skeleton);
  const joined = n.tokens.join('');
  const initials = n.tokens.map((t) => t[0]).join('');
  const joinedSkel = skeleton(joined);
  return {
    tokens: n.tokens,
    skels,
    weights: n.tokens.map(tokenWeight),
    abjad: n.abjad,
    joined,
    joinedSkel,
    legalForms: n.legalForms,
    cjk: n.cjk ?? '',
    initials,
    digits: hasDigit(joined) ? joined.replace(/[^0-9]/g, '') : '',
    packed: packName(n.tokens, skels, n.abjad, (n.cjk ?? '').length > 0, letterMask(initials), joinedSkel),
    sims: undefined,
  };
}

/**
 * A copy of `p` (arrays included) allocated here, for a prepared name kept across screens (the screener's cache).
 * V8 allocates straight into the old generation from an allocation site most of whose objects survive a
 * scavenge: were cached names allocated by prepareNormalized, every query's prepared names would then be too,
 * short-lived garbage that makes each scavenge and each full collection several times costlier. Its properties
 * are in prepareNormalized's order, so both make objects of one hidden class (two would make every reader polymorphic).
 */
export function retainedCopy(p: PreparedName): PreparedName {
  return {
    tokens: p.tokens.slice(),
    skels: p.skels.slice(),
    weights: p.weights.slice(),
    abjad: p.abjad,
    joined: p.joined,
    joinedSkel: p.joinedSkel,
    legalForms: p.legalForms.slice(),
    cjk: p.cjk,
    initials: p.initials,
    digits: p.digits,
    packed: p.packed.slice(),
    sims: undefined,
  };
}

export function prepareName(raw: string, kind: NameKind = 'any'): PreparedName {
  return prepareNormalized(normalizeName(raw, kind));
}

// ---- edit distance -------------------------------------------------------------------------------------

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/** While set, l and r replace each other at half an edit, like two vowels: names read from scripts that do not
 * tell them apart (Chinese 拉 is la and ra, Korean ㄹ is l and r, Japanese ラ is both). Set by alignSimilarity for the pair it scores. */
let lrAlike = false;

const VOWEL = new Uint8Array(128);
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
function osaDoubled(a: string, b: string, floor: number, max: number): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return 2 * m;
  if (m === 0) return 2 * n;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(m * 2 + 2);
    rowB = new Int32Array(m * 2 + 2);
    rowC = new Int32Array(m * 2 + 2);
  }
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= m; j++) prev[j] = 2 * j;
  let prevMin = 0;
  for (let i = 1; i <= n; i++) {
    cur[0] = 2 * i;
    let rowMin = cur[0]!;
    const ca = a.charCodeAt(i - 1);
    const va = ca < 128 ? VOWEL[ca]! : 0;
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost =
        ca === cb
          ? 0
          : (va === 1 && cb < 128 && VOWEL[cb] === 1) ||
              (lrAlike && ca + cb === 222 && (ca === 108 || ca === 114))
            ? 1
            : 2;
      let v = prev[j - 1]! + cost;
      const del = prev[j]! + 2;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 2;
      if (ins < v) v = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
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

function allDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** Token similarity of equal consonant skeletons by skeleton length (1, 2, ≥ 3 consonants). */
const SKELETON_EQUAL = [0, 0.75, 0.85, 0.95];

/** A typing slip (see typingSlip) costs this fraction of an edit: 1 − 0.7/length (counted from five letters, as
 * folding shortens tokens: `Noble` → `nobl`), so 0.86 in five letters, 0.88 in six, 0.9 in seven. */
const TYPO_FLOOR_EDITS = 0.7;

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

/** Distinct other tokens a name's memo keeps per token and mode (pairSimilarity). */
const PAIR_MEMO_MAX = 4096;

/** tokenSimilarity of q's i-th token and the token `b` (skeleton `skB`), in the current l/r mode: memoised on q,
 * as a screen's query meets the same list tokens in many candidate names (aliases of one entity, common names).
 * The similarity depends only on the two tokens (a skeleton is its token's), abjadMode, prefixOk and lrAlike, which
 * key the memo. */
function pairSimilarity(
  q: PreparedName,
  i: number,
  b: string,
  skB: string,
  abjadMode: boolean,
  prefixOk: boolean,
): number {
  const a = q.tokens[i]!;
  if (a === b) return 1;
  const slot = i * 8 + (abjadMode ? 1 : 0) + (prefixOk ? 2 : 0) + (lrAlike ? 4 : 0);
  if (q.sims === undefined) q.sims = [];
  let memo = q.sims[slot];
  if (memo === undefined) {
    memo = new Map();
    q.sims[slot] = memo;
  }
  let v = memo.get(b);
  if (v === undefined) {
    v = tokenSimilarity(a, b, q.skels[i]!, skB, abjadMode, prefixOk);
    if (memo.size < PAIR_MEMO_MAX) memo.set(b, v);
  }
  return v;
}

/** Endings of East Slavic patronymics (folded). */
const PATRONYMIC_END = /(?:ovich|evich|ovych|evych|ovna|evna|ivna|ich)$/;

/** Similarity of two folded tokens in [0,1]. */
export function tokenSimilarity(
  a: string,
  b: string,
  skA: string,
  skB: string,
  abjadMode: boolean,
  prefixOk = false,
): number {
  if (a === b) return 1;
  // numbers: two different numbers are members of one series (a fund vintage, a sister vessel), aligned at the
  // lowest similarity that still aligns; a number against a word or a mixed token never aligns
  if (hasDigit(a) || hasDigit(b)) return allDigits(a) && allDigits(b) ? SCORE_PARAMS.numberSim : 0;
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? INITIAL_SIM : 0;
  let s = editRatio(a, b, SCORE_PARAMS.minTokenSim);
  const slipFloor = 1 - TYPO_FLOOR_EDITS / Math.max(a.length, b.length, 5);
  if (s < slipFloor && typingSlip(a, b)) s = slipFloor;
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

// ---- alignment -----------------------------------------------------------------------------------------

export interface ScoreParams {
  minTokenSim: number;
  power: number;
  curve: number;
  queryExtraMulti: number;
  queryExtraSingle: number;
  candExtraMulti: number;
  candExtraSingle: number;
  orgExtra: number;
  extraCap: number;
  joinedMin: number;
  joinedDiscount: number;
  /** weight multiplier of tokens substituted on both sides (a different name part) */
  substMult: number;
  /** similarity of two different numbers (Fund III / Fund IV, Snow Storm 1 / 2): a series of one name */
  numberSim: number;
}

export const SCORE_PARAMS: ScoreParams = {
  minTokenSim: 0.6,
  power: 2,
  curve: 1,
  queryExtraMulti: 0.06,
  queryExtraSingle: 0.2,
  candExtraMulti: 0.04,
  candExtraSingle: 0.07,
  orgExtra: 0.16,
  extraCap: 0.5,
  joinedMin: 0.85,
  joinedDiscount: 0.97,
  substMult: 1,
  numberSim: 0.6,
};

const INITIAL_SIM = 0.9;
const MAX_T = 16;
const simMatrix = new Float64Array(MAX_T * MAX_T);
/** The token similarities of the last exactBound pass, for the pair (exactSimsQ, exactSimsC) with lrAlike as
 * exactSimsLr: tokenSimilarity of every pair, or, for a pair whose bound was below exactSimsMin (the minTokenSim of
 * that pass), that bound (alignScore never aligns a pair below its minTokenSim, so only the order to it matters). */
const exactSims = new Float64Array(MAX_T * MAX_T);
let exactSimsQ: PreparedName | undefined;
let exactSimsC: PreparedName | undefined;
let exactSimsLr = false;
let exactSimsMin = 0;
const usedQ = new Uint8Array(MAX_T);
const usedC = new Uint8Array(MAX_T);

export const FORM_CONFLICT = 0.16;
export const BIN_SWAP = 0.75;
export const ACRONYM_DISCOUNT = 0.95;

/**
 * Similarity of a query name to a candidate name in [0,1]. Asymmetric on purpose: extra tokens in the
 * candidate (list names carry patronymics, tribal names) cost less than extra tokens in the query.
 */
export function nameSimilarity(
  q: PreparedName,
  c: PreparedName,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
): number {
  let s = alignSimilarity(q, c, org, p);
  if (s < 1) {
    // an acronym on one side for a run of tokens on the other (PLA, U.S., JC Juncker)
    const qa = collapseAcronym(q, c);
    if (qa) s = Math.max(s, ACRONYM_DISCOUNT * alignSimilarity(q, qa, org, p));
    const ca = collapseAcronym(c, q);
    if (ca) s = Math.max(s, ACRONYM_DISCOUNT * alignSimilarity(ca, c, org, p));
  }
  // both written in Han or Hangul: a character is a whole syllable, and two spellings that romanise alike
  // (高石/高市, 종/정) are different names; the character-level similarity caps the score
  if (q.cjk.length >= 2 && c.cjk.length >= 2 && q.cjk !== c.cjk) s = Math.min(s, editRatio(q.cjk, c.cjk));
  return s;
}

/** If a token of `a` (2–5 letters, not a particle, absent from `b`) spells the initials of a run of tokens
 * of `b`, returns `b` with that run replaced by the token. */
export function collapseAcronym(a: PreparedName, b: PreparedName): PreparedName | undefined {
  if (b.tokens.length < 2) return undefined;
  for (const t of a.tokens) {
    if (!acronymCandidate(t.length, PARTICLES.has(t), b.tokens.length)) continue;
    const at = b.initials.indexOf(t);
    if (at < 0 || b.tokens.includes(t)) continue;
    const tokens = [...b.tokens.slice(0, at), t, ...b.tokens.slice(at + t.length)];
    return prepareNormalized({ tokens, legalForms: b.legalForms, abjad: b.abjad });
  }
  return undefined;
}

/** Whether a token of this length can stand for a run of initials of a name of `nb` tokens. */
function acronymCandidate(len: number, particle: boolean, nb: number): boolean {
  return len >= 2 && len <= 5 && len <= nb && !particle;
}

const matchOf = new Int8Array(MAX_T);

function alignSimilarity(q: PreparedName, c: PreparedName, org: boolean, p: ScoreParams): number {
  lrAlike = q.cjk.length > 0 || c.cjk.length > 0;
  try {
    return alignScore(q, c, org, p);
  } finally {
    lrAlike = false;
  }
}

function alignScore(q: PreparedName, c: PreparedName, org: boolean, p: ScoreParams): number {
  const nq = Math.min(q.tokens.length, MAX_T);
  const nc = Math.min(c.tokens.length, MAX_T);
  if (nq === 0 || nc === 0) return 0;
  const abjadMode = q.abjad || c.abjad;
  const prefixOk = nq >= 2 && nc >= 2;
  // the token similarities exactBound just computed for this pair, when it did
  const sims =
    q === exactSimsQ && c === exactSimsC && lrAlike === exactSimsLr && p.minTokenSim >= exactSimsMin
      ? exactSims
      : simMatrix;
  if (sims === simMatrix)
    for (let i = 0; i < nq; i++) {
      for (let j = 0; j < nc; j++) {
        simMatrix[i * MAX_T + j] = pairSimilarity(q, i, c.tokens[j]!, c.skels[j]!, abjadMode, prefixOk);
      }
    }
  for (let i = 0; i < nq; i++) {
    usedQ[i] = 0;
    matchOf[i] = -1;
  }
  for (let j = 0; j < nc; j++) usedC[j] = 0;
  // greedy one-to-one alignment, best pairs first; ties go to the earliest positions (deterministic)
  let matchedW = 0;
  let matchedTotal = 0;
  let matched = 0;
  let softQ = 0;
  let softC = 0;
  for (;;) {
    let best = p.minTokenSim;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < nq; i++) {
      if (usedQ[i]) continue;
      for (let j = 0; j < nc; j++) {
        if (usedC[j]) continue;
        const s = sims[i * MAX_T + j]!;
        if (s > best || (bi < 0 && s >= best)) {
          best = s;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    usedQ[bi] = 1;
    usedC[bj] = 1;
    matchOf[bi] = bj;
    matched++;
    const qt = q.tokens[bi]!;
    const ct = c.tokens[bj]!;
    // an initial matched to a full token weighs like an initial on both sides; the full token is only
    // half-confirmed, so half its weight counts as unmatched (see the conflict rule below)
    let w: number;
    if (qt.length === 1 || ct.length === 1) {
      w = 1.6;
      if (qt.length > 1) softQ += 0.5 * q.weights[bi]!;
      if (ct.length > 1) softC += 0.5 * c.weights[bj]!;
    } else w = q.weights[bi]! + c.weights[bj]!;
    matchedTotal += w;
    matchedW += w * curved(best, p);
  }
  let align = 0;
  if (matched > 0) {
    let qU = 0;
    let cU = 0;
    let qN = 0;
    let cN = 0;
    for (let i = 0; i < nq; i++)
      if (!usedQ[i]) {
        qU += q.weights[i]!;
        qN += unmatchedCost(q.tokens[i]!, org);
      }
    for (let j = 0; j < nc; j++)
      if (!usedC[j]) {
        cU += c.weights[j]!;
        cN += unmatchedCost(c.tokens[j]!, org);
      }
    const core = matchedW / matchedTotal;
    if ((qU > 0 || softQ > 0) && (cU > 0 || softC > 0) && qU + cU > 0) {
      // substituted tokens on both sides: a different person/company, full cost
      align = matchedW / (matchedTotal + p.substMult * (qU + cU) + softQ + softC);
    } else {
      const multi = matched >= 2;
      let pen = 0;
      if (org) pen = (qN + cN) * p.orgExtra;
      else if (qN > 0) pen = qN * (multi ? p.queryExtraMulti : p.queryExtraSingle);
      else if (cN > 0) pen = cN * (multi ? p.candExtraMulti : p.candExtraSingle);
      align = core * (1 - Math.min(p.extraCap, pen));
    }
    if (binSwapped(q, c)) align *= BIN_SWAP;
  }
  // two different legal forms (AG vs GmbH) usually mean two different companies of one group
  if (formsConflict(q.legalForms, c.legalForms)) align = Math.max(0, align - FORM_CONFLICT);
  // joined/split tokens (AlisherUsmanov, Patr ushev, abdul rahman) and abjad skeletons across tokens
  // (numbers must agree: Bowne Global Solutions II is not Bowne Global Solutions)
  if (nq !== nc || nq === 1 || abjadMode) {
    const alt = joinedScore(q, c, abjadMode, p);
    if (alt > align) align = alt;
  }
  return align;
}

/** The score of the joined/split alternative (0 when it does not apply: the names' digits differ, or the ratio is
 * under joinedMin). */
function joinedScore(q: PreparedName, c: PreparedName, abjadMode: boolean, p: ScoreParams): number {
  if (q.digits !== c.digits) return 0;
  const r = abjadMode
    ? editRatio(q.joinedSkel, c.joinedSkel, p.joinedMin) * 0.95
    : editRatio(q.joined, c.joined, p.joinedMin);
  return r >= p.joinedMin ? curved(r, p) * p.joinedDiscount : 0;
}

function unmatchedCost(t: string, org: boolean): number {
  return unmatchedCostOf(PARTICLES.has(t), GENERIC.has(t), org);
}

function unmatchedCostOf(particle: boolean, generic: boolean, org: boolean): number {
  if (particle) return PARTICLE_COST;
  return org && generic ? GENERIC_COST : 1;
}

/** A similarity through the score curve (non-decreasing for curve ≥ 0). */
function curved(s: number, p: ScoreParams): number {
  return s >= 1 ? 1 : Math.max(0, 1 - p.curve * (1 - s));
}

// ---- an upper bound without edit distances ---------------------------------------------------------------

/** packName: five int32 per token. */
const PK = 5;
const PK_MASK = 0;
const PK_HASH = 1;
const PK_LEN = 2;
const PK_FIRST = 3;
/** hash of the token without its last two letters (the ending rule) */
const PK_STEM = 4;
/** the length of the token's consonant skeleton (abjad mode), in the PK_LEN word from this bit */
const PK_SK_SHIFT = 20;
/** the skeleton length field: 8 bits, PK_SK_LONG standing for any length of 255 or more (then not bounded) */
const PK_SK_LONG = 0xff;
/** Flags above the length in the PK_LEN word. */
const PK_PARTICLE = 1 << 16;
const PK_GENERIC = 1 << 17;
const PK_PATRONYMIC = 1 << 18;
const PK_LEN_BITS = 0xffff;

const MASK_DIGIT = 1 << 26;
const MASK_OTHER = 1 << 27;
const bitOf = (ch: string): number => 1 << (ch.charCodeAt(0) - 97);
const MASK_VOWELS = [...'aeiouy'].reduce((m, ch) => m | bitOf(ch), 0);
const MASK_HALF_LR = MASK_VOWELS | bitOf('l') | bitOf('r');

/** Bit i for the letter a+i, MASK_DIGIT for any digit, MASK_OTHER for any other character. */
export function letterMask(t: string): number {
  let m = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 97 && c <= 122) m |= 1 << (c - 97);
    else if (c >= 48 && c <= 57) m |= MASK_DIGIT;
    else m |= MASK_OTHER;
  }
  return m;
}

/** packName's header: the token count, the flags, the letterMask of the initials, the length of the joined skeleton
 * (joinedSkel); the tokens follow at T0. */
const HDR_N = 0;
const HDR_FLAGS = 1;
const HDR_INITIALS = 2;
const HDR_JSK_LEN = 3;
const T0 = 4;
const F_ABJAD = 1;
const F_CJK = 2;
/** some token is a single letter (an initial) */
const F_INITIAL = 4;

/** The header, then per token: letterMask, FNV-1a hash, length with the particle/generic flags and the skeleton's
 * length, first character code, stem hash. The bound reads these contiguous numbers (one
 * array per name) instead of the name's strings. */
function packName(
  tokens: readonly string[],
  skels: readonly string[],
  abjad: boolean,
  cjk: boolean,
  initialsMask: number,
  joinedSkel: string,
): Int32Array {
  const out = new Int32Array(T0 + tokens.length * PK);
  out[HDR_N] = tokens.length;
  out[HDR_INITIALS] = initialsMask;
  out[HDR_JSK_LEN] = joinedSkel.length;
  let flags = (abjad ? F_ABJAD : 0) | (cjk ? F_CJK : 0);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const o = T0 + i * PK;
    if (t.length === 1) flags |= F_INITIAL;
    out[o + PK_MASK] = letterMask(t);
    out[o + PK_HASH] = fnv1a(t) | 0;
    out[o + PK_LEN] =
      Math.min(t.length, PK_LEN_BITS) |
      (PARTICLES.has(t) ? PK_PARTICLE : 0) |
      (GENERIC.has(t) ? PK_GENERIC : 0) |
      (PATRONYMIC_END.test(t) ? PK_PATRONYMIC : 0) |
      (Math.min(skels[i]!.length, PK_SK_LONG) << PK_SK_SHIFT);
    out[o + PK_FIRST] = t.charCodeAt(0);
    out[o + PK_STEM] = fnv1a(t.slice(0, -2)) | 0;
  }
  out[HDR_FLAGS] = flags;
  return out;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  v = (v + (v >>> 4)) & 0x0f0f0f0f;
  return Math.imul(v, 0x01010101) >>> 24;
}

/** letterBound from the two letter sets alone (a letter only one side has costs what letterBound charges for one
 * occurrence of it), so never above letterBound; 0 when a token has characters outside a–z and 0–9. */
function maskLetterBound(ma: number, mb: number): number {
  if (((ma | mb) & MASK_OTHER) !== 0) return 0;
  const half = lrAlike ? MASK_HALF_LR : MASK_VOWELS;
  const onlyA = ma & ~mb;
  const onlyB = mb & ~ma;
  return Math.max(
    popcount(onlyA & ~half),
    popcount(onlyB & ~half),
    0.5 * Math.max(popcount(onlyA), popcount(onlyB)),
  );
}

/** An upper bound of editRatio(a, b, floor) from lengths and letter masks: what editRatio returns when it stops
 * early, else 1 − maskLetterBound / longer length. */
function editRatioBound(la: number, lb: number, ma: number, mb: number, floor: number): number {
  const max = Math.max(la, lb);
  if (max === 0) return 1;
  const bound = Math.min(la, lb) / max;
  if (bound < floor) return bound;
  return Math.min(bound, 1 - maskLetterBound(ma, mb) / max);
}

/** An upper bound of tokenSimilarity(a, b, …) for two tokens of 2+ letters in a pair without abjad mode, rule by
 * rule: equal hashes may be equal tokens (1); numbers exactly; editRatioBound for editRatio; the typing-slip
 * floor when the first letter, lengths and consonant letters allow a slip; the ending rule when the longer token's
 * stem hashes like the shorter token. */
function tokenBound(a: Int32Array, i: number, b: Int32Array, j: number, prefixOk: boolean): number {
  const ma = a[i + PK_MASK]!;
  const mb = b[j + PK_MASK]!;
  const la = a[i + PK_LEN]! & PK_LEN_BITS;
  const lb = b[j + PK_LEN]! & PK_LEN_BITS;
  if (la === lb && a[i + PK_HASH] === b[j + PK_HASH]) return 1;
  if (((ma | mb) & MASK_DIGIT) !== 0)
    return ma === MASK_DIGIT && mb === MASK_DIGIT ? SCORE_PARAMS.numberSim : 0;
  let s = editRatioBound(la, lb, ma, mb, SCORE_PARAMS.minTokenSim);
  const long = Math.max(la, lb);
  const short = Math.min(la, lb);
  const slipFloor = 1 - TYPO_FLOOR_EDITS / Math.max(long, 5);
  if (
    s < slipFloor &&
    a[i + PK_FIRST] === b[j + PK_FIRST] &&
    short >= 4 &&
    long - short <= 1 &&
    (((ma | mb) & MASK_OTHER) !== 0 || ((ma ^ mb) & ~MASK_VOWELS) === 0)
  )
    s = slipFloor;
  if (prefixOk && long - short === 2 && short >= 3) {
    // the longer token starts with the shorter (same hash as its stem) and is no patronymic
    const stemOk =
      la > lb
        ? a[i + PK_STEM] === b[j + PK_HASH] && (a[i + PK_LEN]! & PK_PATRONYMIC) === 0
        : b[j + PK_STEM] === a[i + PK_HASH] && (b[j + PK_LEN]! & PK_PATRONYMIC) === 0;
    if (stemOk) s = Math.max(s, 1 - 1 / long);
  }
  return s;
}

const MASK_PFV = bitOf('p') | bitOf('f') | bitOf('v');
const MASK_QCG = bitOf('q') | bitOf('c') | bitOf('g');
const MASK_SKEL_DROPPED = MASK_VOWELS | bitOf('w') | bitOf('h') | MASK_PFV | MASK_QCG | bitOf('z');

/** The letterMask of a token's consonant skeleton (normalize.ts skeleton()) from the token's letterMask, less h:
 * vowels, y and w dropped, p/f/v → b, q/c/g → k, z → s, other characters kept; a final h is dropped from a
 * skeleton, so h is left out (it may be in the token and not in its skeleton). So the mask is the skeleton's own less
 * h: equal skeletons give equal masks, and a letter only one mask has is a letter only one skeleton has, so
 * maskLetterBound of two such masks never exceeds that of the skeletons' masks. The joined skeleton's is the union
 * of its tokens'. */
function skeletonMask(m: number): number {
  let out = m & ~MASK_SKEL_DROPPED;
  if ((m & MASK_PFV) !== 0) out |= bitOf('b');
  if ((m & MASK_QCG) !== 0) out |= bitOf('k');
  if ((m & bitOf('z')) !== 0) out |= bitOf('s');
  return out;
}

/** tokenBound in abjad mode: tokenSimilarity also takes 0.9 × editRatio of the two consonant skeletons (of
 * SKELETON_EQUAL when they are equal) when both are non-empty, bounded here from their lengths and letter sets (equal
 * skeletons have equal lengths and letters); numbers are scored before that rule, as in tokenSimilarity. */
function abjadTokenBound(a: Int32Array, i: number, b: Int32Array, j: number, prefixOk: boolean): number {
  const s = tokenBound(a, i, b, j, prefixOk);
  if (s >= 1 || ((a[i + PK_MASK]! | b[j + PK_MASK]!) & MASK_DIGIT) !== 0) return s;
  const la = (a[i + PK_LEN]! >>> PK_SK_SHIFT) & PK_SK_LONG;
  const lb = (b[j + PK_LEN]! >>> PK_SK_SHIFT) & PK_SK_LONG;
  if (la === 0 || lb === 0) return s;
  if (la === PK_SK_LONG || lb === PK_SK_LONG) return 1;
  const ma = skeletonMask(a[i + PK_MASK]!);
  const mb = skeletonMask(b[j + PK_MASK]!);
  let k = 0.9 * editRatioBound(la, lb, ma, mb, SCORE_PARAMS.minTokenSim);
  if (la === lb && ma === mb) k = Math.max(k, SKELETON_EQUAL[Math.min(la, 3)] ?? 0.95);
  return Math.max(k, s);
}

const boundQ = new Float64Array(MAX_T);
const boundC = new Float64Array(MAX_T);
/** tokenBound of each token pair, kept from the cheap pass for the exact one. */
const pairBound = new Float64Array(MAX_T * MAX_T);
/** Per token, the smallest and largest weight of a token of the other name it may align with. */
const partnerMinQ = new Float64Array(MAX_T);
const partnerMaxQ = new Float64Array(MAX_T);
const partnerMinC = new Float64Array(MAX_T);
const partnerMaxC = new Float64Array(MAX_T);
/** The candidate's token weights (packedWeight), for one alignBound call. */
const weightC = new Float64Array(MAX_T);
const sideOrder = new Int8Array(MAX_T);
const sideCurved = new Float64Array(MAX_T);

/**
 * An upper bound of nameSimilarity(q, c, org, p), so a screen can skip candidates that cannot reach its threshold.
 * It starts with a cheap pass that runs no edit distance and reads no string (q.packed and c.packed only); when
 * that bound is `exactFrom` or more, an exact pass scores the token pairs the cheap pass could not rule out with
 * tokenSimilarity itself and the joined strings with editRatio (what alignScore computes first), a tighter bound
 * for about the cost of that step. 1 (no bound) for what it does not cover: a possible acronym, an initial
 * (single-letter token), more than MAX_T tokens. Why it is admissible:
 * - each token pair is bounded by tokenBound (abjadTokenBound in abjad mode: the skeleton rule too) or is its
 *   tokenSimilarity; u_i / v_j = the best bound of a token
 *   against the other name's tokens, 0 below minTokenSim (alignScore never aligns such a pair);
 * - tokens substituted on both sides: align = Σ_aligned (w_i + w_j)·curve(s_ij) / (Σ_aligned (w_i + w_j) +
 *   substMult·(unaligned weights)) ≤ (Σ_i w_i·curve(u_i) + Σ_j w_j·curve(v_j)) / (W_q + W_c), as substMult ≥ 1
 *   and, without initials, an aligned pair weighs w_i + w_j;
 * - one side wholly aligned (then matched = its token count): align = core · (1 − min(extraCap, penalty)) where
 *   core is the mean of the aligned curve(s_i) weighted by w_i + w_partner; curve(s_i) ≤ curve(u_i) and the partner's
 *   weight lies between the smallest and the largest weight of the tokens i may align with, so core ≤ the largest
 *   such mean over weights in those intervals (wholeSideBound; at most max curve(u_i)); the penalty is at least
 *   what the other side's surplus tokens and those with no possible partner cost;
 * - the nasab swap and a legal-form conflict only lower the score, and so does the Han/Hangul character cap;
 *   l/r are half-cost letters under the same condition as in alignSimilarity;
 * - the joined/split alternative: curve(editRatioBound(joined)) · joinedDiscount (in abjad mode of the joined
 *   skeletons, times 0.95; exact pass: alignScore's own joinedScore), taken whenever it may apply.
 * test/matcher/score-bound.test.ts checks bound ≥ similarity on list-name pairs, with and without the exact pass.
 */
export function nameSimilarityBound(
  q: PreparedName,
  c: PreparedName,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
  exactFrom = Number.POSITIVE_INFINITY,
): number {
  const ub = cheapBound(q.packed, 0, c.packed, 0, org, p);
  return ub < exactFrom ? ub : exactBound(q, c, c.packed, 0, org, p);
}

/** nameSimilarityBound's cheap pass, from the two names' packed numbers alone (packName's layout at offsets `qo` of
 * `qp` and `co` of `cp`: a name's own `packed`, or a copy in a screen's arena, which keeps the names a screen
 * bounds close together in memory). */
export function cheapBound(
  qp: Int32Array,
  qo: number,
  cp: Int32Array,
  co: number,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
): number {
  const flags = qp[qo + HDR_FLAGS]! | cp[co + HDR_FLAGS]!;
  const out = notCovered(qp, qo, cp, co, flags, p);
  if (out >= 0) return out;
  lrAlike = (flags & F_CJK) !== 0;
  try {
    const ub = alignBound(undefined, qp, qo, undefined, cp, co, org, p, false, (flags & F_ABJAD) !== 0);
    // the token-pair bounds in pairBound are this pair's (exactBound reuses them)
    lastQp = qp;
    lastQo = qo;
    lastCp = cp;
    lastCo = co;
    return ub;
  } finally {
    lrAlike = false;
  }
}

/** nameSimilarityBound's exact pass (`cp`/`co`: c's packed numbers, as in cheapBound); it reuses the token-pair
 * bounds of a cheapBound call on the same pair just before it, else computes them again. */
export function exactBound(
  q: PreparedName,
  c: PreparedName,
  cp: Int32Array,
  co: number,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
): number {
  const qp = q.packed;
  const flags = qp[HDR_FLAGS]! | cp[co + HDR_FLAGS]!;
  const out = notCovered(qp, 0, cp, co, flags, p);
  if (out >= 0) return out;
  const abjadMode = (flags & F_ABJAD) !== 0;
  const reuse = lastQp === qp && lastQo === 0 && lastCp === cp && lastCo === co;
  lastQp = undefined;
  lastCp = undefined;
  lrAlike = (flags & F_CJK) !== 0;
  try {
    return alignBound(q, qp, 0, c, cp, co, org, p, true, abjadMode, reuse);
  } finally {
    lrAlike = false;
  }
}

let lastQp: Int32Array | undefined;
let lastQo = 0;
let lastCp: Int32Array | undefined;
let lastCo = 0;

/** The bound when the pair is one the bound does not cover (1) or has no tokens (0); −1 otherwise. */
function notCovered(
  qp: Int32Array,
  qo: number,
  cp: Int32Array,
  co: number,
  flags: number,
  p: ScoreParams,
): number {
  if (p.curve < 0 || p.substMult < 1) return 1;
  const nq = qp[qo + HDR_N]!;
  const nc = cp[co + HDR_N]!;
  if (nq === 0 || nc === 0) return 0;
  if (nq > MAX_T || nc > MAX_T) return 1;
  if ((flags & F_INITIAL) !== 0) return 1;
  if (
    mayCollapse(qp, qo, nq, cp[co + HDR_INITIALS]!, nc) ||
    mayCollapse(cp, co, nc, qp[qo + HDR_INITIALS]!, nq)
  )
    return 1;
  return -1;
}

/** A necessary condition of collapseAcronym(a, b): a token of `a` (packed at `ao`) that may be an acronym and whose
 * letters are all among b's initials. */
function mayCollapse(a: Int32Array, ao: number, na: number, bInitials: number, nb: number): boolean {
  if (nb < 2) return false;
  for (let i = 0; i < na; i++) {
    const w = a[ao + T0 + i * PK + PK_LEN]!;
    if (!acronymCandidate(w & PK_LEN_BITS, (w & PK_PARTICLE) !== 0, nb)) continue;
    if ((a[ao + T0 + i * PK + PK_MASK]! & ~bInitials) === 0) return true;
  }
  return false;
}

/** One pass of nameSimilarityBound: cheap (tokenBound, kept in pairBound; q and c unread) or exact (tokenSimilarity
 * of the pairs whose tokenBound, kept when `reuse`, reaches minTokenSim; of every pair in abjad mode, which only the
 * exact pass covers). */
function alignBound(
  q: PreparedName | undefined,
  qp: Int32Array,
  qo: number,
  c: PreparedName | undefined,
  cp: Int32Array,
  co: number,
  org: boolean,
  p: ScoreParams,
  exact: boolean,
  abjadMode: boolean,
  reuse = false,
): number {
  const nq = qp[qo + HDR_N]!;
  const nc = cp[co + HDR_N]!;
  const qb = qo + T0;
  const cb = co + T0;
  const prefixOk = nq >= 2 && nc >= 2;
  // the scratch arrays reset in loops: a few tokens each, where fill()'s call costs more than the stores
  for (let i = 0; i < nq; i++) {
    boundQ[i] = 0;
    partnerMinQ[i] = Number.POSITIVE_INFINITY;
    partnerMaxQ[i] = 0;
  }
  for (let j = 0; j < nc; j++) {
    boundC[j] = 0;
    partnerMinC[j] = Number.POSITIVE_INFINITY;
    partnerMaxC[j] = 0;
    weightC[j] = packedWeight(cp[cb + j * PK + PK_LEN]!);
  }
  for (let i = 0; i < nq; i++) {
    const wi = packedWeight(qp[qb + i * PK + PK_LEN]!);
    for (let j = 0; j < nc; j++) {
      let s: number;
      if (exact && reuse) s = pairBound[i * MAX_T + j]!;
      else {
        s = abjadMode
          ? abjadTokenBound(qp, qb + i * PK, cp, cb + j * PK, prefixOk)
          : tokenBound(qp, qb + i * PK, cp, cb + j * PK, prefixOk);
        pairBound[i * MAX_T + j] = s;
      }
      if (exact) {
        // the pair as alignScore scores it
        if (s >= p.minTokenSim) s = pairSimilarity(q!, i, c!.tokens[j]!, c!.skels[j]!, abjadMode, prefixOk);
        exactSims[i * MAX_T + j] = s;
      }
      if (s < p.minTokenSim) continue;
      const wj = weightC[j]!;
      if (s > boundQ[i]!) boundQ[i] = s;
      if (s > boundC[j]!) boundC[j] = s;
      if (wj < partnerMinQ[i]!) partnerMinQ[i] = wj;
      if (wj > partnerMaxQ[i]!) partnerMaxQ[i] = wj;
      if (wi < partnerMinC[j]!) partnerMinC[j] = wi;
      if (wi > partnerMaxC[j]!) partnerMaxC[j] = wi;
    }
  }
  let num = 0;
  let total = 0;
  for (let i = 0; i < nq; i++) {
    const w = packedWeight(qp[qb + i * PK + PK_LEN]!);
    total += w;
    if (boundQ[i]! > 0) num += w * curved(boundQ[i]!, p);
  }
  for (let j = 0; j < nc; j++) {
    const w = weightC[j]!;
    total += w;
    if (boundC[j]! > 0) num += w * curved(boundC[j]!, p);
  }
  let ub = num / total;
  const qSide = wholeSideBound(
    qp,
    qb,
    boundQ,
    partnerMinQ,
    partnerMaxQ,
    nq,
    cp,
    cb,
    boundC,
    nc,
    nq >= 2,
    org,
    false,
    p,
  );
  if (qSide > ub) ub = qSide;
  const cSide = wholeSideBound(
    cp,
    cb,
    boundC,
    partnerMinC,
    partnerMaxC,
    nc,
    qp,
    qb,
    boundQ,
    nq,
    nc >= 2,
    org,
    true,
    p,
  );
  if (cSide > ub) ub = cSide;
  if (exact) {
    exactSimsQ = q;
    exactSimsC = c;
    exactSimsLr = lrAlike;
    exactSimsMin = p.minTokenSim;
    if (nq !== nc || nq === 1 || abjadMode) ub = Math.max(ub, joinedScore(q!, c!, abjadMode, p));
  } else if (abjadMode) {
    // joinedScore's skeleton ratio, from the joined skeletons' lengths and letters
    let mq = 0;
    let mc = 0;
    for (let i = 0; i < nq; i++) mq |= qp[qb + i * PK + PK_MASK]!;
    for (let j = 0; j < nc; j++) mc |= cp[cb + j * PK + PK_MASK]!;
    const r =
      0.95 *
      editRatioBound(
        qp[qo + HDR_JSK_LEN]!,
        cp[co + HDR_JSK_LEN]!,
        skeletonMask(mq),
        skeletonMask(mc),
        p.joinedMin,
      );
    if (r >= p.joinedMin) ub = Math.max(ub, curved(r, p) * p.joinedDiscount);
  } else if (nq !== nc || nq === 1) {
    // the joined strings: their lengths and letters are the tokens'
    let lq = 0;
    let mq = 0;
    let lc = 0;
    let mc = 0;
    for (let i = 0; i < nq; i++) {
      lq += qp[qb + i * PK + PK_LEN]! & PK_LEN_BITS;
      mq |= qp[qb + i * PK + PK_MASK]!;
    }
    for (let j = 0; j < nc; j++) {
      lc += cp[cb + j * PK + PK_LEN]! & PK_LEN_BITS;
      mc |= cp[cb + j * PK + PK_MASK]!;
    }
    const r = editRatioBound(lq, lc, mq, mc, p.joinedMin);
    if (r >= p.joinedMin) ub = Math.max(ub, curved(r, p) * p.joinedDiscount);
  }
  return ub;
}

/** tokenWeight from a packed length word. */
function packedWeight(w: number): number {
  return weightOf(w & PK_LEN_BITS, (w & PK_PARTICLE) !== 0);
}

/** The bound of alignScore when every token of one side (`own`, n tokens, best token bounds `bound`, partner weights
 * within [partnerMin, partnerMax]) is aligned: the largest mean of the curved token bounds weighted by own weight +
 * a partner weight in its interval (the largest such mean gives the upper end to the best bounds and the lower end to
 * the others, so it is the best of the n + 1 splits of the bounds in decreasing order), times the smallest
 * extra-token factor, the other side (`other`, m tokens) having at least m − n unaligned tokens and every token with
 * no possible partner unaligned; 0 when some token of the side has no possible partner or the other side has fewer
 * tokens. */
function wholeSideBound(
  own: Int32Array,
  ownBase: number,
  bound: Float64Array,
  partnerMin: Float64Array,
  partnerMax: Float64Array,
  n: number,
  other: Int32Array,
  otherBase: number,
  otherBound: Float64Array,
  m: number,
  multi: boolean,
  org: boolean,
  otherIsQuery: boolean,
  p: ScoreParams,
): number {
  // one-to-one: n tokens cannot all align with fewer tokens
  if (n > m) return 0;
  for (let i = 0; i < n; i++) {
    if (bound[i] === 0) return 0;
    sideCurved[i] = curved(bound[i]!, p);
    // insertion sort of the token indexes by curved bound, largest first
    let k = i;
    while (k > 0 && sideCurved[sideOrder[k - 1]!]! < sideCurved[i]!) {
      sideOrder[k] = sideOrder[k - 1]!;
      k--;
    }
    sideOrder[k] = i;
  }
  // split 0: every token at the lower end of its interval; split k + 1 moves the k-th best to its upper end
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const lo = packedWeight(own[ownBase + i * PK + PK_LEN]!) + partnerMin[i]!;
    num += lo * sideCurved[i]!;
    den += lo;
  }
  let best = num / den;
  for (let k = 0; k < n; k++) {
    const i = sideOrder[k]!;
    const shift = partnerMax[i]! - partnerMin[i]!;
    num += shift * sideCurved[i]!;
    den += shift;
    const mean = num / den;
    if (mean > best) best = mean;
  }
  let sure = 0;
  let minCost = Number.POSITIVE_INFINITY;
  for (let j = 0; j < m; j++) {
    const w = other[otherBase + j * PK + PK_LEN]!;
    const cost = unmatchedCostOf((w & PK_PARTICLE) !== 0, (w & PK_GENERIC) !== 0, org);
    if (otherBound[j] === 0) sure += cost;
    if (cost < minCost) minCost = cost;
  }
  const extra = Math.max(sure, m > n ? (m - n) * minCost : 0);
  const rate = org
    ? p.orgExtra
    : otherIsQuery
      ? multi
        ? p.queryExtraMulti
        : p.queryExtraSingle
      : multi
        ? p.candExtraMulti
        : p.candExtraSingle;
  return best * (1 - Math.min(p.extraCap, extra * rate));
}

/** Arabic nasab: in "X bin Y" X is the person and Y the father. Uses the alignment of the last
 * alignSimilarity() call: true when the person of one name is aligned with the father of the other. */
function binSwapped(q: PreparedName, c: PreparedName): boolean {
  const qb = q.tokens.indexOf('bin');
  const cb = c.tokens.indexOf('bin');
  if (qb <= 0 || cb <= 0 || qb + 1 >= q.tokens.length || cb + 1 >= c.tokens.length) return false;
  if (qb >= MAX_T || cb >= MAX_T) return false;
  return matchOf[qb - 1] === cb + 1 || matchOf[qb + 1] === cb - 1;
}

/** Legal-form families: private limited companies, stock corporations, partnerships. "co" fits any. */
const FORM_FAMILY: Record<string, number> = {
  llc: 1,
  ltd: 1,
  gmbh: 1,
  bv: 1,
  kft: 1,
  bhd: 1,
  fze: 1,
  pt: 1,
  jsc: 2,
  ag: 2,
  sa: 2,
  plc: 2,
  inc: 2,
  corp: 2,
  as: 2,
  ab: 2,
  oy: 2,
  kk: 2,
  na: 2,
  llp: 3,
  kg: 3,
};

/** True when both names carry legal forms and none of one side's families appears on the other. */
export function formsConflict(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  return (familyMask(a) & familyMask(b)) === 0;
}

function familyMask(forms: readonly string[]): number {
  let m = 0;
  for (const f of forms) {
    const fam = FORM_FAMILY[f];
    m |= fam === undefined ? 7 : 1 << (fam - 1);
  }
  return m;
}
