// Builds the shared, immutable candidate index. Everything a worker needs lives in SharedArrayBuffers so
// N worker threads wrap the same memory; JS Maps are used only while building.
import { AML_DATASETS, ENTITY_SCHEMAS, type Entity } from '../ingest/entity.js';
import { normIdentifier } from './features.js';
import { KEY_IDENT, nameKeys, schemaNameKind, tokenKeys } from './keys.js';
import { assertLayoutFits, engineCounts, FLAG_ABJAD, INDEX_FORMAT, NAME_KINDS } from './layout.js';
import { beforeSlash, buildFoldCache, type NameKind, normalizeName } from './normalize.js';
import type { IndexData, IndexStats } from './types.js';

/** The metadata decoded for scored candidates only. */
export interface EntityMeta {
  entity_id: string;
  source: string;
  source_id: string;
  schema: Entity['schema'];
  name: string;
  datasets: Entity['datasets'];
  programs: string[];
  birth_dates: string[];
  nationalities: string[];
  countries: string[];
  identifiers: { type: string; value: string }[];
  /** a consolidated entity of several entries (matcher/consolidate.ts): its id and its entries' entity numbers in
   * this index, this one included, ascending; absent for an entry linked to no other */
  consolidated_id?: string;
  cluster?: number[];
}

class ByteTable {
  private buf = new Uint8Array(1 << 16);
  private len = 0;
  readonly offsets: number[] = [0];
  private readonly enc = new TextEncoder();
  add(s: string): void {
    // worst case 3 bytes per UTF-16 unit
    if (this.len + s.length * 3 > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + s.length * 3));
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) {
        ascii = false;
        break;
      }
      this.buf[this.len + i] = c;
    }
    if (ascii) this.len += s.length;
    else this.len += this.enc.encodeInto(s, this.buf.subarray(this.len)).written;
    this.offsets.push(this.len);
  }
  /** Whether entry `i` is the ASCII string `s` (a non-ASCII entry has more bytes than characters). */
  equalsAscii(i: number, s: string): boolean {
    const from = this.offsets[i]!;
    if (this.offsets[i + 1]! - from !== s.length) return false;
    const buf = this.buf;
    for (let j = 0; j < s.length; j++) if (buf[from + j] !== s.charCodeAt(j)) return false;
    return true;
  }
  bytes(): SharedArrayBuffer {
    const sab = new SharedArrayBuffer(Math.max(1, this.len));
    new Uint8Array(sab).set(this.buf.subarray(0, this.len));
    return sab;
  }
  offsetsSab(): SharedArrayBuffer {
    return u32Sab(this.offsets);
  }
}

function u32Sab(values: ArrayLike<number>): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(Math.max(4, values.length * 4));
  const a = new Uint32Array(sab);
  for (let i = 0; i < values.length; i++) a[i] = values[i]!;
  return sab;
}

function typedSab(n: number, bytesPer: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(bytesPer, n * bytesPer));
}

/** Tokens whose key ids a build keeps (Postings.addToken); beyond, the cache starts again. */
const TOKEN_CACHE_MAX = 1 << 20;

/** Posting pairs (key id, name id) in name order, and the keys in first-seen order (build-time only): flat typed
 * arrays rather than millions of small JS arrays keep a 1M-entity build fast and its heap small. The keys are
 * interned by their fnv1a hash in an open-addressing table over their UTF-8 text (the index's own key text and
 * hashes, in id order), not in a Map of strings: a 1M-entity build has 1.5 million keys, and the Map's lookups of
 * fresh strings and its heap were an eighth of the build. */
class Postings {
  readonly keyText = new ByteTable();
  keyHash = new Uint32Array(1 << 16);
  nKeys = 0;
  private slots = new Int32Array(1 << 17);
  // keys with a non-ASCII character (their bytes are not their char codes), rare: a Map
  private readonly wideKeys = new Map<string, number>();
  private readonly wideIds = new Set<number>();
  pairKey = new Uint32Array(1 << 16);
  pairName = new Uint32Array(1 << 16);
  nPairs = 0;
  // the name id a key was last posted for: a name's duplicate keys are dropped without a per-name Set
  private lastPosted = new Int32Array(1 << 16);

  // per token, its own keys' ids (tokenKeys) as a count (low 3 bits) and an offset into tokenIds: a token recurs
  // across names, and its ids cost one lookup of the token instead of making and looking up four key strings
  private readonly tokenAt = new Map<string, number>();
  private tokenIds = new Int32Array(1 << 16);
  private nTokenIds = 0;

  add(k: string, nameId: number): void {
    this.post(this.keyId(k), nameId);
  }

