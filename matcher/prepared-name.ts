// A name prepared for scoring: its folded tokens with their skeletons and weights, the joined forms, and the packed
// numbers the score bound reads (packName's layout). Made once per query name and once per list name (cached per
// thread by the screener).

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
export const PARTICLES = new Set([
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
export const GENERIC = new Set(ORG_GENERIC_WORDS.flatMap((w) => normalizeName(w, 'org').tokens));
export const GENERIC_COST = 0.3;
export const PARTICLE_COST = 0.3;

export function tokenWeight(t: string): number {
  return weightOf(t.length, PARTICLES.has(t));
}

/** A token's weight from its length and whether it is a particle (tokenWeight, and the bound's packed tokens). */
export function weightOf(len: number, particle: boolean): number {
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

export function allDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** Endings of East Slavic patronymics (folded). */
export const PATRONYMIC_END = /(?:ovich|evich|ovych|evych|ovna|evna|ivna|ich)$/;

/** packName: five int32 per token. */
export const PK = 5;
export const PK_MASK = 0;
export const PK_HASH = 1;
export const PK_LEN = 2;
export const PK_FIRST = 3;
/** hash of the token without its last two letters (the ending rule) */
export const PK_STEM = 4;
/** the length of the token's consonant skeleton (abjad mode), in the PK_LEN word from this bit */
export const PK_SK_SHIFT = 20;
/** the skeleton length field: 8 bits, PK_SK_LONG standing for any length of 255 or more (then not bounded) */
export const PK_SK_LONG = 0xff;
/** Flags above the length in the PK_LEN word. */
export const PK_PARTICLE = 1 << 16;
export const PK_GENERIC = 1 << 17;
export const PK_PATRONYMIC = 1 << 18;
export const PK_LEN_BITS = 0xffff;

export const MASK_DIGIT = 1 << 26;
export const MASK_OTHER = 1 << 27;
export const bitOf = (ch: string): number => 1 << (ch.charCodeAt(0) - 97);
export const MASK_VOWELS = [...'aeiouy'].reduce((m, ch) => m | bitOf(ch), 0);
export const MASK_HALF_LR = MASK_VOWELS | bitOf('l') | bitOf('r');

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
export const HDR_N = 0;
export const HDR_FLAGS = 1;
export const HDR_INITIALS = 2;
export const HDR_JSK_LEN = 3;
export const T0 = 4;
export const F_ABJAD = 1;
export const F_CJK = 2;
/** some token is a single letter (an initial) */
export const F_INITIAL = 4;

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
