// Entity consolidation across lists, at dataset build: entries of different sources that are the same real-world
// entity are linked, each link with a rule, a score and a reason an analyst can check, and the links group the
// entries into consolidated entities. Offline and deterministic: the same entities (in any order) give the same
// links. Rules, strongest first (docs/matching.md §8):
//
//   identifier  a shared strong identifier: the UN reference number (the UN list's own, the UK list's
//               un_reference_number), an IMO or MMSI number, a passport, national id, registration, tax id, LEI or
//               SWIFT/BIC of the same type and value (and the same issuing country where both give one), between
//               entries of compatible kinds whose names do not contradict each other;
//   ofac_ent_num the US consolidated screening list's rows from OFAC carry OFAC's own entry number as their id;
//   name_dob_nationality (people) a strong name agreement, a shared full date of birth and a shared nationality,
//               no other date of birth in conflict;
//   name_country (organisations, vessels, aircraft) the same name after normalisation, of at least two words, and a
//               shared country.
//
// Two entries of the same source are never linked, directly or through others: links are accepted strongest first
// and a link that would put two entries of one source into one entity is refused. A name rule that finds more than
// one partner in a source for an entry links none (it cannot tell which).
import type { Entity, EntitySchema } from '../ingest/entity.js';
import { nameSimilarity } from './alignment.js';
import { schemaKind } from './features.js';
import { normalizeName } from './normalize.js';
import { type PreparedName, prepareName } from './prepared-name.js';

export type LinkRule = 'identifier' | 'ofac_ent_num' | 'name_dob_nationality' | 'name_country';

/** One link between two entries (a < b by entity id). */
export interface EntityLink {
  a: string;
  b: string;
  rule: LinkRule;
  /** 0..1: how sure the rule is (identifier links near 1) */
  score: number;
  /** what agreed, for the analyst: the identifier, the names, the date and the country */
  reason: string;
}

export interface Consolidation {
  /** the accepted links, strongest first, then by entity ids */
  links: EntityLink[];
  /** entity id → its consolidated entity's id, for entries linked to at least one other */
  clusterOf: Map<string, string>;
  /** entries before consolidation and consolidated entities after */
  entities_before: number;
  entities_after: number;
  /** links found but refused: they would have joined two entries of one source */
  refused: number;
}

/** The order in which a consolidated entity's id is chosen among its entries: the UN list first (the other lists
 * carry its references), then the national lists, then the aggregated ones; then by entity id. */
const SOURCE_RANK: readonly string[] = [
  'un_sc',
  'us_ofac_sdn',
  'gb_fcdo',
  'us_ofac_cons',
  'us_csl',
  'us_bis_dpl',
  'opensanctions',
  'us_congress',
];

const rank = (source: string): number => {
  const i = SOURCE_RANK.indexOf(source);
  return i < 0 ? SOURCE_RANK.length : i;
};

/** The consolidated id of a group of entries: the entity id of its first entry in SOURCE_RANK order. */
export function consolidatedIdOf(members: readonly { entity_id: string; source: string }[]): string {
  let best: { entity_id: string; source: string } | undefined;
  for (const m of members) {
    if (
      best === undefined ||
      rank(m.source) < rank(best.source) ||
      (rank(m.source) === rank(best.source) && m.entity_id < best.entity_id)
    )
      best = m;
  }
  if (best === undefined) throw new Error('consolidatedIdOf: no members');
  return best.entity_id;
}

type KindClass = 'person' | 'org' | 'vessel' | 'aircraft' | 'any';

function kindClass(schema: EntitySchema): KindClass {
  switch (schema) {
    case 'Person':
      return 'person';
    case 'Organization':
    case 'Company':
      return 'org';
    case 'Vessel':
      return 'vessel';
    case 'Aircraft':
      return 'aircraft';
    default:
      return 'any';
  }
}

/** Whether two schemas may be the same entity: the same class, or a LegalEntity (a list that does not say whether
 * it is a person or an organisation) with a person or an organisation. */
export function compatibleSchemas(a: EntitySchema, b: EntitySchema): boolean {
  const x = kindClass(a);
  const y = kindClass(b);
  if (x === y) return true;
  if (x === 'any') return y === 'person' || y === 'org';
  if (y === 'any') return x === 'person' || x === 'org';
  return false;
}

/** Identifier types that name one entity, with the score of a link on a shared value and whether the issuing
 * countries must agree where both are given. Other types (call signs, crypto wallets, "other") are not used:
 * call signs are reused, wallets are shared between associates. */
