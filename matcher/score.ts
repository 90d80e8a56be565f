// Name similarity: token alignment over folded tokens with an edit-distance token similarity, plus a
// whole-string comparison for joined/split names. Allocation-free in the hot loops (shared scratch arrays).
import { type NameKind, type NormalizedName, normalizeName, skeleton } from './normalize.js';

export interface PreparedName {
  tokens: string[];
  skels: string[];
  weights: number[];
  abjad: boolean;
  joined: string;
  joinedSkel: string;
  legalForms: string[];
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

export function tokenWeight(t: string): number {
  if (PARTICLES.has(t)) return 0.6;
  if (t.length === 1) return 2;
  return Math.min(t.length, 10);
}

export function prepareNormalized(n: NormalizedName): PreparedName {
  const skels = n.tokens.map(skeleton);
  return {
    tokens: n.tokens,
    skels,
    weights: n.tokens.map(tokenWeight),
    abjad: n.abjad,
    joined: n.tokens.join(''),
    joinedSkel: skels.join(''),
    legalForms: n.legalForms,
  };
}

export function prepareName(raw: string, kind: NameKind = 'any'): PreparedName {
  return prepareNormalized(normalizeName(raw, kind));
}

// ---- edit distance -------------------------------------------------------------------------------------

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/** Optimal string alignment distance (Levenshtein + adjacent transposition). */
export function osaDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(m * 2 + 2);
    rowB = new Int32Array(m * 2 + 2);
    rowC = new Int32Array(m * 2 + 2);
  }
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let v = prev[j - 1]! + cost;
      const del = prev[j]! + 1;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 1;
      if (ins < v) v = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        const tr = prev2[j - 2]! + 1;
        if (tr < v) v = tr;
      }
      cur[j] = v;
    }
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m]!;
}

export function editRatio(a: string, b: string): number {
  if (a === b) return 1;
  const max = Math.max(a.length, b.length);
  if (max === 0) return 1;
  return 1 - osaDistance(a, b) / max;
}

function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** Similarity of two folded tokens in [0,1]. */
export function tokenSimilarity(a: string, b: string, skA: string, skB: string, abjadMode: boolean): number {
  if (a === b) return 1;
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? INITIAL_SIM : 0;
  if (hasDigit(a) || hasDigit(b)) return 0;
  let s = editRatio(a, b);
  if (abjadMode && skA.length > 0 && skB.length > 0) {
    const k = skA === skB ? 0.95 : editRatio(skA, skB) * 0.9;
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
}

export const SCORE_PARAMS: ScoreParams = {
  minTokenSim: 0.5,
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
};

const INITIAL_SIM = 0.9;
const MAX_T = 16;
const simMatrix = new Float64Array(MAX_T * MAX_T);
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
  const nq = Math.min(q.tokens.length, MAX_T);
  const nc = Math.min(c.tokens.length, MAX_T);
  if (nq === 0 || nc === 0) return 0;
  const abjadMode = q.abjad !== c.abjad;
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nc; j++) {
      simMatrix[i * MAX_T + j] = tokenSimilarity(
        q.tokens[i]!,
        c.tokens[j]!,
        q.skels[i]!,
        c.skels[j]!,
        abjadMode,
      );
    }
  }
  usedQ.fill(0, 0, nq);
  usedC.fill(0, 0, nc);
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
        const s = simMatrix[i * MAX_T + j]!;
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
    matchedW += w * (best >= 1 ? 1 : Math.max(0, 1 - p.curve * (1 - best)));
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
        qN += PARTICLES.has(q.tokens[i]!) ? 0.3 : 1;
      }
    for (let j = 0; j < nc; j++)
      if (!usedC[j]) {
        cU += c.weights[j]!;
        cN += PARTICLES.has(c.tokens[j]!) ? 0.3 : 1;
      }
    const core = matchedW / matchedTotal;
    if ((qU > 0 || softQ > 0) && (cU > 0 || softC > 0) && qU + cU > 0) {
      // substituted tokens on both sides: a different person/company, full cost
      align = matchedW / (matchedTotal + qU + softQ + cU + softC);
    } else {
      const multi = matched >= 2;
      let pen = 0;
      if (org) pen = (qN + cN) * p.orgExtra;
      else if (qN > 0) pen = qN * (multi ? p.queryExtraMulti : p.queryExtraSingle);
      else if (cN > 0) pen = cN * (multi ? p.candExtraMulti : p.candExtraSingle);
      align = core * (1 - Math.min(p.extraCap, pen));
    }
  }
  // joined/split tokens (AlisherUsmanov, Patr ushev, abdul rahman) and abjad skeletons across tokens
  if (nq !== nc || nq === 1) {
    const r = abjadMode ? editRatio(q.joinedSkel, c.joinedSkel) * 0.95 : editRatio(q.joined, c.joined);
    if (r >= p.joinedMin) {
      const alt = (r >= 1 ? 1 : Math.max(0, 1 - p.curve * (1 - r))) * p.joinedDiscount;
      if (alt > align) align = alt;
    }
  }
  return align;
}
