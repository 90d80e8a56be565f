// The query side of a screen: the subject in one shape, its names with their alternative readings, and the
// weighted index keys they and its identifiers give.
import { type KindInfo, subjectIdentifiers, subjectKind } from './features.js';
import type { IndexView } from './index-view.js';
import { KEY_IDENT, KEY_SKEL, KEY_TOKEN, keyWeight, nameKeys } from './keys.js';
import { alternativeReadings, canonicalWord, normalizeName } from './normalize.js';
import { type PreparedName, prepareNormalized } from './prepared-name.js';
import { splitGluedTokens, tokenWeight } from './token-facts.js';
import type { ScreenSubject } from './types.js';

/** Weight of a one-consonant-deleted skeleton key relative to a skeleton key. */
const NEIGHBOUR_WEIGHT = 0.5;

export interface QueryName {
  raw: string;
  /** the subject's name as given (raw may be an alternative reading of it) */
  shown: string;
  prepared: Map<string, PreparedName>;
}

/** The subject's kind, its query names, their weighted keys, and its identifier values. */
export interface QueryKeys {
  sk: KindInfo;
  queries: QueryName[];
  keys: Map<string, number>;
  identValues: string[];
}

/** A query name normalised for a kind of name, prepared once per screen. */
export function prepared(q: QueryName, kind: KindInfo['kind']): PreparedName {
  let p = q.prepared.get(kind);
  if (!p) {
    p = prepareNormalized(normalizeName(q.raw, kind));
    q.prepared.set(kind, p);
  }
  return p;
}

/** The subject with every field present, in one order: callers build subjects of many shapes (JSON bodies, bench
 * rows with and without a date of birth or nationality), and every function of a screen reading several of them
 * would run polymorphic or megamorphic, deoptimised whenever it met one more. */
export function oneShape(s: ScreenSubject): ScreenSubject {
  return {
    ref: s.ref,
    name: s.name,
    type: s.type,
    aliases: s.aliases,
    date_of_birth: s.date_of_birth,
    nationality: s.nationality,
    country: s.country,
    identifiers: s.identifiers,
    imo_number: s.imo_number,
    mmsi: s.mmsi,
    registration_number: s.registration_number,
  };
}

/** The subject's names (with their alternative readings) and the weighted index keys they and its identifiers
 * give. */
export function queryKeys(view: IndexView, subject: ScreenSubject): QueryKeys {
  const sk: KindInfo = subjectKind(subject.type);
  const queries: QueryName[] = [];
  const seenQ = new Set<string>();
  for (const raw of [subject.name, ...(subject.aliases ?? [])]) {
    if (typeof raw !== 'string' || raw.trim().length === 0 || seenQ.has(raw)) continue;
    seenQ.add(raw);
    queries.push({ raw, shown: raw, prepared: new Map() });
    for (const alt of alternativeReadings(raw))
      if (!seenQ.has(alt)) {
        seenQ.add(alt);
        queries.push({ raw: alt, shown: raw, prepared: new Map() });
      }
  }
  const keys = new Map<string, number>();
  const keySet = new Set<string>();
  for (const q of queries) {
    keySet.clear();
    const nn = normalizeName(q.raw, sk.kind);
    q.prepared.set(sk.kind, prepareNormalized(nn));
    nameKeys(nn, keySet);
    // a particle glued to the next word (ABDULrahim): the keys of the two words apart too
    const split = splitGluedTokens(nn);
    if (split) nameKeys(split, keySet);
    for (const k of keySet) {
      // short tokens identify little even when rare
      const lenW = k[0] === 't' ? Math.min(1, tokenWeight(k.slice(1)) / 4) : 1;
      const w = keyWeight(k) * lenW;
      if ((keys.get(k) ?? 0) < w) keys.set(k, w);
    }
  }
  for (const q of queries) {
    const p = q.prepared.get(sk.kind)!;
    const company = sk.kind === 'org' || (sk.kind === 'any' && p.legalForms.length > 0);
    addNeighbourKeys(view, p, keys, company);
    if (!company) addGluedWordKeys(view, p, keys);
  }
  const identValues = subjectIdentifiers(subject);
  for (const v of identValues) keys.set(KEY_IDENT + v, keyWeight(KEY_IDENT));
  return { sk, queries, keys, identValues };
}

/** A query token the index does not know (no list name has it) may be a spelling with
 * one extra consonant (Belarusian Пуцін → putsin for Putin, a stray letter): its skeleton with one consonant
 * dropped is looked up too, at half a skeleton key's weight; in a company name (`near`) also its one-edit spellings
 * (addNearTokens). Query side only: the index is unchanged. */
function addNeighbourKeys(view: IndexView, q: PreparedName, keys: Map<string, number>, near: boolean): void {
  for (let i = 0; i < q.tokens.length; i++) {
    const sk = q.skels[i]!;
    const t = q.tokens[i]!;
    const nearToken = near && t.length >= NEAR_TOKEN_MIN && !q.abjad && q.cjk.length === 0;
    if ((sk.length < 4 && !nearToken) || view.lookup(KEY_TOKEN + t) >= 0) continue;
    if (nearToken && !addNearTokens(view, t, keys)) addNearSkeletons(view, sk, keys);
    if (sk.length < 4) continue;
    const w = NEIGHBOUR_WEIGHT * keyWeight(KEY_SKEL);
    for (let j = 0; j < sk.length; j++) {
      const k = KEY_SKEL + sk.slice(0, j) + sk.slice(j + 1);
      if ((keys.get(k) ?? 0) < w) keys.set(k, w);
    }
  }
}