  /** Posts token `t`'s own keys (tokenKeys) for name `nameId`: the same ids, new ones in the same order, as adding
   * them one by one. */
  addToken(t: string, nameId: number): void {
    let at = this.tokenAt.get(t);
    if (at === undefined) {
      if (this.tokenAt.size >= TOKEN_CACHE_MAX) {
        this.tokenAt.clear();
        this.nTokenIds = 0;
      }
      if (this.nTokenIds + 4 > this.tokenIds.length) {
        const grown = new Int32Array(this.tokenIds.length * 2);
        grown.set(this.tokenIds);
        this.tokenIds = grown;
      }
      const from = this.nTokenIds;
      tokenKeys(t, { add: (k: string) => (this.tokenIds[this.nTokenIds++] = this.keyId(k)) });
      at = from * 8 + (this.nTokenIds - from);
      this.tokenAt.set(t, at);
    }
    const from = at >>> 3;
    const to = from + (at & 7);
    for (let i = from; i < to; i++) this.post(this.tokenIds[i]!, nameId);
  }

  private keyId(k: string): number {
    // fnv1a (keys.ts) over the char codes, noting a non-ASCII one
    let h = 0x811c9dc5;
    let wide = 0;
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      wide |= c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    h >>>= 0;
    if (wide > 0x7f) {
      let id = this.wideKeys.get(k);
      if (id === undefined) {
        id = this.newKey(k, h);
        this.wideKeys.set(k, id);
        this.wideIds.add(id);
      }
      return id;
    }
    const mask = this.slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const v = this.slots[slot]!;
      if (v === 0) break;
      if (this.keyHash[v - 1] === h && this.keyText.equalsAscii(v - 1, k)) return v - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.newKey(k, h);
    this.slots[slot] = id + 1;
    if (this.nKeys * 2 > this.slots.length) this.growSlots();
    return id;
  }

  private newKey(k: string, h: number): number {
    const id = this.nKeys++;
    this.keyText.add(k);
    if (id === this.keyHash.length) {
      const nh = new Uint32Array(id * 2);
      nh.set(this.keyHash);
      this.keyHash = nh;
    }
    this.keyHash[id] = h;
    if (id === this.lastPosted.length) {
      const nl = new Int32Array(id * 2);
      nl.set(this.lastPosted);
      this.lastPosted = nl;
    }
    this.lastPosted[id] = -1;
    return id;
  }

  /** Doubles the ASCII keys' table, placing them again from their hashes. */
  private growSlots(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.nKeys; id++) {
      if (this.wideIds.has(id)) continue;
      let slot = this.keyHash[id]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }

  private post(id: number, nameId: number): void {
    if (this.lastPosted[id] === nameId) return;
    this.lastPosted[id] = nameId;
    if (this.nPairs === this.pairKey.length) {
      const nk = new Uint32Array(this.nPairs * 2);
      nk.set(this.pairKey);
      this.pairKey = nk;
      const nn = new Uint32Array(this.nPairs * 2);
      nn.set(this.pairName);
      this.pairName = nn;
    }
    this.pairKey[this.nPairs] = id;
    this.pairName[this.nPairs++] = nameId;
  }
}

/** The per-entity and per-name columns of the index, filled entity by entity. */
class Columns {
  readonly sources: string[] = [];
  private readonly sourceIdx = new Map<string, number>();
  readonly bySchema: Record<string, number> = {};
  readonly byDataset: Record<string, number> = {};
  readonly entSchema: number[] = [];
  readonly entDatasets: number[] = [];
  readonly entSource: number[] = [];
  readonly meta = new ByteTable();
  readonly nameEntity: number[] = [];
  readonly nameKind: number[] = [];
  readonly nameFlags: number[] = [];
  readonly norm = new ByteTable();
  readonly orig = new ByteTable();

  sourceNumber(source: string): number {
    let src = this.sourceIdx.get(source);
    if (src === undefined) {
      src = this.sources.length;
      this.sources.push(source);
      this.sourceIdx.set(source, src);
    }
    return src;
  }

  datasetMask(e: Entity): number {
    let mask = 0;
    for (const d of e.datasets) {
      const i = AML_DATASETS.indexOf(d);
      if (i >= 0) mask |= 1 << i;
      this.byDataset[d] = (this.byDataset[d] ?? 0) + 1;
    }
    this.bySchema[e.schema] = (this.bySchema[e.schema] ?? 0) + 1;
    return mask;
  }
}

