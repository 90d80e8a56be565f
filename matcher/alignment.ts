// Name similarity: greedy one-to-one alignment of folded tokens (token-similarity.ts), costs for tokens left over,
// the joined/split alternative, acronyms, the nasab order, legal-form families and the Han/Hangul character cap.

import { editRatio, lrAlike, setLrAlike } from './edit-distance.js';
import { canonicalWord, foldToken, type NormalizedName } from './normalize.js';
import { noSplitWord, PACKED } from './packed-name.js';
import { type PreparedName, prepareNormalized } from './prepared-name.js';
import {
  GENERIC,
  GLUE_HEAD_TOKENS,
  GLUE_HEADS,
  PARTICLES,
  PATRONYMIC_END,
  unmatchedCostOf,
  weightOf,
} from './token-facts.js';
import { companyTypo, pairSimilarity, TYPO_FLOOR_EDITS, typingSlip } from './token-similarity.js';
import {
  ACRONYM_DISCOUNT,
  BIN_SWAP,
  FORM_CONFLICT,
  GIVEN_SHIFTED,
  SCORE_PARAMS,
  type ScoreParams,
} from './weights.js';

/** Tokens per name that alignment reads (and the bound covers). */
export const MAX_T = 16;
/** The weight of an aligned pair with an initial (a single-character token) on either side, and the share of the
 * full token's own weight that such a pair leaves unmatched (name-bound.ts bounds with both). */
export const INITIAL_PAIR_WEIGHT = 1.6;
export const INITIAL_SOFT = 0.5;
const simMatrix = new Float64Array(MAX_T * MAX_T);
/** The token similarities of the last exactBound pass, for the pair (exactSimsQ, exactSimsC) with lrAlike as
 * exactSimsLr: tokenSimilarity of every pair, or, for a pair whose bound was below exactSimsMin (the minTokenSim of
 * that pass), that bound (alignScore never aligns a pair below its minTokenSim, so only the order to it matters). */
export const exactSims = new Float64Array(MAX_T * MAX_T);
let exactSimsQ: PreparedName | undefined;
let exactSimsC: PreparedName | undefined;
let exactSimsLr = false;
let exactSimsOrg = false;
let exactSimsMin = 0;

/** Records that exactSims now holds the exact pass's token similarities of (q, c) under that l/r mode, org flag and
 * minTokenSim (name-bound.ts), for alignScore to reuse. */
export function keepExactSims(
  q: PreparedName,
  c: PreparedName,
  lr: boolean,
  org: boolean,
  minTokenSim: number,
): void {
  exactSimsQ = q;
  exactSimsC = c;
  exactSimsLr = lr;
  exactSimsOrg = org;
  exactSimsMin = minTokenSim;
}
const usedQ = new Uint8Array(MAX_T);
const usedC = new Uint8Array(MAX_T);

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
    // a particle written together with the next word on one side (BINmansor ↔ BIN MANSOR, DEgeetere ↔ DE GEETERE),
    // wherever the two stand in the names
    const qg = splitGluedParticle(q, c, true);
    if (qg) s = Math.max(s, p.joinedDiscount * alignSimilarity(qg, c, org, p));
    const cg = splitGluedParticle(c, q);
    if (cg) s = Math.max(s, p.joinedDiscount * alignSimilarity(q, cg, org, p));
    // a word written in two (Patr ushev, MOHAMMAD HASNI for MOHAMMADHASNI) on either side
    const qw = joinSplitWord(q, c);
    if (qw) s = Math.max(s, p.joinedDiscount * alignSimilarity(qw, c, org, p));
    const cw = joinSplitWord(c, q);
    if (cw) s = Math.max(s, p.joinedDiscount * alignSimilarity(q, cw, org, p));
    const r = rawSimilarity(q, c, org, p);
    if (r > s) s = r;
  }
  // both written in Han or Hangul: a character is a whole syllable, and two spellings that romanise alike
  // (高石/高市, 종/정) are different names; the character-level similarity caps the score
  if (q.cjk.length >= 2 && c.cjk.length >= 2 && q.cjk !== c.cjk) s = Math.min(s, editRatio(q.cjk, c.cjk));
  return s;
}