const STRONG_IDENTIFIERS: Readonly<Record<string, { score: number; minLength: number; names: number }>> = {
  // the UN's own reference (e.g. KPe.003): unique on the UN list, copied by the national lists
  un_reference: { score: 1, minLength: 5, names: 0 },
  imo: { score: 0.99, minLength: 7, names: 0.5 },
  mmsi: { score: 0.98, minLength: 9, names: 0.5 },
  // documents of people and registers of companies: a copying error or a shared family document is possible, so
  // the names must also agree reasonably
  passport: { score: 0.97, minLength: 6, names: 0.75 },
  national_id: { score: 0.97, minLength: 6, names: 0.75 },
  registration: { score: 0.96, minLength: 6, names: 0.75 },
  tax_id: { score: 0.96, minLength: 6, names: 0.75 },
  lei: { score: 0.98, minLength: 20, names: 0.6 },
  swift_bic: { score: 0.97, minLength: 8, names: 0.6 },
};

/** Name agreement the name rules ask for: a person's best name pair at or above this similarity. */
export const PERSON_NAME_MIN = 0.92;
/** When a name rule finds several partners in one source, the best must lead the next by this much. */
const AMBIGUITY_MARGIN = 0.05;
const EXACT = 0.9999;
/** Names of an entry compared by the name rules (the strongest first; lists put the primary name first). */
const NAMES_COMPARED = 12;

interface Entry {
  e: Entity;
  kind: ReturnType<typeof schemaKind>;
  prepared: PreparedName[] | undefined;
  names: string[] | undefined;
  keys: string[] | undefined;
  /** name key → the first name of the entry that gives it, as the list writes it */
  keyNames: Map<string, string> | undefined;
}

/** The entry's primary, alias and former names (weak aliases are not evidence of identity). */
function strongNames(e: Entity): string[] {
  return e.names
    .filter((n) => n.kind !== 'weak')
    .slice(0, NAMES_COMPARED)
    .map((n) => n.value);
}

/** The entry's i-th strong name, prepared on first use (most pairs agree on their first names, and preparing every
 * alias of every entry was most of the linking time). */
function preparedAt(x: Entry, names: string[], i: number): PreparedName {
  x.prepared ??= [];
  let p = x.prepared[i];
  if (p === undefined) {
    p = prepareName(names[i]!, x.kind.kind);
    x.prepared[i] = p;
  }
  return p;
}

/** The best name pair of two entries: its similarity and the two names as the lists write them. */
export function bestNamePair(a: Entity, b: Entity): { score: number; a: string; b: string } {
  const ka = schemaKind(a.schema);
  const kb = schemaKind(b.schema);
  const kind = ka.kind !== 'any' ? ka : kb;
  return bestPair(entry(a, kind), entry(b, kind));
}

function entry(e: Entity, kind = schemaKind(e.schema)): Entry {
  return { e, kind, prepared: undefined, names: undefined, keys: undefined, keyNames: undefined };
}

function bestPair(x: Entry, y: Entry): { score: number; a: string; b: string } {
  x.names ??= strongNames(x.e);
  y.names ??= strongNames(y.e);
  const nx = x.names;
  const ny = y.names;
  const org = x.kind.org || y.kind.org;
  let best = { score: 0, a: nx[0] ?? '', b: ny[0] ?? '' };
  for (let i = 0; i < nx.length; i++)
    for (let j = 0; j < ny.length; j++) {
      const s = nameSimilarity(preparedAt(x, nx, i), preparedAt(y, ny, j), org);
      if (s > best.score) best = { score: s, a: nx[i]!, b: ny[j]! };
      // nothing beats an exact agreement: the rest of the pairs need not be compared
      if (best.score >= EXACT) return best;
    }
  return best;
}

/** An organisation's, vessel's or aircraft's name keys: its normalised words in sorted order, for names of at
 * least two words (one word, "SAIPA", "ANSAR", is too common across unrelated entities to link on). */
function nameKeysOf(x: Entry): string[] {
  if (x.keys === undefined) {
    const out = new Map<string, string>();
    for (const n of strongNames(x.e)) {
      const toks = normalizeName(n, x.kind.kind).tokens;
      if (toks.length < 2) continue;
      const k = [...toks].sort().join(' ');
      if (!out.has(k)) out.set(k, n);
    }
    x.keyNames = out;
    x.keys = [...out.keys()].sort();
  }
  return x.keys;
}

const placesOf = (e: Entity): Set<string> => new Set([...e.nationalities, ...e.countries]);