/** What a scored candidate decodes of its entity, with its consolidated entity when it is linked to others. */
function entityMeta(
  e: Entity,
  clusterOf: ReadonlyMap<string, string> | undefined,
  clusters: ReadonlyMap<string, number[]>,
): EntityMeta {
  const primary = e.names.find((n) => n.kind === 'primary')?.value ?? e.names[0]?.value ?? '';
  const m: EntityMeta = {
    entity_id: e.entity_id,
    source: e.source,
    source_id: e.source_id,
    schema: e.schema,
    name: primary,
    datasets: e.datasets,
    programs: e.programs,
    birth_dates: e.birth_dates,
    nationalities: e.nationalities,
    countries: e.countries,
    identifiers: e.identifiers.map((i) => ({ type: i.type, value: i.value })),
  };
  const cid = clusterOf?.get(e.entity_id);
  const members = cid === undefined ? undefined : clusters.get(cid);
  if (cid !== undefined && members !== undefined && members.length > 1) {
    m.consolidated_id = cid;
    m.cluster = members;
  }
  return m;
}

/** Adds entity `eid`'s names (each normalised once; the same normalised name twice adds nothing) and their keys;
 * the entity's identifiers are posted under its first name. */
function addNames(e: Entity, eid: number, cols: Columns, postings: Postings, identSeen: Set<string>): void {
  const kind = schemaNameKind(e.schema);
  let firstName = -1;
  const seen = new Set<string>();
  for (const n of e.names) {
    const value = n.value.trim();
    if (!value) continue;
    // a name written as two after a slash is also indexed by the words before it (shown as the list writes it)
    const head = beforeSlash(value);
    const id = addName(value, value, n.kind, kind, eid, seen, cols, postings);
    if (firstName < 0) firstName = id;
    if (head === undefined) continue;
    const headId = addName(head, value, n.kind, kind, eid, seen, cols, postings);
    if (firstName < 0) firstName = headId;
  }
  if (firstName < 0) return;
  identSeen.clear();
  for (const id of e.identifiers) {
    const v = normIdentifier(id.value);
    if (v.length < 4 || identSeen.has(v)) continue;
    identSeen.add(v);
    postings.add(KEY_IDENT + v, firstName);
  }
}

/** Adds one name of entity `eid` (`value` normalised as a name of `kind`, `shown` as the list writes it) and its
 * keys; returns its name id, or -1 when it has no tokens or repeats a name in `seen` (the entity's names so far). */
function addName(
  value: string,
  shown: string,
  nameKind: (typeof NAME_KINDS)[number],
  kind: NameKind,
  eid: number,
  seen: Set<string>,
  cols: Columns,
  postings: Postings,
): number {
  const nn = normalizeName(value, kind);
  if (nn.tokens.length === 0) return -1;
  const content = nn.tokens.join(' ') + '|' + nn.legalForms.join(' ') + '|' + (nn.cjk ?? '');
  // the letters as written (and in the other order) follow, for rawSimilarity
  // and without the legal forms at its edges, when that differs (rawCore)
  const normText = nn.raw
    ? `${content}|${nn.raw}|${nn.rawSwapped ?? ''}${nn.rawCore ? `|${nn.rawCore}` : ''}`
    : content;
  const kindIdx = NAME_KINDS.indexOf(nameKind);
  // the same normalised name twice (e.g. alias differing only in case or spacing) adds nothing
  const dedupKey = content + '#' + (kindIdx === 2 ? 'w' : '');
  if (seen.has(dedupKey)) return -1;
  seen.add(dedupKey);
  const nameId = cols.nameEntity.length;
  cols.nameEntity.push(eid);
  cols.nameKind.push(Math.max(0, kindIdx));
  cols.nameFlags.push(nn.abjad ? FLAG_ABJAD : 0);
  cols.norm.add(normText);
  cols.orig.add(shown);
  nameKeys(nn, { add: (k: string) => postings.add(k, nameId) }, true, (t) => postings.addToken(t, nameId));
  return nameId;
}

/** The key hash table (open addressing, keys in first-seen order: deterministic for a given input order) and the
 * postings sorted by key (a counting sort; within a key, name ids stay ascending). */