/** The names compared by their letters as written (PreparedName.raw), which folding can move apart: the same
 * letters spaced or punctuated otherwise (`ZANGANEHTOURAJ` and `ZANGANEH, Touraj`, `JOINT STOCK COMPANYPLASMA`, `GREEN
 * ISLANDS.A.`) score like the joined alternative; two one-word names one typing slip apart as written (`SYMHPONY`,
 * `TROONTO`, `THHANE`; for a company any one edit) score the slip floor of their folded words, which folding had
 * moved apart (`symhponi`/`simfoni`, `truntu`/`torontu`). 0 when it does not apply. */
export function rawSimilarity(q: PreparedName, c: PreparedName, org: boolean, p: ScoreParams): number {
  const a = q.raw;
  const b = c.raw;
  if (a.length === 0 || b.length === 0 || q.tokens.length === 0 || c.tokens.length === 0) return 0;
  if (a === b || a === c.rawSwapped) return p.joinedDiscount;
  const s = slipAsWritten(q, c, a, b, org, p);
  if (s > 0 || (q.rawCore.length === 0 && c.rawCore.length === 0)) return s;
  // the same without the legal forms at the names' edges (LTD LIABILITY COMPANY YOOUONEY / LIMITED LIABILITY
  // COMPANY YOOMONEY), unless they are two other forms
  if (formsConflict(q.legalForms, c.legalForms)) return 0;
  return slipAsWritten(q, c, q.rawCore || a, c.rawCore || b, org, p);
}

/** rawSimilarity's typing slip between the letters `a` and `b` of two names as written: in one token of names of as
 * many tokens (oneEditAsWritten), or in two one-token names. */
function slipAsWritten(
  q: PreparedName,
  c: PreparedName,
  a: string,
  b: string,
  org: boolean,
  p: ScoreParams,
): number {
  if (q.tokens.length === c.tokens.length && q.tokens.length >= 2)
    return oneEditAsWritten(q, c, a, b, org, p);
  if (q.tokens.length !== 1 || c.tokens.length !== 1) return 0;
  // the slip must fall in a word of 4+ letters, not in a legal form written beside it (BD p.l.c. / BP p.l.c.)
  const lq = q.tokens[0]!.length;
  const lc = c.tokens[0]!.length;
  if (Math.min(lq, lc) < 4 || (!typingSlip(a, b) && !(org && companyTypo(a, b)))) return 0;
  return 1 - TYPO_FLOOR_EDITS / Math.max(lq, lc, 5);
}

/** Two names of as many tokens (2+) whose letters as written (`a`, `b`: raw, or rawCore) are one edit apart, not in
 * the first letter: for a company any edit (a letter changed, added, dropped or two swapped), for a person two
 * letters swapped. Folding can move one typed letter two edits apart (`YOOUONEY`/`YOOMONEY` fold to
 * `youonei`/`yumonei`, `COMMEREC`/`COMMERCE` to `komerek`/`komers`), so the one token the folded names differ in
 * scores the slip floor of its longer spelling in the names' weighted mean, at most the joined discount. 0 when it
 * does not apply. */
function oneEditAsWritten(
  q: PreparedName,
  c: PreparedName,
  a: string,
  b: string,
  org: boolean,
  p: ScoreParams,
): number {
  const kind = rawEdit(a, b);
  if (kind === 0 || (!org && kind !== EDIT_SWAP) || q.digits !== c.digits) return 0;
  if (formsConflict(q.legalForms, c.legalForms)) return 0;
  let differ = -1;
  let total = 0;
  for (let i = 0; i < q.tokens.length; i++) {
    total += q.weights[i]! + c.weights[i]!;
    if (q.tokens[i] === c.tokens[i]) continue;
    if (differ >= 0) return 0;
    differ = i;
  }
  if (differ < 0) return p.joinedDiscount;
  const len = Math.max(q.tokens[differ]!.length, c.tokens[differ]!.length, 5);
  const cost = ((q.weights[differ]! + c.weights[differ]!) * TYPO_FLOOR_EDITS) / len;
  return Math.min(p.joinedDiscount, 1 - cost / total);
}

const EDIT_SWAP = 2;

/** The one edit between two strings, past their first letter: 1 a letter changed, added or dropped, EDIT_SWAP two
 * adjacent letters swapped; 0 when they are equal or further apart. */
export function rawEdit(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 1) return 0;
  let pre = 0;
  const m = Math.min(a.length, b.length);
  while (pre < m && a[pre] === b[pre]) pre++;
  if (pre === 0 || (pre === a.length && pre === b.length)) return 0;
  let suf = 0;
  while (suf < m - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const da = a.length - pre - suf;
  const db = b.length - pre - suf;
  if (da <= 1 && db <= 1) return 1;
  if (da === 2 && db === 2 && a[pre] === b[pre + 1] && a[pre + 1] === b[pre]) return EDIT_SWAP;
  return 0;
}

