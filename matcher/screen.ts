// Screening against a shared index: key lookup (open addressing over typed arrays) → IDF-weighted candidate
// accumulation with a bounded postings budget → name scoring of the best few → features and policy.
import { AML_DATASETS, type AmlDataset, ENTITY_SCHEMAS, type EntitySchema } from '../ingest/entity.js';
import { nameSimilarity } from './alignment.js';
import {
  combine,
  countryFeature,
  dobFeature,
  type KindInfo,
  subjectCountries,
  subjectIdentifiers,
  subjectKind,
  typePenalty,
} from './features.js';
import type { EntityMeta } from './index-build.js';
import { fnv1a, KEY_IDENT, KEY_SKEL, KEY_TOKEN, keyWeight, nameKeys } from './keys.js';
import {
  assertIndexFormat,
  FLAG_ABJAD,
  infoDatasets,
  infoKind,
  infoSchema,
  infoSource,
  NAME_KINDS,
  packNameInfo,
} from './layout.js';
import { cheapBound, exactBound } from './name-bound.js';
import { alternativeReadings, type NormalizedName, normalizeName } from './normalize.js';
import { effectiveThreshold } from './policy.js';
import { type PreparedName, prepareNormalized, retainedCopy, tokenWeight } from './prepared-name.js';
import type { IndexData, Match, ScreenOptions, ScreenResult, ScreenSubject } from './types.js';
import { FEATURES, featureWeight, maxFeatureBonus } from './weights.js';

export interface Screener {
  readonly version: string;
  screen(subject: ScreenSubject, options: ScreenOptions): ScreenResult;
}

/** Postings visited per query before the most common keys are skipped. */
const POSTINGS_BUDGET = 8_000;
/** Weight of a one-consonant-deleted skeleton key relative to a skeleton key. */
const NEIGHBOUR_WEIGHT = 0.5;
/** Prepared candidate names kept per thread. */
const PREPARED_CACHE_MAX = 100_000;
/** Parsed entity metadata kept per thread. */
const META_CACHE_MAX = 50_000;
/** Candidate names fully scored per query. */
const MAX_CANDIDATES = 32;
/** Scope filters (one bit per name each) kept per thread: 64 × 12 KB on the real lists, 64 × 160 KB at 1.3M names. */
const SCOPES_CACHED = 64;
/** Candidates whose retrieval weight is below this fraction of the best are not scored. */
const RELATIVE_CUTOFF = 0.3;
const WEAK_KIND = NAME_KINDS.indexOf('weak');
const ORG_SCHEMAS = new Set<EntitySchema>(['Company', 'Organization']);

const decoder = new TextDecoder();

class IndexView {
  readonly entSchema: Uint8Array;
  readonly entDatasets: Uint16Array;
  readonly entSource: Uint16Array;
  readonly entMetaOff: Uint32Array;
  readonly entMetaBytes: Uint8Array;
  readonly nameEntity: Uint32Array;
  readonly nameKind: Uint8Array;
  readonly nameFlags: Uint8Array;
  readonly nameNormOff: Uint32Array;
  readonly nameNormBytes: Uint8Array;
  readonly nameOrigOff: Uint32Array;
  readonly nameOrigBytes: Uint8Array;
  readonly keyHash: Uint32Array;
  readonly keyOff: Uint32Array;
  readonly keyBytes: Uint8Array;
  readonly keyTable: Int32Array;
  readonly postOff: Uint32Array;
  readonly postings: Uint32Array;
  readonly nEntities: number;
  readonly nNames: number;
  readonly nKeys: number;
  readonly tableMask: number;
  readonly sources: string[];
  private scratch = new Uint8Array(4096);

