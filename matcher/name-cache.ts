// Per-thread caches of list-side data a screen reads: the prepared candidate names with their packed numbers in an
// arena and a content id per name, and the parsed entity metadata.
import type { EntityMeta } from './index-build.js';
import type { IndexView } from './index-view.js';
import { type PreparedName, retainedCopy } from './prepared-name.js';

/** Prepared candidate names kept per thread. */
const PREPARED_CACHE_MAX = 100_000;
/** Parsed entity metadata kept per thread. */
const META_CACHE_MAX = 50_000;

/** The packed numbers (packName) of the prepared names, copied one after another: the bound's cheap pass reads only
 * these, and an arena of a few MB misses the cache less than a name object and its arrays spread over the heap. */
export class NameArena {
  data = new Int32Array(1 << 16);
  /** per name id, the offset of its copy in data, −1 if none */
  readonly at: Int32Array;
  private len = 0;

  constructor(nNames: number) {
    this.at = new Int32Array(Math.max(1, nNames)).fill(-1);
  }

  add(id: number, packed: Int32Array): void {
    if (this.len + packed.length > this.data.length) {
      const grown = new Int32Array(Math.max(this.data.length * 2, this.len + packed.length));
      grown.set(this.data.subarray(0, this.len));
      this.data = grown;
    }
    this.data.set(packed, this.len);
    this.at[id] = this.len;
    this.len += packed.length;
  }

  clear(): void {
    this.at.fill(-1);
    this.len = 0;
  }
}

/**
 * Prepared candidate names by name id, per thread: list names recur across queries (common tokens, popular names),
 * and decoding + preparing them is a fifth of a query's cost; bounded, cleared when full (an array indexed by name
 * id: a Map lookup cost a hash probe per candidate). The cache holds copies from retainedCopy's own allocation sites
 * (prepareNormalized's stay those of short-lived names: docs/matching.md §2). Beside each name: its packed copy in
 * the arena, and the id of its content (its normalised text and abjad flag, which determine the prepared name and
 * so every bound and score of it): list names recur across lists and entities, and a screen bounds and scores each
 * content once (bestNames). Content ids come from a counter that never restarts, so an id never stands for two
 * contents, even when the cache is cleared during a screen.
 */
export class PreparedNameCache {
  readonly arena: NameArena;
  readonly contentOf: Int32Array;
  private readonly names: (PreparedName | undefined)[];
  private count = 0;
  private readonly contentIds = new Map<string, number>();
  private nextContent = 0;

  constructor(private readonly view: IndexView) {
    this.names = new Array<PreparedName | undefined>(view.nNames).fill(undefined);
    this.arena = new NameArena(view.nNames);
    this.contentOf = new Int32Array(Math.max(1, view.nNames));
  }

  /** The prepared name of name `id` (its packed copy is then in the arena). */
  get(id: number): PreparedName {
    let p = this.names[id];
    if (p === undefined) {
      const text = this.view.normText(id);
      p = retainedCopy(this.view.normName(id, text));
      if (this.count >= PREPARED_CACHE_MAX) {
        this.names.fill(undefined);
        this.arena.clear();
        this.contentIds.clear();
        this.count = 0;
      }
      const key = p.abjad ? `${text}|abjad` : text;
      let cid = this.contentIds.get(key);
      if (cid === undefined) {
        cid = this.nextContent++;
        this.contentIds.set(key, cid);
      }
      this.contentOf[id] = cid;
      this.names[id] = p;
      this.count++;
      this.arena.add(id, p.packed);
    }
    return p;
  }
}

/** Parsed entity metadata by entity id, per thread: an entity that reaches the matches for one query (a common name,
 * a listed name) often does for others; bounded, cleared when full. Read only: matches get copies of its arrays. */
export class EntityMetaCache {
  private readonly metas: (EntityMeta | undefined)[];
  private count = 0;

  constructor(private readonly view: IndexView) {
    this.metas = new Array<EntityMeta | undefined>(view.nEntities).fill(undefined);
  }

  get(e: number): EntityMeta {
    let m = this.metas[e];
    if (m === undefined) {
      m = this.view.entityMeta(e);
      if (this.count >= META_CACHE_MAX) {
        this.metas.fill(undefined);
        this.count = 0;
      }
      this.metas[e] = m;
      this.count++;
    }
    return m;
  }
}
