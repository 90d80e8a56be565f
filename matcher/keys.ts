// Retrieval keys shared by index build and query. Keys are ASCII strings with a one-letter namespace:
// t = token (or two adjacent tokens joined), s = consonant skeleton, p/x = 4-letter prefix/suffix of long
// tokens (typo tolerance), b = letter bag of a single-token name (typing slips), d = one-letter deletions of a
// single-token name (one wrong key), i = identifier value.
import type { EntitySchema } from '../ingest/entity.js';
import type { NameKind, NormalizedName } from './normalize.js';
import { skeleton } from './normalize.js';

export const KEY_TOKEN = 't';
export const KEY_SKEL = 's';
export const KEY_PREFIX = 'p';
export const KEY_SUFFIX = 'x';
export const KEY_IDENT = 'i';
export const KEY_SLIP = 'b';
export const KEY_DELETE = 'd';

/** Longest single token posted with its one-letter deletions (deleteKeys). */
export const DELETE_KEYS_MAX_LEN = 12;

/** The token and each spelling of it with one letter (not the first) left out, as keys: two spellings one edit apart
 * share one (a letter changed: both drop it; added or dropped: one side's token is the other's deletion; two
 * swapped: both drop one of them), so ARGTN finds ARGON and SEAHRASS finds SEABRASS, whose skeletons, prefixes,
 * suffixes and letter bags all differ. */
export function deleteKeys(t: string, out: { add(key: string): unknown }): void {
  out.add(KEY_DELETE + t);
  for (let i = 1; i < t.length; i++) out.add(KEY_DELETE + t.slice(0, i) + t.slice(i + 1));
}

/** The first letter and the sorted set of the other consonants of a token: the same for two spellings one
 * typing slip apart (transposed, doubled or dropped-vowel letters: SIONPA/SINOPA, GIDLA/GILDA), whose
 * skeletons and prefixes differ. */
export function slipKey(t: string): string {
  const set = new Set<string>();
  for (let i = 1; i < t.length; i++) if (!'aeiouy'.includes(t[i]!)) set.add(t[i]!);
  return KEY_SLIP + t[0] + [...set].sort().join('');
}

/** Relative retrieval weight of each key namespace (multiplied by the key's IDF). */
export function keyWeight(key: string): number {
  switch (key[0]) {
    case KEY_TOKEN:
    // a shared deletion is one edit between two whole single-token names: as telling as a shared token
    case KEY_DELETE:
      return 1;
    case KEY_SKEL:
      return 0.7;
    case KEY_IDENT:
      return 10;
    default:
      return 0.5;
  }
}

/** Longest token of an adjacent pair for which the index side still posts the joined pair keys. */
export const INDEX_PAIR_MAX_SHORT = 4;

/** Emits the retrieval keys of a name into `out` (a Set, or any sink that tolerates duplicates); `perToken`, when
 * given, emits each token's own keys (tokenKeys) in its place (the index build posts them from a cache). Joined
 * pair keys find names written split on one side and joined on the other (Abd Allah / Abdullah). Queries post
 * every pair; the index posts pairs only when one part is short (a particle or syllable: abd, al, tse), which
 * is how list names come split, and keeps a 1M-name key table a third smaller. */
export function nameKeys(
  n: NormalizedName,
  out: { add(key: string): unknown },
  indexSide = false,
  perToken?: (t: string) => void,
): void {
  const toks = n.tokens;
  // a single-token name of 4–9 letters is also found by its letter bag (a slip moves its skeleton), and by the bag
  // of its letters as written without legal forms, which folding can move apart (YAGOHUB, YAGHOUB: iagohub, iagub)
  if (toks.length === 1 && toks[0]!.length >= 4 && toks[0]!.length <= 9) out.add(slipKey(toks[0]!));
  const raw = n.rawCore ?? n.raw;
  if (toks.length === 1 && raw !== undefined && raw.length >= 4 && raw.length <= 9 && raw !== toks[0])
    out.add(slipKey(raw));
  // and a single token of 5–12 letters by its one-letter deletions: one wrong key moves every other key
  if (toks.length === 1 && toks[0]!.length >= 5 && toks[0]!.length <= DELETE_KEYS_MAX_LEN)
    deleteKeys(toks[0]!, out);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (perToken === undefined) tokenKeys(t, out);
    else perToken(t);
    const next = toks[i + 1];
    if (next !== undefined && (!indexSide || Math.min(t.length, next.length) <= INDEX_PAIR_MAX_SHORT)) {
      const j = t + next;
      out.add(KEY_TOKEN + j);
      const sj = skeleton(j);
      if (sj.length >= 3) out.add(KEY_SKEL + sj);
    }
  }
}

/** The keys of one token on its own, in nameKeys' order: the token, its skeleton, its prefix and its suffix. */
export function tokenKeys(t: string, out: { add(key: string): unknown }): void {
  if (t.length >= 2) out.add(KEY_TOKEN + t);
  const sk = skeleton(t);
  if (sk.length >= 2) out.add(KEY_SKEL + sk);
  if (t.length >= 5) out.add(KEY_PREFIX + t.slice(0, 4));
  if (t.length >= 6) out.add(KEY_SUFFIX + t.slice(-4));
}

export function schemaNameKind(schema: EntitySchema): NameKind {
  switch (schema) {
    case 'Person':
      return 'person';
    case 'Company':
    case 'Organization':
      return 'org';
    case 'Vessel':
    case 'Aircraft':
      return 'vessel';
    default:
      return 'any';
  }
}

/** FNV-1a 32-bit over char codes (keys are ASCII). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** fnv1a of the first `n` characters of `s` (fnv1a(s.slice(0, n)) without making the slice). */
export function fnv1aPrefix(s: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