function shared<T>(a: Iterable<T>, b: ReadonlySet<T>): T[] {
  const out: T[] = [];
  for (const v of a) if (b.has(v)) out.push(v);
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The identifier rule over all entries: one candidate link per pair of entries of different sources sharing a
 * strong identifier (the first such identifier in type order gives the reason). */
export function identifierLinks(entries: readonly Entity[]): EntityLink[] {
  const byKey = new Map<string, Entity[]>();
  for (const e of entries) {
    for (const id of e.identifiers) {
      const def = STRONG_IDENTIFIERS[id.type];
      if (def === undefined || id.value.length < def.minLength) continue;
      // national lists write the same document under different labels (passport / national id): same type only
      const k = `${id.type}\u0000${id.value}`;
      let list = byKey.get(k);
      if (list === undefined) {
        list = [];
        byKey.set(k, list);
      }
      if (!list.includes(e)) list.push(e);
    }
  }
  const found = new Map<string, EntityLink>();
  const cache = new Map<Entity, Entry>();
  const entryOf = (e: Entity) => {
    let x = cache.get(e);
    if (x === undefined) {
      x = entry(e);
      cache.set(e, x);
    }
    return x;
  };
  for (const k of [...byKey.keys()].sort()) {
    const list = byKey.get(k)!;
    if (list.length < 2) continue;
    const [type, value] = k.split('\u0000') as [string, string];
    const def = STRONG_IDENTIFIERS[type]!;
    // a value held by two entries of one source is not one entity's (a family's document, a registry reused)
    const sources = list.map((e) => e.source);
    if (new Set(sources).size !== sources.length) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = order(list[i]!, list[j]!);
        if (a.source === b.source || !compatibleSchemas(a.schema, b.schema)) continue;
        const ca = a.identifiers.find((x) => x.type === type && x.value === value)?.country;
        const cb = b.identifiers.find((x) => x.type === type && x.value === value)?.country;
        if (ca !== undefined && cb !== undefined && ca !== cb) continue;
        const pairKey = `${a.entity_id}\u0000${b.entity_id}`;
        if (found.has(pairKey)) continue;
        let names = '';
        if (def.names > 0) {
          const p = bestPair(entryOf(a), entryOf(b));
          if (p.score < def.names) continue;
          names = `; names "${p.a}" ~ "${p.b}" (${round(p.score)})`;
        }
        found.set(pairKey, {
          a: a.entity_id,
          b: b.entity_id,
          rule: 'identifier',
          score: def.score,
          reason: `same ${type} ${value}${(ca ?? cb) ? ` (${ca ?? cb})` : ''}${names}`,
        });
      }
  }
  return [...found.values()];
}

/** The CSL rows that come from OFAC's lists keep OFAC's entry number as their id (us_csl:<ent_num>): linked to the
 * OFAC entry of that number when their names agree (the CSL copy may be older than the OFAC file). */
export function ofacEntNumLinks(entries: readonly Entity[]): EntityLink[] {
  const ofac = new Map<string, Entity>();
  for (const e of entries)
    if (e.source === 'us_ofac_sdn' || e.source === 'us_ofac_cons') ofac.set(e.source_id, e);
  const out: EntityLink[] = [];
  for (const c of entries) {
    if (c.source !== 'us_csl' || !/^\d+$/.test(c.source_id)) continue;
    const o = ofac.get(c.source_id);
    if (o === undefined || !compatibleSchemas(c.schema, o.schema)) continue;
    const p = bestNamePair(o, c);
    if (p.score < 0.9) continue;
    const [a, b] = order(o, c);
    out.push({
      a: a.entity_id,
      b: b.entity_id,
      rule: 'ofac_ent_num',
      score: 0.99,
      reason: `OFAC entry number ${c.source_id} on both; names "${p.a}" ~ "${p.b}" (${round(p.score)})`,
    });
  }
  return out;
}

/** Picks, for each entry and each other source, the one partner the rule found, or none when two are too close to
 * call. `cands`: candidate links with their name score. */
function unambiguous(cands: { link: EntityLink; a: Entity; b: Entity; name: number }[]): EntityLink[] {
  // best and runner-up name score per (entry, other source)
  const top = new Map<string, { best: number; second: number; link: EntityLink | undefined }>();
  const note = (e: Entity, other: Entity, c: (typeof cands)[number]) => {
    const k = `${e.entity_id}\u0000${other.source}`;
    const t = top.get(k) ?? { best: -1, second: -1, link: undefined };
    if (c.name > t.best) {
      t.second = t.best;
      t.best = c.name;
      t.link = c.link;
    } else if (c.name > t.second) t.second = c.name;
    top.set(k, t);
  };
  for (const c of cands) {
    note(c.a, c.b, c);
    note(c.b, c.a, c);
  }
  const clear = (e: Entity, other: Entity, link: EntityLink) => {
    const t = top.get(`${e.entity_id}\u0000${other.source}`)!;
    return t.link === link && t.best - t.second >= AMBIGUITY_MARGIN;
  };
  return cands.filter((c) => clear(c.a, c.b, c.link) && clear(c.b, c.a, c.link)).map((c) => c.link);
}