/** Shortest unknown query token whose one-edit neighbours are looked up (addNearTokens). */
const NEAR_TOKEN_MIN = 4;
/** The letters a folded token is made of (folding writes no q, w or x), for addNearTokens' substitutions and
 * insertions. */
const FOLDED_LETTERS = 'abcdefghijklmnoprstuvyz';

/** An unknown token of a company name (4+ letters) may be a word of a list name with one letter changed, added,
 * dropped or two swapped (SJONE for SAONE beside SHIPPING CORPORATION, which every such name shares; CEPITAL): the
 * index posts a one-word name's deletions (deleteKeys) but no other word's, so each spelling one edit from the token
 * (not in its first letter) that the index knows as a token is looked up too, at a neighbour key's weight. Company
 * names only (a company subject, or an untyped one with a legal form): their words are coined, and the 23 × 2 ×
 * length lookups would cost every person screen (a person's unknown surname keeps its skeleton keys). Query side
 * only: the index is unchanged. Returns whether the index knows any of these spellings. */
function addNearTokens(view: IndexView, t: string, keys: Map<string, number>): boolean {
  const w = NEIGHBOUR_WEIGHT * keyWeight(KEY_TOKEN) * Math.min(1, tokenWeight(t) / 4);
  let found = false;
  const tryKey = (v: string): void => {
    const k = KEY_TOKEN + v;
    if (view.lookup(k) < 0) return;
    found = true;
    if ((keys.get(k) ?? 0) < w) keys.set(k, w);
  };
  for (let i = 1; i <= t.length; i++) {
    const head = t.slice(0, i);
    const tail = t.slice(i);
    if (i < t.length) {
      tryKey(head + t.slice(i + 1));
      if (i + 1 < t.length) tryKey(head + t[i + 1] + t[i] + t.slice(i + 2));
    }
    for (const ch of FOLDED_LETTERS) {
      if (i < t.length && ch !== t[i]) tryKey(head + ch + t.slice(i + 1));
      tryKey(head + ch + tail);
    }
  }
  return found;
}

/** The consonants a skeleton is written in (normalize.ts skeleton(): vowels, w and y dropped, p/f/v as b, q/c/g
 * as k, z as s), for addNearSkeletons' insertions and substitutions. */
const SKELETON_LETTERS = 'bdhjklmnrst';

/** An unknown word of a company name none of whose one-edit spellings the index knows (addNearTokens) may be a
 * list word with one letter changed, added or dropped that folding moved two edits away (PETROPHUS folds to
 * petrofus, PETROPLUS to petroplus), while their consonant skeletons stay one consonant apart (btrbs, btrbls): so
 * each skeleton with one consonant added or changed (not the first) that the index knows is looked up too, at a
 * neighbour key's weight. Company names only, as addNearTokens; query side only. */
function addNearSkeletons(view: IndexView, sk: string, keys: Map<string, number>): void {
  if (sk.length < 2) return;
  const w = NEIGHBOUR_WEIGHT * keyWeight(KEY_SKEL);
  const tryKey = (v: string): void => {
    const k = KEY_SKEL + v;
    if ((keys.get(k) ?? 0) < w && view.lookup(k) >= 0) keys.set(k, w);
  };
  for (let i = 1; i <= sk.length; i++) {
    const head = sk.slice(0, i);
    for (const ch of SKELETON_LETTERS) {
      // skeleton() merges a consonant with the one before it of its class: such a spelling is not a skeleton
      if (ch !== sk[i - 1] && ch !== sk[i]) tryKey(head + ch + sk.slice(i));
      if (i < sk.length && ch !== sk[i] && ch !== sk[i - 1] && ch !== sk[i + 1])
        tryKey(head + ch + sk.slice(i + 1));
    }
  }
}

/** Shortest one-word query (letters as written) that addGluedWordKeys splits, and the shortest part it splits off. */
const GLUED_WORD_MIN = 8;
const GLUED_PART_MIN = 3;

/** A one-word query the index does not know as a token may be two words of a list name written together
 * (NAZIHZAREER, PETROVICZELIMIR): its letters as written are split at each place leaving 3+ letters on both sides,
 * and where the index knows both parts (folded and read through the variant table, as the index reads words) as
 * tokens, both are looked up at a neighbour key's weight. Not for a company's name: its unknown word's one-edit
 * spellings are looked up instead (addNearTokens), and split words would crowd them out (ELAALOGISTICS is
 * ELGALOGISTICS, not any LOGISTICS). The joined alternative and the letters as written score such a pair; without
 * these keys the list name was never a candidate. Query side only: the index is unchanged. */
function addGluedWordKeys(view: IndexView, q: PreparedName, keys: Map<string, number>): void {
  if (q.tokens.length !== 1 || q.abjad || q.cjk.length > 0) return;
  const raw = q.rawCore || q.raw;
  if (raw.length < GLUED_WORD_MIN || view.lookup(KEY_TOKEN + q.tokens[0]!) >= 0) return;
  for (let i = GLUED_PART_MIN; i <= raw.length - GLUED_PART_MIN; i++) {
    const a = KEY_TOKEN + canonicalWord(raw.slice(0, i));
    const b = KEY_TOKEN + canonicalWord(raw.slice(i));
    if (view.lookup(a) < 0 || view.lookup(b) < 0) continue;
    for (const k of [a, b]) {
      const w = NEIGHBOUR_WEIGHT * keyWeight(k) * Math.min(1, tokenWeight(k.slice(1)) / 4);
      if ((keys.get(k) ?? 0) < w) keys.set(k, w);
    }
  }
}
