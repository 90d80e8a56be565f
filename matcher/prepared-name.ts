// A name prepared for scoring: its folded tokens with their skeletons and weights, the joined forms, and the packed
// numbers the score bound reads (packName's layout). Made once per query name and once per list name (cached per
// thread by the screener).

import { type NameKind, type NormalizedName, normalizeName, skeleton } from './normalize.js';
import { letterMask, packName } from './packed-name.js';
import { hasDigit, tokenWeight } from './token-facts.js';

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
  /** the name's letters as written, and in the other order for `FAMILY, Given` ('' when none: NormalizedName.raw) */
  raw: string;
  rawSwapped: string;
  /** the same letters without the legal forms at the name's edges ('' when that is raw: NormalizedName.rawCore) */
  rawCore: string;
  /** the name as numbers for nameSimilarityBound (packName): token count, flags, the initials' letters, then the
   * tokens */
  packed: Int32Array;
  /** this name's token similarities as the query side, memoised by pairSimilarity (created on first use) */
  sims: Map<string, number>[] | undefined;
  /** this name's glued-particle splits as the first name of splitGluedParticle, memoised by the particle and the
   * other name's token it stands beside (null: none; created on first use) */
  splits: Map<string, Map<string, PreparedName | null>> | undefined;
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
    raw: n.raw ?? '',
    rawSwapped: n.rawSwapped ?? '',
    rawCore: n.rawCore ?? '',
    packed: packName(n, skels, letterMask(initials), joinedSkel),
    sims: undefined,
    splits: undefined,
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
    raw: p.raw,
    rawSwapped: p.rawSwapped,
    rawCore: p.rawCore,
    packed: p.packed.slice(),
    sims: undefined,
    splits: undefined,
  };
}

export function prepareName(raw: string, kind: NameKind = 'any'): PreparedName {
  return prepareNormalized(normalizeName(raw, kind));
}