/** People: a strong name agreement, a shared full date of birth, a shared nationality (or country), and no date of
 * birth of either at day precision that the other contradicts. Blocked by full date of birth. */
export function personLinks(entries: readonly Entity[]): EntityLink[] {
  const byDob = new Map<string, Entry[]>();
  for (const e of entries) {
    if (kindClass(e.schema) !== 'person') continue;
    const x = entry(e);
    for (const d of e.birth_dates) {
      if (d.length !== 10) continue;
      let list = byDob.get(d);
      if (list === undefined) {
        list = [];
        byDob.set(d, list);
      }
      list.push(x);
    }
  }
  const cands = new Map<string, { link: EntityLink; a: Entity; b: Entity; name: number }>();
  for (const dob of [...byDob.keys()].sort()) {
    const list = byDob.get(dob)!;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const [x, y] = order(list[i]!, list[j]!, (v) => v.e);
        const a = x.e;
        const b = y.e;
        if (a.source === b.source) continue;
        const pairKey = `${a.entity_id}\u0000${b.entity_id}`;
        if (cands.has(pairKey)) continue;
        const nat = shared(placesOf(a), placesOf(b)).sort();
        if (nat.length === 0) continue;
        const p = bestPair(x, y);
        if (p.score < PERSON_NAME_MIN) continue;
        cands.set(pairKey, {
          a,
          b,
          name: p.score,
          link: {
            a: a.entity_id,
            b: b.entity_id,
            rule: 'name_dob_nationality',
            score: round(0.8 + 0.15 * p.score),
            reason: `names "${p.a}" ~ "${p.b}" (${round(p.score)}); date of birth ${dob}; nationality ${nat.join(', ')}`,
          },
        });
      }
  }
  return unambiguous([...cands.values()]);
}

/** Organisations, vessels and aircraft: the same normalised name of two words or more and a shared country.
 * Blocked by name key; more names in common give a higher score. */
export function orgLinks(entries: readonly Entity[]): EntityLink[] {
  const byKey = new Map<string, Entry[]>();
  const entries2: Entry[] = [];
  for (const e of entries) {
    const c = kindClass(e.schema);
    if (c === 'person') continue;
    const x = entry(e);
    entries2.push(x);
    for (const k of nameKeysOf(x)) {
      let list = byKey.get(k);
      if (list === undefined) {
        list = [];
        byKey.set(k, list);
      }
      list.push(x);
    }
  }
  const cands = new Map<string, { link: EntityLink; a: Entity; b: Entity; name: number }>();
  for (const k of [...byKey.keys()].sort()) {
    const list = byKey.get(k)!;
    if (list.length < 2) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const [x, y] = order(list[i]!, list[j]!, (v) => v.e);
        const a = x.e;
        const b = y.e;
        if (a.source === b.source || !compatibleSchemas(a.schema, b.schema)) continue;
        // a LegalEntity (a list that does not say) links to an organisation here, never to a person
        if (kindClass(a.schema) === 'any' && kindClass(b.schema) === 'any') continue;
        const pairKey = `${a.entity_id}\u0000${b.entity_id}`;
        if (cands.has(pairKey)) continue;
        const places = shared(placesOf(a), placesOf(b)).sort();
        if (places.length === 0) continue;
        const common = shared(nameKeysOf(x), new Set(nameKeysOf(y)));
        const score = round(Math.min(0.97, 0.9 + 0.03 * (common.length - 1)));
        // the reason shows the strongest name in common (the primary name before aliases)
        const commonSet = new Set(common);
        const shown = [...(x.keyNames?.keys() ?? [])].find((n) => commonSet.has(n)) ?? k;
        cands.set(pairKey, {
          a,
          b,
          name: common.length,
          link: {
            a: a.entity_id,
            b: b.entity_id,
            rule: 'name_country',
            score,
            reason: `same name "${x.keyNames?.get(shown) ?? shown}" ~ "${y.keyNames?.get(shown) ?? shown}"${common.length > 1 ? ` (${common.length} names in common)` : ''}; country ${places.join(', ')}`,
          },
        });
      }
  }
  // several partners in one source with the same name and country: none is linked (AMBIGUITY_MARGIN > 0 and the
  // name score here is the count of names in common, so a tie on it is ambiguous)
  return unambiguous([...cands.values()]);
}