/** If a token of `a` (2–5 letters, not a particle, absent from `b`) spells the initials of a run of tokens
 * of `b`, returns `b` with that run replaced by the token. */
export function collapseAcronym(a: PreparedName, b: PreparedName): PreparedName | undefined {
  // names written in an abjad have no acronyms, and their romanised initials coincide with any (عطاء عاقل … → TCL)
  if (b.tokens.length < 2 || b.abjad) return undefined;
  for (const t of a.tokens) {
    if (!acronymCandidate(t.length, PARTICLES.has(t), b.tokens.length)) continue;
    const at = b.initials.indexOf(t);
    if (at < 0 || b.tokens.includes(t)) continue;
    const tokens = [...b.tokens.slice(0, at), t, ...b.tokens.slice(at + t.length)];
    return prepareNormalized({ tokens, legalForms: b.legalForms, abjad: b.abjad });
  }
  return undefined;
}

/** If a token of `a` is a particle of `b` (al, bin, abu, de, van …, abdul) written together with another token of
 * `b`, in any of the particle's spellings (BINmansor, BENazza, ELkhansa, ABDULrahim), returns `a` with that token
 * split into the two. The other token is usually the next one, but list names written `RAHIM, Mufti Abdul` put the
 * particle last. With `memo`, `a`'s splits are memoised on it (gluedSplit). */
export function splitGluedParticle(a: PreparedName, b: PreparedName, memo = false): PreparedName | undefined {
  const nb = Math.min(b.tokens.length, MAX_T);
  const na = Math.min(a.tokens.length, MAX_T);
  if (nb < 2 || (a.packed[HDR_FLAGS]! & F_GLUED) === 0) return undefined;
  for (let j = 0; j < nb; j++) {
    const head = b.tokens[j]!;
    if (!GLUE_HEAD_TOKENS.has(head)) continue;
    for (let k = 0; k < nb; k++) {
      if (k === j) continue;
      const split = gluedSplit(a, na, head, b.tokens[k]!, memo);
      if (split) return split;
    }
  }
  return undefined;
}

/** How alike a word written in two must be to a word of the other name (editRatio) to be read as it. */
export const SPLIT_WORD_MIN = 0.9;

/** If two adjacent tokens of `a` (2+ letters each), written together, are a token of `b` or one slip from it past
 * the first letter (editRatio ≥ SPLIT_WORD_MIN), while neither is itself a token of `b`, returns `a` with the two
 * joined: a word a clerk split with a space (`Patr ushev`, `MOHAMMAD HASNI` for `MOHAMMADHASNI`). Person and company
 * names alike; not in an abjad or in Han/Hangul (their skeletons and syllables are joined by the joined
 * alternative). */
export function joinSplitWord(a: PreparedName, b: PreparedName): PreparedName | undefined {
  const na = Math.min(a.tokens.length, MAX_T);
  const nb = Math.min(b.tokens.length, MAX_T);
  if (na < 2 || a.abjad || b.abjad || a.cjk.length > 0 || b.cjk.length > 0) return undefined;
  if (noSplitWord(a.packed, 0, b.packed, 0, SPLIT_WORD_MIN)) return undefined;
  let maxB = 0;
  for (let j = 0; j < nb; j++) maxB = Math.max(maxB, b.tokens[j]!.length);
  for (let i = 0; i + 1 < na; i++) {
    const x = a.tokens[i]!;
    const y = a.tokens[i + 1]!;
    const len = x.length + y.length;
    // editRatio ≥ SPLIT_WORD_MIN needs the shorter length ≥ SPLIT_WORD_MIN × the longer
    if (x.length < 2 || y.length < 2 || SPLIT_WORD_MIN * len > maxB) continue;
    for (let j = 0; j < nb; j++) {
      const t = b.tokens[j]!;
      if (
        t.charCodeAt(0) !== x.charCodeAt(0) ||
        SPLIT_WORD_MIN * len > t.length ||
        len < SPLIT_WORD_MIN * t.length
      )
        continue;
      if (b.tokens.includes(x) || b.tokens.includes(y)) break;
      if (editRatio(x + y, t, SPLIT_WORD_MIN) < SPLIT_WORD_MIN) continue;
      const tokens = [...a.tokens.slice(0, i), x + y, ...a.tokens.slice(i + 2)];
      return prepareNormalized({ tokens, legalForms: a.legalForms, abjad: a.abjad });
    }
  }
  return undefined;
}