function keyTables(postings: Postings) {
  const { keyText, pairKey, pairName, nPairs, nKeys } = postings;
  let tableSize = 8;
  while (tableSize < nKeys * 2) tableSize *= 2;
  const table = new Int32Array(typedSab(tableSize, 4));
  const keyHash = new Uint32Array(typedSab(nKeys, 4));
  keyHash.set(postings.keyHash.subarray(0, nKeys));
  const postOff = new Uint32Array(typedSab(nKeys + 1, 4));
  for (let p = 0; p < nPairs; p++) postOff[pairKey[p]! + 1]!++;
  for (let i = 0; i < nKeys; i++) postOff[i + 1] = postOff[i + 1]! + postOff[i]!;
  const post = new Uint32Array(typedSab(nPairs, 4));
  const fill = postOff.slice(0, nKeys);
  for (let p = 0; p < nPairs; p++) post[fill[pairKey[p]!]!++] = pairName[p]!;
  for (let i = 0; i < nKeys; i++) {
    const h = keyHash[i]!;
    let slot = h & (tableSize - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (tableSize - 1);
    table[slot] = i + 1;
  }
  return { nKeys, tableSize, table, keyHash, keyText, postOff, post };
}

const u8 = (vals: number[]): SharedArrayBuffer => {
  const sab = typedSab(vals.length, 1);
  new Uint8Array(sab).set(vals);
  return sab;
};
const u16 = (vals: number[]): SharedArrayBuffer => {
  const sab = typedSab(vals.length, 2);
  new Uint16Array(sab).set(vals);
  return sab;
};

/** `clusterOf`: entity id → consolidated entity id for the entries linked to others (matcher/consolidate.ts); a
 * screen then returns one match per consolidated entity. */
export function buildIndex(
  entities: Iterable<Entity>,
  version: string,
  clusterOf?: ReadonlyMap<string, string>,
): IndexData {
  const t0 = performance.now();
  // a generator's entities are indexed as they come and then dropped (a 1M-entity list held through the build made
  // every full collection mark it), unless consolidated entities need their entries' numbers first
  let list = entities;
  let clusters = new Map<string, number[]>();
  if (clusterOf !== undefined && clusterOf.size > 0) {
    const all = Array.isArray(entities) ? (entities as Entity[]) : [...entities];
    clusters = clusterNumbers(all, clusterOf);
    list = all;
  }
  buildFoldCache(true);
  const cols = new Columns();
  const postings = new Postings();
  const identSeen = new Set<string>();
  let eid = 0;
  for (const e of list) {
    const src = cols.sourceNumber(e.source);
    const mask = cols.datasetMask(e);
    cols.meta.add(JSON.stringify(entityMeta(e, clusterOf, clusters)));
    cols.entSchema.push(Math.max(0, ENTITY_SCHEMAS.indexOf(e.schema)));
    cols.entDatasets.push(mask);
    cols.entSource.push(src);
    addNames(e, eid, cols, postings, identSeen);
    eid++;
  }
  const k = keyTables(postings);

  // every packed field must hold what this index needs (an eighth dataset would otherwise vanish from filters)
  assertLayoutFits(engineCounts(cols.sources.length));
  const buffers: Record<string, SharedArrayBuffer> = {
    entSchema: u8(cols.entSchema),
    entDatasets: u16(cols.entDatasets),
    entSource: u16(cols.entSource),
    entMetaOff: cols.meta.offsetsSab(),
    entMetaBytes: cols.meta.bytes(),
    nameEntity: u32Sab(cols.nameEntity),
    nameKind: u8(cols.nameKind),
    nameFlags: u8(cols.nameFlags),
    nameNormOff: cols.norm.offsetsSab(),
    nameNormBytes: cols.norm.bytes(),
    nameOrigOff: cols.orig.offsetsSab(),
    nameOrigBytes: cols.orig.bytes(),
    keyHash: k.keyHash.buffer as SharedArrayBuffer,
    keyOff: k.keyText.offsetsSab(),
    keyBytes: k.keyText.bytes(),
    keyTable: k.table.buffer as SharedArrayBuffer,
    postOff: k.postOff.buffer as SharedArrayBuffer,
    postings: k.post.buffer as SharedArrayBuffer,
  };
  buildFoldCache(false);
  const buildMs = performance.now() - t0;
  return {
    version,
    buffers,
    meta: {
      format: INDEX_FORMAT,
      entities: cols.entSchema.length,
      names: cols.nameEntity.length,
      keys: k.nKeys,
      table_size: k.tableSize,
      sources: JSON.stringify(cols.sources),
      by_schema: JSON.stringify(cols.bySchema),
      by_dataset: JSON.stringify(cols.byDataset),
      build_ms: Math.round(buildMs * 10) / 10,
    },
  };
}

/** consolidated id → the entity numbers (positions in `list`) of its entries present in this index, ascending. */
function clusterNumbers(
  list: readonly Entity[],
  clusterOf: ReadonlyMap<string, string>,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  list.forEach((e, i) => {
    const cid = clusterOf.get(e.entity_id);
    if (cid === undefined) return;
    let g = out.get(cid);
    if (g === undefined) {
      g = [];
      out.set(cid, g);
    }
    g.push(i);
  });
  return out;
}

export function indexStats(data: IndexData): IndexStats {
  let bytes = 0;
  for (const b of Object.values(data.buffers)) bytes += b.byteLength;
  const parse = (v: number | string | undefined): Record<string, number> =>
    typeof v === 'string' ? (JSON.parse(v) as Record<string, number>) : {};
  return {
    entities: Number(data.meta['entities'] ?? 0),
    names: Number(data.meta['names'] ?? 0),
    bytes,
    by_schema: parse(data.meta['by_schema']),
    by_dataset: parse(data.meta['by_dataset']),
    build_ms: Number(data.meta['build_ms'] ?? 0),
  };
}