  constructor(data: IndexData) {
    const b = (k: string): SharedArrayBuffer => {
      const v = data.buffers[k];
      if (!v) throw new Error(`index buffer missing: ${k}`);
      return v;
    };
    this.nEntities = Number(data.meta['entities']);
    this.nNames = Number(data.meta['names']);
    this.nKeys = Number(data.meta['keys']);
    const tableSize = Number(data.meta['table_size']);
    this.tableMask = tableSize - 1;
    this.sources = JSON.parse(String(data.meta['sources'] ?? '[]')) as string[];
    this.entSchema = new Uint8Array(b('entSchema'), 0, this.nEntities);
    this.entDatasets = new Uint16Array(b('entDatasets'), 0, this.nEntities);
    this.entSource = new Uint16Array(b('entSource'), 0, this.nEntities);
    this.entMetaOff = new Uint32Array(b('entMetaOff'), 0, this.nEntities + 1);
    this.entMetaBytes = new Uint8Array(b('entMetaBytes'));
    this.nameEntity = new Uint32Array(b('nameEntity'), 0, this.nNames);
    this.nameKind = new Uint8Array(b('nameKind'), 0, this.nNames);
    this.nameFlags = new Uint8Array(b('nameFlags'), 0, this.nNames);
    this.nameNormOff = new Uint32Array(b('nameNormOff'), 0, this.nNames + 1);
    this.nameNormBytes = new Uint8Array(b('nameNormBytes'));
    this.nameOrigOff = new Uint32Array(b('nameOrigOff'), 0, this.nNames + 1);
    this.nameOrigBytes = new Uint8Array(b('nameOrigBytes'));
    this.keyHash = new Uint32Array(b('keyHash'), 0, this.nKeys);
    this.keyOff = new Uint32Array(b('keyOff'), 0, this.nKeys + 1);
    this.keyBytes = new Uint8Array(b('keyBytes'));
    this.keyTable = new Int32Array(b('keyTable'), 0, tableSize);
    this.postOff = new Uint32Array(b('postOff'), 0, this.nKeys + 1);
    this.postings = new Uint32Array(b('postings'));
  }

  lookup(key: string): number {
    if (this.nKeys === 0) return -1;
    const h = fnv1a(key);
    let slot = h & this.tableMask;
    for (;;) {
      const v = this.keyTable[slot]!;
      if (v === 0) return -1;
      const id = v - 1;
      if (this.keyHash[id] === h && this.keyEquals(id, key)) return id;
      slot = (slot + 1) & this.tableMask;
    }
  }

