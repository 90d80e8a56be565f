// An upper bound of nameSimilarity without edit distances (the cheap pass) or with the token pairs it cannot rule
// out scored exactly (the exact pass), so a screen skips the candidates that cannot reach its threshold.

import {
  INITIAL_PAIR_WEIGHT as ALIGN_INITIAL_PAIR_WEIGHT,
  INITIAL_SOFT as ALIGN_INITIAL_SOFT,
  MAX_T as ALIGN_MAX_T,
  acronymCandidate,
  collapseAcronym,
  curved,
  exactSims as EXACT_SIMS,
  joinedScore,
  keepExactSims,
  SPLIT_WORD_MIN,
  splitGluedParticle,
} from './alignment.js';
import { lrAlike, setLrAlike } from './edit-distance.js';
import { bitOf, noSplitWord, PACKED } from './packed-name.js';
import type { PreparedName } from './prepared-name.js';
import { unmatchedCostOf, weightOf } from './token-facts.js';
import {
  pairSimilarity,
  SKELETON_EQUAL,
  INITIAL_SIM as TOKEN_INITIAL_SIM,
  TYPO_FLOOR_EDITS,
} from './token-similarity.js';
import { ACRONYM_DISCOUNT as ACRONYM, SCORE_PARAMS as PARAMS, type ScoreParams } from './weights.js';

// packed-name.ts's layout, the token limit and the tables this module reads as its own constants (PACKED says why)
const {
  PK,
  PK_MASK,
  PK_HASH,
  PK_LEN,
  PK_FIRST,
  PK_STEM,
  PK_SK_SHIFT,
  PK_SK_LONG,
  PK_PARTICLE,
  PK_GENERIC,
  PK_PATRONYMIC,
  PK_LEN_BITS,
  MASK_DIGIT,
  MASK_OTHER,
  MASK_VOWELS,
  MASK_HALF_LR,
  HDR_N,
  HDR_FLAGS,
  HDR_INITIALS,
  HDR_JSK_LEN,
  HDR_RAW,
  HDR_RAW_SWAPPED,
  HDR_RAW_LEN,
  HDR_RAW_FIRST,
  T0,
  F_ABJAD,
  F_CJK,
  F_INITIAL,
  F_GLUED,
  F_GLUE_HEAD,
} = PACKED;
const MAX_T = ALIGN_MAX_T;
const exactSims = EXACT_SIMS;
const SCORE_PARAMS = PARAMS;
const SLIP_EDITS = TYPO_FLOOR_EDITS;
const SKELETON_SIM = SKELETON_EQUAL;
const INITIAL_SIM = TOKEN_INITIAL_SIM;
const ACRONYM_DISCOUNT = ACRONYM;
const INITIAL_PAIR = ALIGN_INITIAL_PAIR_WEIGHT;
const INITIAL_HALF = ALIGN_INITIAL_PAIR_WEIGHT / 2;
const INITIAL_SOFT = ALIGN_INITIAL_SOFT;

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

/** An upper bound of tokenSimilarity(a, b, …) for two tokens in a pair without abjad mode, rule by rule: equal hashes
 * may be equal tokens (1); numbers exactly; an initial exactly; editRatioBound for editRatio; the typing-slip
 * floor when the first letter, lengths and consonant letters allow a slip; the ending rule when the longer token's
 * stem hashes like the shorter token. */