function order<T>(x: T, y: T, ent: (v: T) => Entity = (v) => v as unknown as Entity): [T, T] {
  return ent(x).entity_id < ent(y).entity_id ? [x, y] : [y, x];
}

/** The link rules in the order they are tried (a pair linked by an earlier rule keeps that rule's link). */
export const LINK_RULES: readonly { rule: LinkRule; find: (entries: readonly Entity[]) => EntityLink[] }[] = [
  { rule: 'identifier', find: identifierLinks },
  { rule: 'ofac_ent_num', find: ofacEntNumLinks },
  { rule: 'name_dob_nationality', find: personLinks },
  { rule: 'name_country', find: orgLinks },
];

/** Groups entries by accepted links (union-find). `links` are assumed consistent (no two entries of one source in a
 * group): true of consolidate()'s output and of the links stored with a dataset version. */
export function clustersFrom(
  entities: readonly { entity_id: string; source: string }[],
  links: readonly Pick<EntityLink, 'a' | 'b'>[],
): Map<string, string> {
  const uf = new UnionFind();
  for (const l of links) uf.union(l.a, l.b);
  const groups = new Map<string, { entity_id: string; source: string }[]>();
  for (const e of entities) {
    if (!uf.has(e.entity_id)) continue;
    const root = uf.find(e.entity_id);
    let g = groups.get(root);
    if (g === undefined) {
      g = [];
      groups.set(root, g);
    }
    g.push(e);
  }
  const out = new Map<string, string>();
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const id = consolidatedIdOf(g);
    for (const m of g) out.set(m.entity_id, id);
  }
  return out;
}

/** Links the entries of different sources that are the same entity (the rules above) and groups them. */
export function consolidate(entities: readonly Entity[]): Consolidation {
  // input order must not matter: entries by entity id
  const sorted = [...entities].sort((x, y) => (x.entity_id < y.entity_id ? -1 : 1));
  // one source: nothing can be linked, and a large single list is built without the rules' cost
  if (new Set(sorted.map((e) => e.source)).size < 2)
    return {
      links: [],
      clusterOf: new Map(),
      entities_before: sorted.length,
      entities_after: sorted.length,
      refused: 0,
    };
  const byId = new Map(sorted.map((e) => [e.entity_id, e]));
  const all = new Map<string, EntityLink>();
  for (const r of LINK_RULES)
    for (const l of r.find(sorted)) {
      const k = `${l.a}\u0000${l.b}`;
      if (!all.has(k)) all.set(k, l);
    }
  const cands = [...all.values()].sort(
    (x, y) => y.score - x.score || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0),
  );
  const uf = new UnionFind();
  const sourcesOf = new Map<string, Set<string>>();
  const srcSet = (id: string): Set<string> => {
    const root = uf.find(id);
    let s = sourcesOf.get(root);
    if (s === undefined) {
      s = new Set([byId.get(id)!.source]);
      sourcesOf.set(root, s);
    }
    return s;
  };
  const links: EntityLink[] = [];
  let refused = 0;
  for (const l of cands) {
    const ra = uf.find(l.a);
    const rb = uf.find(l.b);
    if (ra === rb) {
      links.push(l);
      continue;
    }
    const sa = srcSet(l.a);
    const sb = srcSet(l.b);
    if (shared(sa, sb).length > 0) {
      refused++;
      continue;
    }
    uf.union(l.a, l.b);
    const merged = new Set([...sa, ...sb]);
    sourcesOf.delete(ra);
    sourcesOf.delete(rb);
    sourcesOf.set(uf.find(l.a), merged);
    links.push(l);
  }
  const clusterOf = clustersFrom(sorted, links);
  const grouped = new Set(clusterOf.values()).size;
  return {
    links,
    clusterOf,
    entities_before: sorted.length,
    entities_after: sorted.length - clusterOf.size + grouped,
    refused,
  };
}

class UnionFind {
  private readonly parent = new Map<string, string>();
  has(x: string): boolean {
    return this.parent.has(x);
  }
  find(x: string): string {
    let p = this.parent.get(x);
    if (p === undefined) {
      this.parent.set(x, x);
      return x;
    }
    let r = x;
    while (p !== r) {
      r = p;
      p = this.parent.get(r)!;
    }
    // path compression
    let c = x;
    while (c !== r) {
      const n = this.parent.get(c)!;
      this.parent.set(c, r);
      c = n;
    }
    return r;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    // deterministic: the smaller id becomes the root
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }
}