  private keyEquals(id: number, key: string): boolean {
    const s = this.keyOff[id]!;
    const e = this.keyOff[id + 1]!;
    if (e - s !== key.length) return false;
    for (let i = 0; i < key.length; i++) if (this.keyBytes[s + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  /** UTF-8 decode from shared memory (TextDecoder refuses shared views, so copy to a private scratch). */
  text(bytes: Uint8Array, start: number, end: number): string {
    const len = end - start;
    if (len > this.scratch.length) this.scratch = new Uint8Array(len * 2);
    this.scratch.set(bytes.subarray(start, end));
    return decoder.decode(this.scratch.subarray(0, len));
  }

  /** A name's normalised text as the index stores it: tokens|legal forms|Han, Hangul and kana characters. */
  normText(id: number): string {
    return this.text(this.nameNormBytes, this.nameNormOff[id]!, this.nameNormOff[id + 1]!);
  }

  /** The prepared name of name `id` from its normalised text `s` (normText). */
  normName(id: number, s: string): PreparedName {
    const bar = s.indexOf('|');
    const bar2 = s.indexOf('|', bar + 1);
    const toks = s.slice(0, bar);
    const forms = s.slice(bar + 1, bar2 < 0 ? s.length : bar2);
    const cjk = bar2 < 0 ? '' : s.slice(bar2 + 1);
    const n: NormalizedName = {
      tokens: toks.length ? toks.split(' ') : [],
      legalForms: forms.length ? forms.split(' ') : [],
      abjad: (this.nameFlags[id]! & FLAG_ABJAD) !== 0,
    };
    if (cjk) n.cjk = cjk;
    return prepareNormalized(n);
  }

  origName(id: number): string {
    return this.text(this.nameOrigBytes, this.nameOrigOff[id]!, this.nameOrigOff[id + 1]!);
  }

  entityMeta(e: number): EntityMeta {
    return JSON.parse(
      this.text(this.entMetaBytes, this.entMetaOff[e]!, this.entMetaOff[e + 1]!),
    ) as EntityMeta;
  }
}

interface QueryName {
  raw: string;
  /** the subject's name as given (raw may be an alternative reading of it) */
  shown: string;
  prepared: Map<string, PreparedName>;
}

interface Scope {
  dsMask: number;
  srcAllowed: Uint8Array;
  schemaPen: (number | undefined)[];
  schemaOk: Uint8Array;
  allowWeak: boolean;
}

/** A query name normalised for a kind of name, prepared once per screen. */
function prepared(q: QueryName, kind: KindInfo['kind']): PreparedName {
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
function oneShape(s: ScreenSubject): ScreenSubject {
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

interface EntityBest {
  entity: number;
  name: number;
  /** the name's contribution to the entity's score: its name score weighted, less the weighted weak-alias discount
   * for a weak alias (nameTerms) */
  score: number;
  /** the name score itself */
  nameScore: number;
  query: string;
}

/**
 * Whether a name whose accumulated weight is `acc` (float32, as retrieval keeps it) can no longer reach `cut` when
 * the walked keys still to come add `rest` in all (`restKeys` keys, each at most once per name): retrieval's early
 * stop. Its final weight is acc plus the adds of the keys that post it, each addition rounded to float32 (a
 * relative error of at most 2⁻²⁴ each), so at most (acc + rest)·(1 + 2⁻²⁴)^restKeys ≤ (acc + rest)·(1 + 10⁻⁷ ·
 * (restKeys + 1)); below `cut` = RELATIVE_CUTOFF × the largest weight so far, it stays below topCandidates' cutoff
 * (the largest weight only grows, every add being positive), so the name is not a candidate whatever the later
 * keys add, and a name with no weight yet is not when `rest` alone cannot reach the cut.
 */
export function cannotReach(acc: number, rest: number, restKeys: number, cut: number): boolean {
  return (acc + rest) * (1 + 1e-7 * (restKeys + 1)) < cut;
}

/** What bestNames computed for one content (and org flag) in a screen: per query name the cheap and the exact
 * bound (undefined until computed), and the best name score over the query names (−1 until computed) with the index
 * of the query name that gave it (the first with that score). */
interface ContentMemo {
  cheap: number[];
  exact: number[];
  score: number;
  qi: number;
}

/** Added to a name-score bound before it is tested (floating-point rounding of the two sums). */
const BOUND_MARGIN = 1e-9;

/** How a name enters its entity's score (combine in features.ts): its name score times the name weight, less, for a
 * weak alias, the weak-alias discount times its weight. bestNames keeps per entity the name with the largest such
 * term (the other features are the entity's, the same for each of its names), so the choice and the bounds follow
 * the weights in force: with a fixed penalty in name-score units a weak alias could be preferred to (or dropped for)
 * a name that gives a higher score, or an entity dropped below the floor that would have passed it. */
interface NameTerms {
  wName: number;
  /** the weighted discount of a weak alias, as a penalty (≥ 0 for weights ≥ 0) */
  weakPenalty: number;
}

function nameTerms(options: ScreenOptions): NameTerms {
  const weights = options.policy.feature_weights;
  return {
    wName: featureWeight(weights, 'name'),
    weakPenalty: -FEATURES.weak_alias.weak * featureWeight(weights, 'weak_alias'),
  };
}

/** The term a name with `nameScore` adds to its entity's score. */
function nameTerm(t: NameTerms, nameScore: number, weak: boolean): number {
  const v = nameScore * t.wName;
  return weak ? v - t.weakPenalty : v;
}

/** A name-score bound (nameSimilarityBound) as a bound of the name's term (nameTerm): the margin covers rounding
 * (the bound and the score add the same terms in another order); with the name weight ≥ 0 (nameWeightMonotone)
 * every operation after it is monotone, so the term of a score below the bound stays below the bound's. */
function scoreBound(t: NameTerms, bound: number, weak: boolean): number {
  return nameTerm(t, bound + BOUND_MARGIN, weak);
}

/** The test, for one screen's policy and threshold, of whether an entity whose best name's term (nameTerm) is `term`
 * cannot reach `minThreshold` even with the largest bonus the features give (an exact date of birth and a matching
 * country): it is not a match unless an identifier reached it. It is non-increasing in `term`: it holds for every
 * term below a bound it holds for. */
function belowFloor(options: ScreenOptions, minThreshold: number): (term: number) => boolean {
  const { maxBonus } = floorTerms(options);
  return (term) => term + maxBonus < minThreshold;
}

/** The name weight and the largest bonus the features give (belowFloor's terms). */
function floorTerms(options: ScreenOptions): { wName: number; maxBonus: number } {
  const weights = options.policy.feature_weights;
  return { wName: featureWeight(weights, 'name'), maxBonus: maxFeatureBonus(weights) };
}

/** About the name score belowFloor starts to let through (from where a bound is worth tightening: any value would
 * keep the bound admissible, this one saves the most work). */
function nameFloor(options: ScreenOptions, minThreshold: number): number {
  const { wName, maxBonus } = floorTerms(options);
  return wName > 0 ? (minThreshold - maxBonus) / wName : Number.POSITIVE_INFINITY;
}
const nameWeightMonotone = (options: ScreenOptions): boolean =>
  (options.policy.feature_weights['name'] ?? 1) >= 0;

export function openIndex(data: IndexData): Screener {
  // an index built by other code (older normalisation or layout) is never searched: its owner rebuilds it
  assertIndexFormat(data);
  const view = new IndexView(data);
  // per-name filter facts packed in one word (one random read per posting instead of five): layout.ts PACK
  const nameInfo = new Uint32Array(Math.max(1, view.nNames));
  for (let i = 0; i < view.nNames; i++) {
    const e = view.nameEntity[i]!;
    nameInfo[i] = packNameInfo(
      view.nameKind[i]!,
      view.entSchema[e]!,
      view.entDatasets[e]!,
      view.entSource[e]!,
    );
  }
  // per-query accumulation: the touched names in order of first sighting with their accumulated weight, and an
  // open-addressing table name id + 1 → touched index sized to the postings the query visits (it stays in cache,
  // where per-name arrays cost a random memory read per posting)
  let touched = new Uint32Array(1024);
  let accT = new Float32Array(1024);
  let table = new Int32Array(1024);
  let tableIdx = new Uint32Array(1024);
  // the names still able to pass the relative cutoff once retrieval stops taking new names (one bit per name,
  // cleared after each query), and the adds of the keys walked
  const live = new Uint32Array((view.nNames >>> 5) + 1);
  let keyAdd = new Float64Array(64);
  const heap = new Uint32Array(MAX_CANDIDATES);
  // the scope filter as one bit per name, per scope (policies and dataset sets repeat from query to query)
  const allowedCache = new Map<string, Uint32Array>();
  const version = data.version;
  // prepared candidate names, per thread: list names recur across queries (common tokens, popular names), and
  // decoding + preparing them is a fifth of a query's cost; bounded, cleared when full
  // (an array indexed by name id: a Map lookup cost a hash probe per candidate)
  const preparedCache = new Array<PreparedName | undefined>(view.nNames).fill(undefined);
  let preparedCount = 0;
  // and a copy of each prepared name's packed numbers in one arena (packAt: its offset, −1 if not prepared): the
  // bound's cheap pass reads only these, and an arena of a few MB misses the cache less than a name object and its
  // arrays spread over the heap
  const packAt = new Int32Array(Math.max(1, view.nNames)).fill(-1);
  let arena = new Int32Array(1 << 16);
  let arenaLen = 0;
  // and, for each prepared name, the id of its content (its normalised text and abjad flag, which determine the
  // prepared name and so every bound and score of it): list names recur across lists and entities, and a screen
  // bounds and scores each content once (bestNames). Ids come from a counter that never restarts, so an id never
  // stands for two contents, even when the cache is cleared during a screen
  const contentOf = new Int32Array(Math.max(1, view.nNames));
  const contentIds = new Map<string, number>();
  let nextContent = 0;
  const candidate = (id: number): PreparedName => {
    let p = preparedCache[id];
    if (p === undefined) {
      const text = view.normText(id);
      // a copy from retainedCopy's own allocation sites: prepareNormalized's stay those of short-lived names
      p = retainedCopy(view.normName(id, text));
      if (preparedCount >= PREPARED_CACHE_MAX) {
        preparedCache.fill(undefined);
        packAt.fill(-1);
        contentIds.clear();
        preparedCount = 0;
        arenaLen = 0;
      }
      const key = p.abjad ? `${text}|abjad` : text;
      let cid = contentIds.get(key);
      if (cid === undefined) {
        cid = nextContent++;
        contentIds.set(key, cid);
      }
      contentOf[id] = cid;
      preparedCache[id] = p;
      preparedCount++;
      if (arenaLen + p.packed.length > arena.length) {
        const grown = new Int32Array(Math.max(arena.length * 2, arenaLen + p.packed.length));
        grown.set(arena.subarray(0, arenaLen));
        arena = grown;
      }
      arena.set(p.packed, arenaLen);
      packAt[id] = arenaLen;
      arenaLen += p.packed.length;
    }
    return p;
  };

  // parsed entity metadata, per thread, by entity id: an entity that reaches toMatches for one query (a common name,
  // a listed name) often does for others; bounded, cleared when full. Read only: matches get copies of its arrays.
  const metaCache = new Array<EntityMeta | undefined>(view.nEntities).fill(undefined);
  let metaCount = 0;
  const meta = (e: number): EntityMeta => {
    let m = metaCache[e];
    if (m === undefined) {
      m = view.entityMeta(e);
      if (metaCount >= META_CACHE_MAX) {
        metaCache.fill(undefined);
        metaCount = 0;
      }
      metaCache[e] = m;
      metaCount++;
    }
    return m;
  };

  /**
   * One screen, in phases: the scope filter (datasets, sources, schemas, weak aliases), the query names and their
   * weighted keys, retrieval over the postings (accumulated key weight per candidate name), the best candidates,
   * name scoring (best name per entity), then features, thresholds and the matches.
   */
  function screen(input: ScreenSubject, options: ScreenOptions): ScreenResult {
    const subject = oneShape(input);
    const policy = options.policy;
    const scope = scopeOf(subject, options);
    const { sk, queries, keys, identValues } = queryKeys(subject);
    const { nTouched, identEntities } = retrieve(keys, scope);
    const cands = topCandidates(nTouched, identEntities);
    const minThreshold =
      options.min_score ??
      effectiveThreshold(policy, options.datasets as readonly string[], options.use_case);
    const best = bestNames(subject, sk, queries, cands, identEntities, options, minThreshold);
    const matches = toMatches(subject, options, scope, best, identEntities, identValues, minThreshold);
    matches.sort(
      (a, b) => b.score - a.score || (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0),
    );
    return {
      matches: matches.slice(0, Math.max(0, options.limit ?? 10)),
      dataset_version: version,
      candidates: cands.length,
    };
  }

  /** What the policy and the subject let through: datasets as a bit mask, allowed sources, schema penalties. */
  function scopeOf(subject: ScreenSubject, options: ScreenOptions): Scope {
    const policy = options.policy;
    let dsMask = 0;
    for (const d of options.datasets) {
      const i = AML_DATASETS.indexOf(d);
      if (i >= 0) dsMask |= 1 << i;
    }
    const srcAllowed = new Uint8Array(view.sources.length);
    for (let i = 0; i < view.sources.length; i++) {
      const s = view.sources[i]!;
      const inc = policy.include_sources.length === 0 || policy.include_sources.includes(s);
      srcAllowed[i] = inc && !policy.exclude_sources.includes(s) ? 1 : 0;
    }
    const schemaPen: (number | undefined)[] = ENTITY_SCHEMAS.map((s) => typePenalty(subject.type, s));
    const schemaOk = new Uint8Array(schemaPen.length);
    for (let i = 0; i < schemaPen.length; i++) schemaOk[i] = schemaPen[i] === undefined ? 0 : 1;
    return { dsMask, srcAllowed, schemaPen, schemaOk, allowWeak: policy.include_weak_aliases };
  }

  /** The subject's names (with their alternative readings) and the weighted index keys they and its identifiers
   * give. */
  function queryKeys(subject: ScreenSubject) {
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
      for (const k of keySet) {
        // short tokens identify little even when rare
        const lenW = k[0] === 't' ? Math.min(1, tokenWeight(k.slice(1)) / 4) : 1;
        const w = keyWeight(k) * lenW;
        if ((keys.get(k) ?? 0) < w) keys.set(k, w);
      }
    }
    for (const q of queries) addNeighbourKeys(q.prepared.get(sk.kind)!, keys);
    const identValues = subjectIdentifiers(subject);
    for (const v of identValues) keys.set(KEY_IDENT + v, keyWeight(KEY_IDENT));
    return { sk, queries, keys, identValues };
  }

  /** A query token the index does not know (no list name has it) may be a spelling with
   * one extra consonant (Belarusian Пуцін → putsin for Putin, a stray letter): its skeleton with one consonant
   * dropped is looked up too, at half a skeleton key's weight. Query side only: the index is unchanged. */
  function addNeighbourKeys(q: PreparedName, keys: Map<string, number>): void {
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

  /** One bit per name: in the scope (datasets, sources, schemas, weak aliases) or not. */
  function allowedBits(scope: Scope): Uint32Array {
    const { dsMask, srcAllowed, schemaOk, allowWeak } = scope;
    const weakKind = allowWeak ? -1 : WEAK_KIND;
    let key = `${dsMask}|${weakKind}|`;
    for (let i = 0; i < srcAllowed.length; i++) key += srcAllowed[i] === 1 ? '1' : '0';
    for (let i = 0; i < schemaOk.length; i++) key += schemaOk[i] === 1 ? '1' : '0';
    let bits = allowedCache.get(key);
    if (bits === undefined) {
      bits = new Uint32Array((view.nNames >>> 5) + 1);
      for (let i = 0; i < view.nNames; i++) {
        const info = nameInfo[i]!;
        if (
          infoKind(info) !== weakKind &&
          (infoDatasets(info) & dsMask) !== 0 &&
          srcAllowed[infoSource(info)] === 1 &&
          schemaOk[infoSchema(info)] === 1
        )
          bits[i >>> 5]! |= 1 << (i & 31);
      }
      // tenants' policies and dataset sets give a few scopes each: keep the last SCOPES_CACHED, oldest out first
      if (allowedCache.size >= SCOPES_CACHED) allowedCache.delete(allowedCache.keys().next().value!);
      allowedCache.set(key, bits);
    }
    return bits;
  }

  /** Walks the postings of the keys (rarest first, within a budget), accumulating each in-scope name's weight
   * (touched, accT); returns how many names were touched and the entities an identifier key reached. Once the keys
   * left cannot lift a name to topCandidates' cutoff (cannotReach), it takes no new names and accumulates only the
   * names that can still reach it: the candidates, their weights and their order are those of the full walk. */
  function retrieve(
    keys: Map<string, number>,
    scope: Scope,
  ): { nTouched: number; identEntities: Set<number> } {
    const allowed = allowedBits(scope);
    let nTouched = 0;
    const found: { id: number; w: number; df: number; ident: boolean }[] = [];
    for (const [k, w] of keys) {
      const id = view.lookup(k);
      if (id < 0) continue;
      const df = view.postOff[id + 1]! - view.postOff[id]!;
      found.push({ id, w, df, ident: k[0] === KEY_IDENT });
    }
    found.sort((a, b) => a.df - b.df || a.id - b.id);
    // the keys walked: the two rarest, then others while the budget lasts (identifier keys always)
    const walked: boolean[] = [];
    let visited = 0;
    for (let fi = 0; fi < found.length; fi++) {
      const f = found[fi]!;
      walked.push(!(fi >= 2 && visited + f.df > POSTINGS_BUDGET && !f.ident));
      if (walked[fi]) visited += Math.min(f.df, POSTINGS_BUDGET);
    }
    // the table at most half full: a power of two ≥ twice the postings walked
    let bitsT = 10;
    while (1 << bitsT < 2 * visited) bitsT++;
    const size = 1 << bitsT;
    if (table.length < size) {
      table = new Int32Array(size);
      tableIdx = new Uint32Array(size);
    } else table.fill(0, 0, size);
    const tmask = size - 1;
    const shift = 32 - bitsT;
    if (touched.length < visited) {
      touched = new Uint32Array(visited);
      accT = new Float32Array(visited);
    }
    const identEntities = new Set<number>();
    const N = view.nNames;
    // each walked key's add, and (rest) the sum of the adds of the walked keys after it, for the early stop
    if (keyAdd.length < found.length) keyAdd = new Float64Array(found.length * 2);
    let anyIdent = false;
    let rest = 0;
    let restKeys = 0;
    for (let fi = 0; fi < found.length; fi++) {
      const f = found[fi]!;
      keyAdd[fi] = walked[fi] ? f.w * Math.log(1 + N / f.df) : 0;
      if (!walked[fi]) continue;
      if (f.ident) anyIdent = true;
      rest += keyAdd[fi]!;
      restKeys++;
    }
    // hot loop: typed arrays in locals
    const postings = view.postings;
    const postOff = view.postOff;
    const nameEntity = view.nameEntity;
    // the largest accumulated weight so far (float32, as topCandidates reads it), and whether retrieval has
    // stopped taking new names: then only the live names are accumulated
    let maxAcc = 0;
    let liveOnly = false;
    for (let fi = 0; fi < found.length; fi++) {
      if (!walked[fi]) continue;
      const f = found[fi]!;
      const add = keyAdd[fi]!;
      const s = postOff[f.id]!;
      const e = Math.min(postOff[f.id + 1]!, s + POSTINGS_BUDGET);
      if (!liveOnly && !anyIdent && fi > 0 && cannotReach(0, rest, restKeys, maxAcc * RELATIVE_CUTOFF)) {
        // no name this key or a later one adds can reach topCandidates' cutoff unless it has weight already:
        // the rest of the walk accumulates the names that still can, the others keep a weight under the cutoff
        liveOnly = true;
        const cut = maxAcc * RELATIVE_CUTOFF;
        for (let t = 0; t < nTouched; t++)
          if (!cannotReach(accT[t]!, rest, restKeys, cut)) {
            const nameId = touched[t]!;
            live[nameId >>> 5]! |= 1 << (nameId & 31);
          }
      }
      rest -= add;
      restKeys--;
      if (liveOnly) {
        for (let p = s; p < e; p++) {
          const nameId = postings[p]!;
          if ((live[nameId >>> 5]! & (1 << (nameId & 31))) === 0) continue;
          let h = Math.imul(nameId, 0x9e3779b1) >>> shift;
          while (table[h] !== nameId + 1) h = (h + 1) & tmask;
          const ti = tableIdx[h]!;
          accT[ti] = accT[ti]! + add;
        }
        continue;
      }
      for (let p = s; p < e; p++) {
        const nameId = postings[p]!;
        if ((allowed[nameId >>> 5]! & (1 << (nameId & 31))) === 0) continue;
        let h = Math.imul(nameId, 0x9e3779b1) >>> shift;
        for (;;) {
          const k = table[h]!;
          if (k === 0) {
            table[h] = nameId + 1;
            tableIdx[h] = nTouched;
            touched[nTouched] = nameId;
            accT[nTouched++] = add;
            const a = Math.fround(add);
            if (a > maxAcc) maxAcc = a;
            break;
          }
          if (k === nameId + 1) {
            const ti = tableIdx[h]!;
            const a = Math.fround(accT[ti]! + add);
            accT[ti] = a;
            if (a > maxAcc) maxAcc = a;
            break;
          }
          h = (h + 1) & tmask;
        }
        if (f.ident) identEntities.add(nameEntity[nameId]!);
      }
    }
    if (liveOnly) for (let t = 0; t < nTouched; t++) live[touched[t]! >>> 5] = 0;
    return { nTouched, identEntities };
  }

  /** The MAX_CANDIDATES best touched names by accumulated weight (and every name of an entity an identifier
   * reached), in name id order. */
  function topCandidates(nTouched: number, identEntities: Set<number>): number[] {
    let maxAcc = 0;
    for (let i = 0; i < nTouched; i++) {
      const a = accT[i]!;
      if (a > maxAcc) maxAcc = a;
    }
    const cut = maxAcc * RELATIVE_CUTOFF;
    // the MAX_CANDIDATES best by accumulated weight (ties: lower name id), with a bounded min-heap of touched
    // indexes: a common name can touch tens of thousands of names on a 1M index, and sorting them all costs
    // milliseconds
    let hn = 0;
    const better = (a: number, b: number): boolean =>
      accT[a]! > accT[b]! || (accT[a] === accT[b] && touched[a]! < touched[b]!);
    for (let t = 0; t < nTouched; t++) {
      if (accT[t]! < cut) continue;
      if (hn < MAX_CANDIDATES) {
        let j = hn++;
        while (j > 0) {
          const parent = (j - 1) >> 1;
          if (!better(heap[parent]!, t)) break;
          heap[j] = heap[parent]!;
          j = parent;
        }
        heap[j] = t;
      } else if (better(t, heap[0]!)) {
        let j = 0;
        for (;;) {
          const l = 2 * j + 1;
          if (l >= hn) break;
          const r = l + 1;
          const w = r < hn && better(heap[l]!, heap[r]!) ? r : l;
          if (!better(t, heap[w]!)) break;
          heap[j] = heap[w]!;
          j = w;
        }
        heap[j] = t;
      }
    }
    const cands: number[] = [];
    for (let j = 0; j < hn; j++) cands.push(touched[heap[j]!]!);
    if (identEntities.size > 0) {
      // identifier hits are always scored, whatever their names
      const kept = new Set(cands);
      for (let t = 0; t < nTouched; t++) {
        const id = touched[t]!;
        if (!kept.has(id) && identEntities.has(view.nameEntity[id]!)) cands.push(id);
      }
    }
    // ascending name ids (distinct): an insertion sort of these few numbers, no comparator calls
    for (let i = 1; i < cands.length; i++) {
      const v = cands[i]!;
      let k = i;
      while (k > 0 && cands[k - 1]! > v) {
        cands[k] = cands[k - 1]!;
        k--;
      }
      cands[k] = v;
    }
    return cands;
  }

  /** Scores every candidate name against every query name; keeps the best name per entity. A name whose score
   * bound (nameSimilarityBound) cannot pass toMatches' first test, or cannot exceed the score of its entity's best
   * name so far, is not scored: it could not be its entity's match, so the matches are the same (identifier hits
   * are always scored). */
  function bestNames(
    subject: ScreenSubject,
    sk: KindInfo,
    queries: QueryName[],
    cands: number[],
    identEntities: Set<number>,
    options: ScreenOptions,
    minThreshold: number,
  ): Map<number, EntityBest> {
    const best = new Map<number, EntityBest>();
    const bounded = nameWeightMonotone(options);
    const below = belowFloor(options, minThreshold);
    const terms = nameTerms(options);
    const floor = nameFloor(options, minThreshold);
    // the name score from which a weak alias's term can pass the floor (where its bound is worth tightening)
    const weakFloor = floor + (terms.wName > 0 ? terms.weakPenalty / terms.wName : 0);
    const qs = queries.map((q) => prepared(q, sk.kind));
    // the bounds and scores of each content (contentOf) and org flag met in this screen: a name with the content
    // of an earlier candidate takes its values instead of computing them again (they are the same numbers, and the
    // decisions below are taken as before)
    const memo = new Map<number, ContentMemo>();
    for (const id of cands) {
      const e = view.nameEntity[id]!;
      const schema = ENTITY_SCHEMAS[view.entSchema[e]!]!;
      const org = sk.org || (subject.type === undefined && ORG_SCHEMAS.has(schema));
      const cand = candidate(id);
      const memoKey = contentOf[id]! * 2 + (org ? 1 : 0);
      let m = memo.get(memoKey);
      if (m === undefined) {
        m = { cheap: [], exact: [], score: -1, qi: 0 };
        memo.set(memoKey, m);
      }
      const weakName = view.nameKind[id] === WEAK_KIND;
      const prev = best.get(e);
      if (bounded && !identEntities.has(e)) {
        // nameSimilarityBound in two calls: the cheap pass from the arena, the exact pass where the cheap one does
        // not rule the name out. A name is ruled out when its bound cannot pass toMatches' first test, or cannot
        // beat its entity's best name so far (only a higher score replaces it)
        const exactFrom = (weakName ? weakFloor : floor) - BOUND_MARGIN;
        const prevScore = prev === undefined ? Number.NEGATIVE_INFINITY : prev.score;
        const at = packAt[id]!;
        let ub = 0;
        for (let qi = 0; qi < qs.length; qi++) {
          const q = qs[qi]!;
          let b = m.cheap[qi];
          if (b === undefined) {
            b = cheapBound(q.packed, 0, arena, at, org);
            m.cheap[qi] = b;
          }
          if (b >= exactFrom && scoreBound(terms, b, weakName) > prevScore) {
            let x = m.exact[qi];
            if (x === undefined) {
              x = exactBound(q, cand, arena, at, org);
              m.exact[qi] = x;
            }
            b = x;
          }
          if (b > ub) ub = b;
        }
        const sb = scoreBound(terms, ub, weakName);
        if (below(sb) || sb <= prevScore) continue;
      }
      if (m.score < 0) {
        let v0 = 0;
        for (let qi = 0; qi < qs.length; qi++) {
          const v = nameSimilarity(qs[qi]!, cand, org);
          if (v > v0) {
            v0 = v;
            m.qi = qi;
          }
        }
        m.score = v0;
      }
      const s = nameTerm(terms, m.score, weakName);
      const qBest = queries[m.qi]?.shown ?? subject.name;
      if (!prev || s > prev.score)
        best.set(e, { entity: e, name: id, score: s, nameScore: m.score, query: qBest });
    }

    return best;
  }

  /** Adds the features (dates of birth, countries, identifiers, type, weak alias) to each entity's best name score
   * and keeps those at or above their effective threshold. */
  function toMatches(
    subject: ScreenSubject,
    options: ScreenOptions,
    scope: Scope,
    best: Map<number, EntityBest>,
    identEntities: Set<number>,
    identValues: string[],
    minThreshold: number,
  ): Match[] {
    const { policy } = options;
    const weights = policy.feature_weights;
    const schemaPen = scope.schemaPen;
    const below = belowFloor(options, minThreshold);
    const sCountries = subjectCountries(subject);
    const matches: Match[] = [];
    for (const b of [...best.values()].sort((x, y) => x.entity - y.entity)) {
      const ident = identEntities.has(b.entity);
      if (!ident && below(b.score)) continue;
      const m = meta(b.entity);
      const weak = view.nameKind[b.name] === WEAK_KIND;
      const identifier =
        ident &&
        m.identifiers.some((i) => identValues.includes(i.value.toUpperCase().replace(/[^A-Z0-9]/g, '')));
      const combined = combine(
        b.nameScore,
        {
          dob: dobFeature(subject.date_of_birth, m.birth_dates),
          country: countryFeature(sCountries, [...m.nationalities, ...m.countries]),
          identifier,
          type: schemaPen[view.entSchema[b.entity]!],
          weak,
        },
        weights,
      );
      const inScope = m.datasets.filter((d: AmlDataset) => options.datasets.includes(d));
      const threshold = effectiveThreshold(policy, inScope, options.use_case);
      const floor = options.min_score ?? threshold;
      if (combined.score < floor) continue;
      matches.push({
        entity_id: m.entity_id,
        source: m.source,
        source_id: m.source_id,
        schema: m.schema,
        name: m.name,
        score: combined.score,
        // copies: the parsed metadata is shared by later screens
        datasets: m.datasets.slice(),
        programs: m.programs.slice(),
        evidence: {
          query_name: b.query,
          matched_name: view.origName(b.name),
          matched_name_kind: NAME_KINDS[view.nameKind[b.name]!] ?? 'alias',
          features: combined.features,
          threshold,
          dataset_version: version,
        },
      });
    }
    return matches;
  }

  return { version, screen };
}