function tokenBound(
  a: Int32Array,
  i: number,
  b: Int32Array,
  j: number,
  prefixOk: boolean,
  org: boolean,
): number {
  const ma = a[i + PK_MASK]!;
  const mb = b[j + PK_MASK]!;
  const la = a[i + PK_LEN]! & PK_LEN_BITS;
  const lb = b[j + PK_LEN]! & PK_LEN_BITS;
  if (la === lb && a[i + PK_HASH] === b[j + PK_HASH]) return 1;
  if (((ma | mb) & MASK_DIGIT) !== 0)
    return ma === MASK_DIGIT && mb === MASK_DIGIT ? SCORE_PARAMS.numberSim : 0;
  // an initial: the same first character or nothing (in abjad mode too: tokenSimilarity reads no skeleton then)
  if (la === 1 || lb === 1) return a[i + PK_FIRST] === b[j + PK_FIRST] ? INITIAL_SIM : 0;
  let s = editRatioBound(la, lb, ma, mb, SCORE_PARAMS.minTokenSim);
  const long = Math.max(la, lb);
  const short = Math.min(la, lb);
  const slipFloor = 1 - SLIP_EDITS / Math.max(long, 5);
  if (
    s < slipFloor &&
    a[i + PK_FIRST] === b[j + PK_FIRST] &&
    short >= 4 &&
    long - short <= 1 &&
    ((org && long >= 5) || ((ma | mb) & MASK_OTHER) !== 0 || ((ma ^ mb) & ~MASK_VOWELS) === 0)
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
 * SKELETON_SIM when they are equal) when both are non-empty, bounded here from their lengths and letter sets (equal
 * skeletons have equal lengths and letters); numbers are scored before that rule, as in tokenSimilarity. */
function abjadTokenBound(
  a: Int32Array,
  i: number,
  b: Int32Array,
  j: number,
  prefixOk: boolean,
  org: boolean,
): number {
  const s = tokenBound(a, i, b, j, prefixOk, org);
  if (s >= 1 || ((a[i + PK_MASK]! | b[j + PK_MASK]!) & MASK_DIGIT) !== 0) return s;
  if ((a[i + PK_LEN]! & PK_LEN_BITS) === 1 || (b[j + PK_LEN]! & PK_LEN_BITS) === 1) return s;
  const la = (a[i + PK_LEN]! >>> PK_SK_SHIFT) & PK_SK_LONG;
  const lb = (b[j + PK_LEN]! >>> PK_SK_SHIFT) & PK_SK_LONG;
  if (la === 0 || lb === 0) return s;
  if (la === PK_SK_LONG || lb === PK_SK_LONG) return 1;
  const ma = skeletonMask(a[i + PK_MASK]!);
  const mb = skeletonMask(b[j + PK_MASK]!);
  let k = 0.9 * editRatioBound(la, lb, ma, mb, SCORE_PARAMS.minTokenSim);
  if (la === lb && ma === mb) k = Math.max(k, SKELETON_SIM[Math.min(la, 3)] ?? 0.95);
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
/** Per token, whether it may align in a pair with an initial (either token a single character), for one alignBound
 * call on names with an initial. */
const initPairQ = new Uint8Array(MAX_T);
const initPairC = new Uint8Array(MAX_T);
const sideOrder = new Int8Array(MAX_T);
const sideCurved = new Float64Array(MAX_T);

/**
 * An upper bound of nameSimilarity(q, c, org, p), so a screen can skip candidates that cannot reach its threshold.
 * It starts with a cheap pass that runs no edit distance and reads no string (q.packed and c.packed only); when
 * that bound is `exactFrom` or more, an exact pass scores the token pairs the cheap pass could not rule out with
 * tokenSimilarity itself and the joined strings with editRatio (what alignScore computes first), a tighter bound
 * for about the cost of that step. 1 (no bound) for what it does not cover: more than MAX_T tokens, and a possible
 * acronym or glued particle when only the packed numbers are given (notCovered). Why it is admissible:
 * - each token pair is bounded by tokenBound (abjadTokenBound in abjad mode: the skeleton rule too) or is its
 *   tokenSimilarity; u_i / v_j = the best bound of a token
 *   against the other name's tokens, 0 below minTokenSim (alignScore never aligns such a pair);
 * - tokens substituted on both sides: align = Σ_aligned (w_i + w_j)·curve(s_ij) / (Σ_aligned (w_i + w_j) +
 *   substMult·(unaligned weights)) ≤ (Σ_i w_i·curve(u_i) + Σ_j w_j·curve(v_j)) / (W_q + W_c), as substMult ≥ 1
 *   (personSubstMult for persons, ≥ 1 too)
 *   and an aligned pair without an initial weighs w_i + w_j (a token that may align with an initial counts with
 *   substitutedTerms' shares instead);
 * - one side wholly aligned (then matched = its token count): align = core · (1 − min(extraCap, penalty)) where
 *   core is the mean of the aligned curve(s_i) weighted by w_i + w_partner; curve(s_i) ≤ curve(u_i) and the partner's
 *   weight lies between the smallest and the largest weight of the tokens i may align with (a pair with an initial
 *   weighs INITIAL_PAIR: its partner weight is what brings w_i to that), so core ≤ the largest
 *   such mean over weights in those intervals (wholeSideBound; at most max curve(u_i)); the penalty is at least
 *   what the other side's surplus tokens and those with no possible partner cost;
 * - the nasab swap and a legal-form conflict only lower the score, and so does the Han/Hangul character cap;
 *   l/r are half-cost letters under the same condition as in alignSimilarity;
 * - the joined/split alternative: curve(editRatioBound(joined)) · joinedDiscount (in abjad mode of the joined
 *   skeletons, times 0.95; exact pass: alignScore's own joinedScore), taken whenever it may apply;
 * - a word written in two (joinSplitWord): at most the joined discount, taken when two adjacent tokens' lengths and
 *   letters allow their join to be a token of the other name (splitWordBound);
 * - nameSimilarity's acronym and glued-particle alternatives: their discount times the cheap or exact bound of
 *   alignScore on the collapsed or split pair (alternativesBound), and rawSimilarity: rawBound.
 * test/matcher/score-bound.test.ts checks bound ≥ similarity on list-name pairs, with and without the exact pass.
 */
export function nameSimilarityBound(
  q: PreparedName,
  c: PreparedName,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
  exactFrom = Number.POSITIVE_INFINITY,
): number {
  const ub = cheapBound(q.packed, 0, c.packed, 0, org, p, q, c);
  return ub < exactFrom ? ub : exactBound(q, c, c.packed, 0, org, p);
}

/** nameSimilarityBound's cheap pass, from the two names' packed numbers alone (packName's layout at offsets `qo` of
 * `qp` and `co` of `cp`: a name's own `packed`, or a copy in a screen's arena, which keeps the names a screen
 * bounds close together in memory). With `alternativesToo` false it leaves out nameSimilarity's acronym and
 * glued-particle alternatives (alternativesBound) where they may apply, and says so (alternativesLeftOut): the value
 * is then no bound, only a floor of the bound, which is the larger of it and alternativesPartBound's. */
export function cheapBound(
  qp: Int32Array,
  qo: number,
  cp: Int32Array,
  co: number,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
  q?: PreparedName,
  c?: PreparedName,
  alternativesToo = true,
): number {
  const flags = qp[qo + HDR_FLAGS]! | cp[co + HDR_FLAGS]!;
  leftOut = false;
  const out = notCovered(qp, qo, cp, co, p, q !== undefined && c !== undefined);
  if (out >= 0) return out;
  leftOut = !alternativesToo && alternatives !== 0;
  // the alternatives first: their alignBound calls use the scratch arrays this pair's leaves for exactBound
  const alt = alternatives === 0 || leftOut ? 0 : alternativesBound(q!, c!, org, p, alternatives, false);
  if (alt >= 1) return 1;
  setLrAlike((flags & F_CJK) !== 0);
  try {
    const ub = Math.max(
      alignBound(undefined, qp, qo, undefined, cp, co, org, p, false, (flags & F_ABJAD) !== 0),
      rawBound(qp, qo, cp, co, p),
      splitWordBound(qp, qo, cp, co, flags, p),
      alt,
    );
    // the token-pair bounds in pairBound are this pair's (exactBound reuses them)
    lastQp = qp;
    lastQo = qo;
    lastCp = cp;
    lastCo = co;
    return ub;
  } finally {
    setLrAlike(false);
  }
}

/** Whether the last cheapBound or exactBound call left the alternatives out (its `alternativesToo` false and some
 * may apply). */
let leftOut = false;
export function alternativesLeftOut(): boolean {
  return leftOut;
}

/** The alternatives' part of cheapBound (`exact` false) or exactBound (`exact` true) for q and c, 0 when none may
 * apply: the pass with them is 1 when this is 1 or more, else the larger of this and the pass without them (the
 * pass called with `alternativesToo` false). Their alignBound calls overwrite the token-pair bounds exactBound could
 * reuse, and in the exact pass the token similarities alignScore could (it then computes them again, from
 * pairSimilarity's memo). */
export function alternativesPartBound(
  q: PreparedName,
  c: PreparedName,
  org: boolean,
  exact: boolean,
  p: ScoreParams = SCORE_PARAMS,
): number {
  if (notCovered(q.packed, 0, c.packed, 0, p, true) >= 0 || alternatives === 0) return 0;
  lastQp = undefined;
  lastCp = undefined;
  return alternativesBound(q, c, org, p, alternatives, exact);
}

/** nameSimilarityBound's exact pass (`cp`/`co`: c's packed numbers, as in cheapBound); it reuses the token-pair
 * bounds of a cheapBound call on the same pair just before it, else computes them again. With `alternativesToo`
 * false it leaves out the acronym and glued-particle alternatives, as cheapBound does (alternativesLeftOut says
 * whether any may apply): the full exact bound is then the larger of this and alternativesPartBound's (1 when that
 * is 1). */
export function exactBound(
  q: PreparedName,
  c: PreparedName,
  cp: Int32Array,
  co: number,
  org: boolean,
  p: ScoreParams = SCORE_PARAMS,
  alternativesToo = true,
): number {
  const qp = q.packed;
  const flags = qp[HDR_FLAGS]! | cp[co + HDR_FLAGS]!;
  leftOut = false;
  const out = notCovered(qp, 0, cp, co, p, true);
  if (out >= 0) return out;
  const abjadMode = (flags & F_ABJAD) !== 0;
  leftOut = !alternativesToo && alternatives !== 0;
  // the alternatives' exact passes first (this pair's, last, leaves its token similarities for alignScore); they
  // overwrite the cheap pass's token-pair bounds, which this pair's pass then computes again
  const alt = alternatives === 0 || leftOut ? 0 : alternativesBound(q, c, org, p, alternatives, true);
  const reuse =
    (alternatives === 0 || leftOut) && lastQp === qp && lastQo === 0 && lastCp === cp && lastCo === co;
  lastQp = undefined;
  lastCp = undefined;
  if (alt >= 1) return 1;
  setLrAlike((flags & F_CJK) !== 0);
  try {
    return Math.max(
      alignBound(q, qp, 0, c, cp, co, org, p, true, abjadMode, reuse),
      rawBound(qp, 0, cp, co, p),
      splitWordBound(qp, 0, cp, co, flags, p),
      alt,
    );
  } finally {
    setLrAlike(false);
  }
}

/** An upper bound of rawSimilarity (alignment.ts) from the packed headers: equal letter hashes and lengths may be
 * equal letters (the joined discount), and so may names of as many tokens (2+) whose letters as written start alike
 * and differ in length by at most one (one edit apart), with their legal forms or without them (rawCore); two
 * one-token names of 4+-letter tokens whose letters so start alike and differ in length by at most one may be one
 * slip apart (the slip floor of the longer folded token). */
function rawBound(qp: Int32Array, qo: number, cp: Int32Array, co: number, p: ScoreParams): number {
  const lq = qp[qo + HDR_RAW_LEN]!;
  const lc = cp[co + HDR_RAW_LEN]!;
  if (lq === 0 || lc === 0) return 0;
  const h = qp[qo + HDR_RAW]!;
  if (lq === lc && (h === cp[co + HDR_RAW] || h === cp[co + HDR_RAW_SWAPPED])) return p.joinedDiscount;
  // a slip as written (slipAsWritten), in the letters with the legal forms or without them
  const fq = qp[qo + HDR_RAW_FIRST]!;
  const fc = cp[co + HDR_RAW_FIRST]!;
  const near =
    ((fq & 0xff) === (fc & 0xff) && Math.abs(lq - lc) <= 1) ||
    (((fq ^ fc) & 0xff00) === 0 && Math.abs((fq >>> 16) - (fc >>> 16)) <= 1);
  if (!near) return 0;
  // names of as many tokens one edit apart as written (oneEditAsWritten): at most the joined discount
  const n = qp[qo + HDR_N]!;
  if (n >= 2 && n === cp[co + HDR_N]) return p.joinedDiscount;
  if (n !== 1 || cp[co + HDR_N] !== 1) return 0;
  const tq = qp[qo + T0 + PK_LEN]! & PK_LEN_BITS;
  const tc = cp[co + T0 + PK_LEN]! & PK_LEN_BITS;
  return Math.min(tq, tc) < 4 ? 0 : 1 - SLIP_EDITS / Math.max(tq, tc, 5);
}

/** An upper bound of the split-word alternative (joinSplitWord in alignment.ts: the joined discount times a
 * similarity): the joined discount when two adjacent tokens of either name, written together, may be a token of
 * the other (their lengths and letters allow editRatio ≥ SPLIT_WORD_MIN), else 0. */
function splitWordBound(
  qp: Int32Array,
  qo: number,
  cp: Int32Array,
  co: number,
  flags: number,
  p: ScoreParams,
): number {
  if ((flags & (F_ABJAD | F_CJK)) !== 0) return 0;
  return (!noSplitWord(qp, qo, cp, co, SPLIT_MIN) && mayJoinSplit(qp, qo, cp, co)) ||
    (!noSplitWord(cp, co, qp, qo, SPLIT_MIN) && mayJoinSplit(cp, co, qp, qo))
    ? p.joinedDiscount
    : 0;
}

const SPLIT_MIN = SPLIT_WORD_MIN;

/** Whether two adjacent tokens of `a` (2+ letters each) written together may be a token of `b` (splitWordBound). */
function mayJoinSplit(a: Int32Array, ao: number, b: Int32Array, bo: number): boolean {
  const na = a[ao + HDR_N]!;
  const nb = b[bo + HDR_N]!;
  if (na < 2) return false;
  // the shortest and longest token of b first: most adjacent pairs are far longer than any token of the other name,
  // and editRatio ≥ SPLIT_MIN needs the shorter length ≥ SPLIT_MIN × the longer
  let minB: number = PK_LEN_BITS;
  let maxB = 0;
  for (let j = 0; j < nb; j++) {
    const l = b[bo + T0 + j * PK + PK_LEN]! & PK_LEN_BITS;
    if (l < minB) minB = l;
    if (l > maxB) maxB = l;
  }
  for (let i = 0; i + 1 < na; i++) {
    const x = ao + T0 + i * PK;
    const lx = a[x + PK_LEN]! & PK_LEN_BITS;
    const ly = a[x + PK + PK_LEN]! & PK_LEN_BITS;
    if (lx < 2 || ly < 2 || SPLIT_MIN * (lx + ly) > maxB || lx + ly < SPLIT_MIN * minB) continue;
    const mxy = a[x + PK_MASK]! | a[x + PK + PK_MASK]!;
    const first = a[x + PK_FIRST]!;
    for (let j = 0; j < nb; j++) {
      const y = bo + T0 + j * PK;
      if (b[y + PK_FIRST] !== first) continue;
      const r = editRatioBound(lx + ly, b[y + PK_LEN]! & PK_LEN_BITS, mxy, b[y + PK_MASK]!, SPLIT_MIN);
      if (r >= SPLIT_MIN) return true;
    }
  }
  return false;
}

let lastQp: Int32Array | undefined;
let lastQo = 0;
let lastCp: Int32Array | undefined;
let lastCo = 0;

/** Which of nameSimilarity's alternatives may apply to the pair of notCovered's last call (ALT_* bits). */
let alternatives = 0;
const ALT_ACRONYM_Q = 1;
const ALT_ACRONYM_C = 2;
const ALT_GLUE_Q = 4;
const ALT_GLUE_C = 8;

/** The bound when the pair is one the bound does not cover (1) or has no tokens (0); −1 otherwise, with
 * `alternatives` set to the acronym and glued-particle alternatives that may apply (mayCollapse, mayGlue: necessary
 * conditions). Those are covered (alternativesBound) when the caller has the two prepared names (`named`), else not. */
function notCovered(
  qp: Int32Array,
  qo: number,
  cp: Int32Array,
  co: number,
  p: ScoreParams,
  named: boolean,
): number {
  alternatives = 0;
  if (p.curve < 0 || p.substMult < 1 || p.personSubstMult < 1) return 1;
  const nq = qp[qo + HDR_N]!;
  const nc = cp[co + HDR_N]!;
  if (nq === 0 || nc === 0) return 0;
  if (nq > MAX_T || nc > MAX_T) return 1;
  const alts =
    (mayCollapse(qp, qo, nq, cp[co + HDR_INITIALS]!, nc) ? ALT_ACRONYM_Q : 0) |
    (mayCollapse(cp, co, nc, qp[qo + HDR_INITIALS]!, nq) ? ALT_ACRONYM_C : 0) |
    (mayGlue(qp, qo, cp, co, nc) ? ALT_GLUE_Q : 0) |
    (mayGlue(cp, co, qp, qo, nq) ? ALT_GLUE_C : 0);
  if (alts !== 0 && !named) return 1;
  alternatives = alts;
  return -1;
}

/** The bound of nameSimilarity's acronym and glued-particle alternatives among `alts` (ALT_* bits): each is a
 * discount times alignScore of a collapsed or split pair (collapseAcronym, splitGluedParticle, called as
 * nameSimilarity calls them, the query's splits memoised on it), bounded by alignBound's cheap or exact pass on that
 * pair; 0 when none applies, 1 when a name of one has more than MAX_T tokens. */
function alternativesBound(
  q: PreparedName,
  c: PreparedName,
  org: boolean,
  p: ScoreParams,
  alts: number,
  exact: boolean,
): number {
  let ub = 0;
  if ((alts & ALT_ACRONYM_Q) !== 0) {
    const qa = collapseAcronym(q, c);
    if (qa) ub = Math.max(ub, ACRONYM_DISCOUNT * alignOnlyBound(q, qa, org, p, exact));
  }
  if ((alts & ALT_ACRONYM_C) !== 0) {
    const ca = collapseAcronym(c, q);
    if (ca) ub = Math.max(ub, ACRONYM_DISCOUNT * alignOnlyBound(ca, c, org, p, exact));
  }
  if ((alts & ALT_GLUE_Q) !== 0) {
    const qg = splitGluedParticle(q, c, true);
    if (qg) ub = Math.max(ub, p.joinedDiscount * alignOnlyBound(qg, c, org, p, exact));
  }
  if ((alts & ALT_GLUE_C) !== 0) {
    const cg = splitGluedParticle(c, q);
    if (cg) ub = Math.max(ub, p.joinedDiscount * alignOnlyBound(q, cg, org, p, exact));
  }
  return ub;
}

/** alignBound (its cheap or its exact pass) for alignSimilarity(x, y) (alignScore under the pair's own l/r mode); 1
 * for names over MAX_T tokens, 0 for a name without tokens (alignScore's 0). The l/r mode is restored after it. */
function alignOnlyBound(
  x: PreparedName,
  y: PreparedName,
  org: boolean,
  p: ScoreParams,
  exact: boolean,
): number {
  const xp = x.packed;
  const yp = y.packed;
  const nx = xp[HDR_N]!;
  const ny = yp[HDR_N]!;
  if (nx > MAX_T || ny > MAX_T) return 1;
  if (nx === 0 || ny === 0) return 0;
  const flags = xp[HDR_FLAGS]! | yp[HDR_FLAGS]!;
  const lr = lrAlike;
  setLrAlike((flags & F_CJK) !== 0);
  try {
    return exact
      ? alignBound(x, xp, 0, y, yp, 0, org, p, true, (flags & F_ABJAD) !== 0)
      : alignBound(undefined, xp, 0, undefined, yp, 0, org, p, false, (flags & F_ABJAD) !== 0);
  } finally {
    setLrAlike(lr);
  }
}

/** A necessary condition of splitGluedParticle(a, b): a glue-head token of `b` besides another token, and a token of
 * `a` that starts with a glued particle (the rest may be any spelling of the other token, so its letters are not
 * read), from the names' header flags (every token's PK_GLUE_HEAD and PK_GLUED). */
function mayGlue(a: Int32Array, ao: number, b: Int32Array, bo: number, nb: number): boolean {
  return nb >= 2 && (b[bo + HDR_FLAGS]! & F_GLUE_HEAD) !== 0 && (a[ao + HDR_FLAGS]! & F_GLUED) !== 0;
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
  const initials = ((qp[qo + HDR_FLAGS]! | cp[co + HDR_FLAGS]!) & F_INITIAL) !== 0;
  // the scratch arrays reset in loops: a few tokens each, where fill()'s call costs more than the stores
  for (let i = 0; i < nq; i++) {
    boundQ[i] = 0;
    partnerMinQ[i] = Number.POSITIVE_INFINITY;
    partnerMaxQ[i] = 0;
    initPairQ[i] = 0;
  }
  for (let j = 0; j < nc; j++) {
    boundC[j] = 0;
    partnerMinC[j] = Number.POSITIVE_INFINITY;
    partnerMaxC[j] = 0;
    weightC[j] = packedWeight(cp[cb + j * PK + PK_LEN]!);
    initPairC[j] = 0;
  }
  for (let i = 0; i < nq; i++) {
    const wi = packedWeight(qp[qb + i * PK + PK_LEN]!);
    const initialI = initials && (qp[qb + i * PK + PK_LEN]! & PK_LEN_BITS) === 1;
    for (let j = 0; j < nc; j++) {
      let s: number;
      if (exact && reuse) s = pairBound[i * MAX_T + j]!;
      else {
        s = abjadMode
          ? abjadTokenBound(qp, qb + i * PK, cp, cb + j * PK, prefixOk, org)
          : tokenBound(qp, qb + i * PK, cp, cb + j * PK, prefixOk, org);
        pairBound[i * MAX_T + j] = s;
      }
      if (exact) {
        // the pair as alignScore scores it
        if (s >= p.minTokenSim)
          s = pairSimilarity(q!, i, c!.tokens[j]!, c!.skels[j]!, abjadMode, prefixOk, org);
        exactSims[i * MAX_T + j] = s;
      }
      if (s < p.minTokenSim) continue;
      let wj = weightC[j]!;
      let wiPartner = wi;
      if (initialI || (initials && (cp[cb + j * PK + PK_LEN]! & PK_LEN_BITS) === 1)) {
        // a pair with an initial weighs INITIAL_PAIR whatever the tokens' own weights: as partner weights, what
        // brings each token's own weight to it
        initPairQ[i] = 1;
        initPairC[j] = 1;
        wj = INITIAL_PAIR - wi;
        wiPartner = INITIAL_PAIR - weightC[j]!;
      }
      if (s > boundQ[i]!) boundQ[i] = s;
      if (s > boundC[j]!) boundC[j] = s;
      if (wj < partnerMinQ[i]!) partnerMinQ[i] = wj;
      if (wj > partnerMaxQ[i]!) partnerMaxQ[i] = wj;
      if (wiPartner < partnerMinC[j]!) partnerMinC[j] = wiPartner;
      if (wiPartner > partnerMaxC[j]!) partnerMaxC[j] = wiPartner;
    }
  }
  let num = 0;
  let total = 0;
  for (let i = 0; i < nq; i++) {
    const w = packedWeight(qp[qb + i * PK + PK_LEN]!);
    if (initPairQ[i] === 1) {
      const t = substitutedTerms(w, (qp[qb + i * PK + PK_LEN]! & PK_LEN_BITS) === 1);
      total += termDen;
      num += t * curved(boundQ[i]!, p);
      continue;
    }
    total += w;
    if (boundQ[i]! > 0) num += w * curved(boundQ[i]!, p);
  }
  for (let j = 0; j < nc; j++) {
    const w = weightC[j]!;
    if (initPairC[j] === 1) {
      const t = substitutedTerms(w, (cp[cb + j * PK + PK_LEN]! & PK_LEN_BITS) === 1);
      total += termDen;
      num += t * curved(boundC[j]!, p);
      continue;
    }
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
  if (exact) keepExactSims(q!, c!, lrAlike, org, p.minTokenSim);
  return Math.max(ub, joinedAltBound(q, qp, qo, nq, c, cp, co, nc, p, exact, abjadMode));
}

/** alignBound's bound of the joined/split alternative (`nq`, `nc`: the names' token counts): alignScore's own
 * joinedScore in the exact pass, else from the joined strings' lengths and letters (in abjad mode the joined
 * skeletons'); 0 where it does not apply. */
function joinedAltBound(
  q: PreparedName | undefined,
  qp: Int32Array,
  qo: number,
  nq: number,
  c: PreparedName | undefined,
  cp: Int32Array,
  co: number,
  nc: number,
  p: ScoreParams,
  exact: boolean,
  abjadMode: boolean,
): number {
  const qb = qo + T0;
  const cb = co + T0;
  if (exact) return nq !== nc || nq === 1 || abjadMode ? joinedScore(q!, c!, abjadMode, p) : 0;
  if (abjadMode) {
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
    return r >= p.joinedMin ? curved(r, p) * p.joinedDiscount : 0;
  }
  if (nq !== nc || nq === 1) {
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
    return r >= p.joinedMin ? curved(r, p) * p.joinedDiscount : 0;
  }
  return 0;
}

/** The denominator share of substitutedTerms' last call. */
let termDen = 0;

/** A token's terms in the substituted-tokens bound when it may align in a pair with an initial (a pair weighs
 * INITIAL_PAIR there, and a full token in it leaves INITIAL_SOFT of its weight unmatched): returns the weight its
 * curved best bound counts with in the numerator, and sets termDen to its share of the denominator. Each such pair
 * (denominator INITIAL_PAIR, plus INITIAL_SOFT × the full token's weight; numerator at most INITIAL_PAIR × either
 * token's curved bound) gives an initial INITIAL_PAIR / 2 of both, a full token INITIAL_PAIR / 2 + INITIAL_SOFT × its
 * weight of the denominator and the larger of its weight and INITIAL_PAIR / 2 of the numerator; a pair of full
 * tokens, or the token left unaligned, gives it its own weight in both or more; so the numerator is at most, and the
 * denominator at least, the sums of these shares, for any alignment. */
function substitutedTerms(w: number, initial: boolean): number {
  if (initial) {
    termDen = Math.min(INITIAL_HALF, w);
    return INITIAL_HALF;
  }
  termDen = Math.min(w, INITIAL_HALF + INITIAL_SOFT * w);
  return Math.max(w, INITIAL_HALF);
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