/** Glued-particle splits memoised per name and particle (PreparedName.splits), at most this many. */
const SPLITS_MAX = 256;

/** `a` with its first token (of the first `na`) that is `head` glued to `next` split into the two, prepared; null
 * when none is. With `memo` (a screen's query name, which meets the same particle and token in many candidate names)
 * the same object for the same (head, next), so its token similarities are memoised across the candidates that
 * give it (pairSimilarity); list names are not memoised (kept across screens, they would keep every split). */
function gluedSplit(
  a: PreparedName,
  na: number,
  head: string,
  next: string,
  memo: boolean,
): PreparedName | null {
  // by particle, then by token: no key string made (and hashed) per call
  let byNext = memo ? a.splits?.get(head) : undefined;
  let split = byNext?.get(next);
  if (split !== undefined) return split;
  split = null;
  for (let i = 0; i < na; i++) {
    if (!glued(a.packed, i) || !gluedTo(a.tokens[i]!, head, next)) continue;
    const tokens = [...a.tokens.slice(0, i), head, next, ...a.tokens.slice(i + 1)];
    const n: NormalizedName = { tokens, legalForms: a.legalForms, abjad: a.abjad };
    if (a.cjk) n.cjk = a.cjk;
    split = prepareNormalized(n);
    break;
  }
  if (!memo) return split;
  if (a.splits === undefined) a.splits = new Map();
  if (byNext === undefined) {
    byNext = new Map();
    a.splits.set(head, byNext);
  }
  if (byNext.size < SPLITS_MAX) byNext.set(next, split);
  return split;
}

const { PK, PK_LEN, PK_GLUED, T0, HDR_FLAGS, F_GLUED } = PACKED;

/** Whether token `i` of a packed name starts with a particle's spelling glued to 2+ letters (packName's PK_GLUED,
 * gluedHead): gluedTo is false for every other token, and reading the flag saves its prefix lookups, which
 * nameSimilarity asks for every token pair of most names it scores. */
function glued(packed: Int32Array, i: number): boolean {
  return (packed[T0 + i * PK + PK_LEN]! & PK_GLUED) !== 0;
}

/** Whether the folded word `t` is a spelling of the particle `head` glued to the folded token `next`: it starts with
 * one of the particle's spellings and the rest is `next` or a spelling of it (ABDULkareem: karem, a spelling of
 * karim), or folding the two written together gives `t` (DELVALLE folds to delval, DEL VALLE to del vale; ABUyahya to
 * abuiahia, ABU YAHYA to abu yahia). */
function gluedTo(t: string, head: string, next: string): boolean {
  if (t.length < next.length) return false;
  for (let k = 2; k <= 5 && k + 2 <= t.length; k++) {
    const pre = t.slice(0, k);
    if (GLUE_HEADS.get(pre) !== head) continue;
    const rest = t.slice(k);
    if (rest === next || canonicalWord(rest) === next || foldToken(pre + next) === t) return true;
  }
  return false;
}

/** Whether a token of this length can stand for a run of initials of a name of `nb` tokens. */
export function acronymCandidate(len: number, particle: boolean, nb: number): boolean {
  return len >= 2 && len <= 5 && len <= nb && !particle;
}

const matchOf = new Int8Array(MAX_T);
/** Consonants a joined abjad skeleton needs for the joined alternative between names of as many tokens. */
const ABJAD_JOIN_MIN = 6;

