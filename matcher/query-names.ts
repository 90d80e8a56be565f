// The query side of a screen: the subject in one shape, its names with their alternative readings, and the
// weighted index keys they and its identifiers give.
import { type KindInfo, subjectIdentifiers, subjectKind } from './features.js';
import type { IndexView } from './index-view.js';
import { KEY_IDENT, KEY_SKEL, KEY_TOKEN, keyWeight, nameKeys } from './keys.js';
import { alternativeReadings, normalizeName } from './normalize.js';
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
  for (const q of queries) addNeighbourKeys(view, q.prepared.get(sk.kind)!, keys);
  const identValues = subjectIdentifiers(subject);
  for (const v of identValues) keys.set(KEY_IDENT + v, keyWeight(KEY_IDENT));
  return { sk, queries, keys, identValues };
}

/** A query token the index does not know (no list name has it) may be a spelling with
 * one extra consonant (Belarusian Пуцін → putsin for Putin, a stray letter): its skeleton with one consonant
 * dropped is looked up too, at half a skeleton key's weight. Query side only: the index is unchanged. */
function addNeighbourKeys(view: IndexView, q: PreparedName, keys: Map<string, number>): void {
  for (let i = 0; i < q.tokens.length; i++) {
    const sk = q.skels[i]!;
    if (sk.length < 4 || view.lookup(KEY_TOKEN + q.tokens[i]!) >= 0) continue;
    const w = NEIGHBOUR_WEIGHT * keyWeight(KEY_SKEL);
    for (let j = 0; j < sk.length; j++) {
      const k = KEY_SKEL + sk.slice(0, j) + sk.slice(j + 1);
      if ((keys.get(k) ?? 0) < w) keys.set(k, w);
    }
  }
}
