// A prepared name as numbers (packName): a header, then five int32 per token. The score bound (name-bound.ts) reads
// these contiguous numbers instead of the name's strings; the screener copies them into its arena.
import { fnv1a, fnv1aPrefix } from './keys.js';
import type { NormalizedName } from './normalize.js';
import { GENERIC, GLUE_HEAD_TOKENS, gluedHead, PARTICLES, PATRONYMIC_END } from './token-facts.js';

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
/** the token starts with a particle's spelling glued to 2+ letters (gluedHead) */
const PK_GLUED = 1 << 19;
/** the token is a particle that is written glued to the next word (GLUE_HEAD_TOKENS) */
const PK_GLUE_HEAD = 1 << 28;
const PK_LEN_BITS = 0xffff;

const MASK_DIGIT = 1 << 26;
const MASK_OTHER = 1 << 27;
export const bitOf = (ch: string): number => 1 << (ch.charCodeAt(0) - 97);
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
 * (joinedSkel), the hashes of the name's letters as written and in the other order (raw, rawSwapped; 0 when absent),
 * their length, and their first character (bits 0–7) with that of the letters without the legal forms (rawCore, or
 * raw when it has none: bits 8–15) and their length (from bit 16); the tokens follow at T0. */
const HDR_N = 0;
const HDR_FLAGS = 1;
const HDR_INITIALS = 2;
const HDR_JSK_LEN = 3;
const HDR_RAW = 4;
const HDR_RAW_SWAPPED = 5;
const HDR_RAW_LEN = 6;
const HDR_RAW_FIRST = 7;
/** the shortest two adjacent tokens (2+ letters each) written together (SPLIT_NONE when none), and above
 * SPLIT_SHIFT the longest token's length: a word written in two (joinSplitWord) is ruled out from these alone */
const HDR_SPLIT = 8;
const T0 = 9;
const SPLIT_NONE = 0xffff;
const SPLIT_SHIFT = 16;
const F_ABJAD = 1;
const F_CJK = 2;
/** some token is a single letter (an initial) */
const F_INITIAL = 4;
/** some token starts with a particle's spelling glued to 2+ letters (PK_GLUED); some token is a glue-head particle
 * (PK_GLUE_HEAD) */
const F_GLUED = 8;
const F_GLUE_HEAD = 16;

/** The header, then per token: letterMask, FNV-1a hash, length with the particle/generic flags and the skeleton's
 * length, first character code, stem hash. The bound reads these contiguous numbers (one
 * array per name) instead of the name's strings. */
export function packName(
  n: NormalizedName,
  skels: readonly string[],
  initialsMask: number,
  joinedSkel: string,
): Int32Array {
  const tokens = n.tokens;
  const out = new Int32Array(T0 + tokens.length * PK);
  out[HDR_N] = tokens.length;
  out[HDR_INITIALS] = initialsMask;
  out[HDR_JSK_LEN] = joinedSkel.length;
  const raw = n.raw ?? '';
  out[HDR_RAW] = raw ? fnv1a(raw) | 0 : 0;
  out[HDR_RAW_SWAPPED] = n.rawSwapped ? fnv1a(n.rawSwapped) | 0 : 0;
  out[HDR_RAW_LEN] = raw.length;
  const core = n.rawCore ?? raw;
  out[HDR_RAW_FIRST] = raw ? raw.charCodeAt(0) | (core.charCodeAt(0) << 8) | (core.length << 16) : 0;
  let flags = (n.abjad ? F_ABJAD : 0) | ((n.cjk ?? '').length > 0 ? F_CJK : 0);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const o = T0 + i * PK;
    if (t.length === 1) flags |= F_INITIAL;
    out[o + PK_MASK] = letterMask(t);
    out[o + PK_HASH] = fnv1a(t) | 0;
    const glued = gluedHead(t) !== undefined;
    const head = GLUE_HEAD_TOKENS.has(t);
    if (glued) flags |= F_GLUED;
    if (head) flags |= F_GLUE_HEAD;
    out[o + PK_LEN] =
      Math.min(t.length, PK_LEN_BITS) |
      (PARTICLES.has(t) ? PK_PARTICLE : 0) |
      (GENERIC.has(t) ? PK_GENERIC : 0) |
      (PATRONYMIC_END.test(t) ? PK_PATRONYMIC : 0) |
      (glued ? PK_GLUED : 0) |
      (head ? PK_GLUE_HEAD : 0) |
      (Math.min(skels[i]!.length, PK_SK_LONG) << PK_SK_SHIFT);
    out[o + PK_FIRST] = t.charCodeAt(0);
    out[o + PK_STEM] = fnv1aPrefix(t, Math.max(0, t.length - 2)) | 0;
  }
  out[HDR_FLAGS] = flags;
  out[HDR_SPLIT] = splitHeader(tokens);
  return out;
}

/** HDR_SPLIT's number of these tokens. */
function splitHeader(tokens: readonly string[]): number {
  let minPair = SPLIT_NONE;
  let maxLen = 0;
  for (let i = 0; i < tokens.length; i++) {
    const l = tokens[i]!.length;
    maxLen = Math.max(maxLen, l);
    const next = tokens[i + 1]?.length ?? 0;
    if (l >= 2 && next >= 2) minPair = Math.min(minPair, l + next);
  }
  return Math.min(minPair, SPLIT_NONE) | (Math.min(maxLen, 0x7fff) << SPLIT_SHIFT);
}

/** Whether the split-word rule (joinSplitWord) cannot apply with `a`'s words joined, from the packed headers: even
 * `a`'s shortest adjacent pair written together is longer than `b`'s longest token by more than `min` allows
 * (editRatio ≥ min needs the shorter length ≥ min × the longer). */
export function noSplitWord(a: Int32Array, ao: number, b: Int32Array, bo: number, min: number): boolean {
  return min * (a[ao + HDR_SPLIT]! & SPLIT_NONE) > b[bo + HDR_SPLIT]! >>> SPLIT_SHIFT;
}

/** The layout's numbers, for its reader (name-bound.ts), which takes them as its own module constants: V8 folds a
 * module's own constants into the code it compiles, while every read of an imported binding is a load, and the
 * bound reads them in its inner loops. */
export const PACKED = Object.freeze({
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
  PK_GLUED,
  PK_GLUE_HEAD,
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
  HDR_SPLIT,
  T0,
  F_ABJAD,
  F_CJK,
  F_INITIAL,
  F_GLUED,
  F_GLUE_HEAD,
});