function alignSimilarity(q: PreparedName, c: PreparedName, org: boolean, p: ScoreParams): number {
  setLrAlike(q.cjk.length > 0 || c.cjk.length > 0);
  try {
    return alignScore(q, c, org, p);
  } finally {
    setLrAlike(false);
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
    q === exactSimsQ &&
    c === exactSimsC &&
    lrAlike === exactSimsLr &&
    org === exactSimsOrg &&
    p.minTokenSim >= exactSimsMin
      ? exactSims
      : simMatrix;
  if (sims === simMatrix)
    for (let i = 0; i < nq; i++) {
      for (let j = 0; j < nc; j++) {
        simMatrix[i * MAX_T + j] = pairSimilarity(q, i, c.tokens[j]!, c.skels[j]!, abjadMode, prefixOk, org);
      }
    }
  for (let i = 0; i < nq; i++) {
    usedQ[i] = 0;
    matchOf[i] = -1;
  }
  for (let j = 0; j < nc; j++) usedC[j] = 0;
  // a Han or Hangul name against a Latin one: its syllables are read exactly, so a romanised syllable of 3 letters
  // or fewer that only resembles the other name's part (lin/bin, sug/su) is another syllable, not a spelling of it
  const crossSyllables = !org && q.cjk.length > 0 !== c.cjk.length > 0;
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
        if (crossSyllables && s < 1 && shortSyllable(q.tokens[i]!, c.tokens[j]!)) continue;
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
      w = INITIAL_PAIR_WEIGHT;
      if (qt.length > 1) softQ += INITIAL_SOFT * q.weights[bi]!;
      if (ct.length > 1) softC += INITIAL_SOFT * c.weights[bj]!;
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
      // substituted tokens on both sides: a different person/company, full cost (for persons more than full)
      const mult = org ? p.substMult : p.personSubstMult;
      align = matchedW / (matchedTotal + mult * (qU + cU) + softQ + softC);
    } else {
      const multi = matched >= 2;
      let pen = 0;
      if (org) pen = (qN + cN) * p.orgExtra;
      else if (qN > 0) pen = qN * (multi ? p.queryExtraMulti : p.queryExtraSingle);
      else if (cN > 0) pen = cN * (multi ? p.candExtraMulti : p.candExtraSingle);
      // the given name of one name standing as the other's middle name, while the other's own given name is left out
      // (Michael Johnson / WILLIAM MICHAEL JOHNSON, Stephanie James Lee / James Lee): another person of that name
      if (!org && pen < GIVEN_SHIFTED && givenShifted(q, c, nq, nc)) pen = GIVEN_SHIFTED;
      align = core * (1 - Math.min(p.extraCap, pen));
      // across scripts a name part left over counts as another name, not as a dropped middle name. A Han or Hangul
      // name against a Latin one: every syllable is part of a given or family name (李 陈 is not Hao Li Chen, 수빈 이
      // not Su Bin), and the Latin name's parts but its patronymic (which these renderings leave out) and particles
      // count too. A name in an abjad against one that is not: its own parts left over count (علي علی شاهی is not Li
      // Li), as its consonants alone already made the match a weak one; the other name's extra parts stay cheap
      if (!org) {
        let left = 0;
        if (q.cjk.length > 0 !== c.cjk.length > 0)
          left =
            q.cjk.length > 0
              ? syllablesLeft(q, usedQ, nq) + latinLeft(c, usedC, nc)
              : syllablesLeft(c, usedC, nc) + latinLeft(q, usedQ, nq);
        else if (q.abjad !== c.abjad) left = q.abjad ? latinLeft(q, usedQ, nq) : latinLeft(c, usedC, nc);
        if (left > 0) align = Math.min(align, matchedW / (matchedTotal + p.substMult * left + softQ + softC));
      }
    }
    if (binSwapped(q, c)) align *= BIN_SWAP;
  }
  // joined/split tokens (AlisherUsmanov, Patr ushev, abdul rahman) and abjad skeletons across tokens
  // (numbers must agree: Bowne Global Solutions II is not Bowne Global Solutions); with as many tokens on both
  // sides, abjad skeletons are joined only when they are long enough not to agree by chance (عبد الوهاب / Abdul
  // Wahab, bdlwhb, split otherwise; not پارسا زمانی / Faris Mana'a, brsmn)
  if (
    nq !== nc ||
    nq === 1 ||
    (abjadMode && Math.min(q.joinedSkel.length, c.joinedSkel.length) >= ABJAD_JOIN_MIN)
  ) {
    const alt = joinedScore(q, c, abjadMode, p);
    if (alt > align) align = alt;
  }
  // two different legal forms (AG vs GmbH) usually mean two different companies of one group, however the names
  // align (Siemens AG / Siemens GmbH as much as Deutsche Bank AG / Deutsche Bank GmbH)
  if (formsConflict(q.legalForms, c.legalForms)) align = Math.max(0, align - FORM_CONFLICT);
  return align;
}

/** Whether, in two Latin person names written given name first (no comma, no abjad, Han or Hangul), the first
 * token of one is left over while the other's first token aligned with a later token of it: the one name's given
 * name is the other's middle name. Uses the alignment of the last alignScore call; the token left over must be a
 * given name (givenToken). */
function givenShifted(q: PreparedName, c: PreparedName, nq: number, nc: number): boolean {
  if (q.abjad || c.abjad || q.cjk.length > 0 || c.cjk.length > 0) return false;
  // given, middle and family name against given and family name: a longer name has more given names, and a person
  // is often known by any of them (Alexandre Boris de Pfeffel Johnson)
  if (q.rawSwapped.length > 0 || c.rawSwapped.length > 0 || Math.min(nq, nc) !== 2 || Math.max(nq, nc) !== 3)
    return false;
  // the list name's first token left over, the query's first aligned further on
  if (!usedC[0] && matchOf[0]! > 0) return givenToken(c.tokens[0]!);
  if (usedQ[0] || !givenToken(q.tokens[0]!)) return false;
  for (let i = 1; i < nq; i++) if (matchOf[i] === 0) return true;
  return false;
}

/** A given name left over: not an initial or a particle, and 4+ letters (a syllable of 3 or fewer may be half of a
 * given name written in two, Hao Li Chen). */
function givenToken(t: string): boolean {
  return t.length >= 4 && !PARTICLES.has(t);
}

/** Whether either of two romanised tokens is a syllable of 3 letters or fewer (crossSyllables in alignScore). */
function shortSyllable(a: string, b: string): boolean {
  return Math.min(a.length, b.length) <= 3;
}

/** The weight of a Han or Hangul name's tokens left unaligned: each a syllable or name of its own (a romanised
 * syllable that spells a particle, 이 → le, is a family name here). */
function syllablesLeft(n: PreparedName, used: Uint8Array, count: number): number {
  let w = 0;
  for (let i = 0; i < count; i++) if (!used[i]) w += weightOf(n.tokens[i]!.length, false);
  return w;
}

/** A patronymic's ending as romanised from Arabic or Persian script (فلاديميروفيتش → fldimirufitsh): -vitsh, -fitsh. */
const ROMANISED_PATRONYMIC = /(?:[vf]itsh|[vf]ich)$/;

/** The weight of a name's tokens left unaligned, but for particles and patronymics (which renderings in other
 * scripts leave out). */
function latinLeft(n: PreparedName, used: Uint8Array, count: number): number {
  let w = 0;
  for (let i = 0; i < count; i++) {
    const t = n.tokens[i]!;
    if (!used[i] && !PARTICLES.has(t) && !PATRONYMIC_END.test(t) && !ROMANISED_PATRONYMIC.test(t))
      w += n.weights[i]!;
  }
  return w;
}

/** The score of the joined/split alternative (0 when it does not apply: the names' digits differ, or the ratio is
 * under joinedMin). */
export function joinedScore(q: PreparedName, c: PreparedName, abjadMode: boolean, p: ScoreParams): number {
  if (q.digits !== c.digits) return 0;
  if (
    q === joined.q &&
    c === joined.c &&
    abjadMode === joined.abjad &&
    p === joined.p &&
    lrAlike === joined.lr
  )
    return joined.v;
  const r = abjadMode
    ? editRatio(q.joinedSkel, c.joinedSkel, p.joinedMin) * 0.95
    : editRatio(q.joined, c.joined, p.joinedMin);
  const v = r >= p.joinedMin ? curved(r, p) * p.joinedDiscount : 0;
  joined.q = q;
  joined.c = c;
  joined.abjad = abjadMode;
  joined.p = p;
  joined.lr = lrAlike;
  joined.v = v;
  return v;
}

/** joinedScore's last pair, its mode and its value: the bound's exact pass computes it for a candidate, and
 * alignScore then asks for the same pair when the candidate is scored. */
const joined: {
  q: PreparedName | undefined;
  c: PreparedName | undefined;
  abjad: boolean;
  p: ScoreParams | undefined;
  lr: boolean;
  v: number;
} = { q: undefined, c: undefined, abjad: false, p: undefined, lr: false, v: 0 };

function unmatchedCost(t: string, org: boolean): number {
  return unmatchedCostOf(PARTICLES.has(t), GENERIC.has(t), org);
}

/** A similarity through the score curve (non-decreasing for curve ≥ 0). */
export function curved(s: number, p: ScoreParams): number {
  return s >= 1 ? 1 : Math.max(0, 1 - p.curve * (1 - s));
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
