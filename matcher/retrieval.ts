// Candidate retrieval: the query's keys looked up and walked rarest first within a postings budget, each in-scope
// name accumulating the IDF-weighted weight of the keys that post it, then the best few names as the candidates.
import type { IndexView } from './index-view.js';
import { KEY_IDENT } from './keys.js';

/** Postings visited per query before the most common keys are skipped. */
const POSTINGS_BUDGET = 8_000;
/** Candidate names fully scored per query. */
const MAX_CANDIDATES = 32;
/** Candidates whose retrieval weight is below this fraction of the best are not scored. */
const RELATIVE_CUTOFF = 0.3;

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

/** The keys found in the index, rarest first (by document frequency, then key id), as parallel arrays: id, query
 * weight, document frequency, whether an identifier key, whether walked; `visited` is the postings the walk reads.
 * One per thread, filled again for each query (planWalk): arrays of numbers instead of an object per key and a
 * comparator sort, which made garbage and a copy for every screen. */
class WalkPlan {
  id = new Int32Array(64);
  w = new Float64Array(64);
  df = new Int32Array(64);
  ident = new Uint8Array(64);
  walked = new Uint8Array(64);
  n = 0;
  visited = 0;

  /** Room for `n` keys (the arrays' contents are not kept). */
  reserve(n: number): void {
    if (this.id.length >= n) return;
    const size = n * 2;
    this.id = new Int32Array(size);
    this.w = new Float64Array(size);
    this.df = new Int32Array(size);
    this.ident = new Uint8Array(size);
    this.walked = new Uint8Array(size);
  }
}

/** The keys the index has, rarest first, and which of them are walked: the two rarest, then others while the
 * budget lasts (identifier keys always), into `plan`. */
function planWalk(view: IndexView, keys: Map<string, number>, plan: WalkPlan): void {
  plan.reserve(keys.size);
  const { id: ids, w: ws, df: dfs, ident: idents, walked } = plan;
  let n = 0;
  for (const [k, w] of keys) {
    const id = view.lookup(k);
    if (id < 0) continue;
    const df = view.postOff[id + 1]! - view.postOff[id]!;
    const ident = k[0] === KEY_IDENT ? 1 : 0;
    // insertion into the sorted prefix: a query has a few dozen keys (ids distinct, so the order is total)
    let at = n++;
    while (at > 0 && (dfs[at - 1]! > df || (dfs[at - 1] === df && ids[at - 1]! > id))) {
      ids[at] = ids[at - 1]!;
      ws[at] = ws[at - 1]!;
      dfs[at] = dfs[at - 1]!;
      idents[at] = idents[at - 1]!;
      at--;
    }
    ids[at] = id;
    ws[at] = w;
    dfs[at] = df;
    idents[at] = ident;
  }
  let visited = 0;
  for (let fi = 0; fi < n; fi++) {
    const df = dfs[fi]!;
    walked[fi] = fi >= 2 && visited + df > POSTINGS_BUDGET && idents[fi] === 0 ? 0 : 1;
    if (walked[fi] === 1) visited += Math.min(df, POSTINGS_BUDGET);
  }
  plan.n = n;
  plan.visited = visited;
}

/**
 * Per-thread retrieval state: the touched names in order of first sighting with their accumulated weight, and an
 * open-addressing table name id + 1 → touched index sized to the postings the query visits (it stays in cache, where
 * per-name arrays cost a random memory read per posting); the names still able to pass the relative cutoff once
 * retrieval stops taking new names (one bit per name, cleared after each query); the adds of the keys walked.
 */
export class Retrieval {
  private touched = new Uint32Array(1024);
  private accT = new Float32Array(1024);
  private table = new Int32Array(1024);
  private tableIdx = new Uint32Array(1024);
  private readonly live: Uint32Array;
  private keyAdd = new Float64Array(64);
  private readonly heap = new Uint32Array(MAX_CANDIDATES);
  private readonly plan = new WalkPlan();

  constructor(private readonly view: IndexView) {
    this.live = new Uint32Array((view.nNames >>> 5) + 1);
  }

  /** Walks the postings of the keys (rarest first, within a budget), accumulating each in-scope name's weight
   * (`allowed`: one bit per name); returns how many names were touched and the entities an identifier key reached.
   * Once the keys left cannot lift a name to topCandidates' cutoff (cannotReach), it takes no new names and
   * accumulates only the names that can still reach it: the candidates, their weights and their order are those of
   * the full walk. */
  retrieve(
    keys: Map<string, number>,
    allowed: Uint32Array,
  ): { nTouched: number; identEntities: Set<number> } {
    const plan = this.plan;
    planWalk(this.view, keys, plan);
    const { id: ids, w: ws, df: dfs, ident: idents, walked, n: nFound } = plan;
    const { tmask, shift } = this.sizeFor(plan.visited, nFound);
    // each walked key's add, and (rest) the sum of the adds of the walked keys after it, for the early stop
    const keyAdd = this.keyAdd;
    const N = this.view.nNames;
    let anyIdent = false;
    let rest = 0;
    let restKeys = 0;
    for (let fi = 0; fi < nFound; fi++) {
      keyAdd[fi] = walked[fi] === 1 ? ws[fi]! * Math.log(1 + N / dfs[fi]!) : 0;
      if (walked[fi] === 0) continue;
      if (idents[fi] === 1) anyIdent = true;
      rest += keyAdd[fi]!;
      restKeys++;
    }
    // hot loop: typed arrays in locals
    const { postings, postOff, nameEntity } = this.view;
    const { table, tableIdx, touched, accT, live } = this;
    const identEntities = new Set<number>();
    let nTouched = 0;
    // the largest accumulated weight so far (float32, as topCandidates reads it), and whether retrieval has
    // stopped taking new names: then only the live names are accumulated
    let maxAcc = 0;
    let liveOnly = false;
    for (let fi = 0; fi < nFound; fi++) {
      if (walked[fi] === 0) continue;
      const keyId = ids[fi]!;
      const ident = idents[fi] === 1;
      const add = keyAdd[fi]!;
      const s = postOff[keyId]!;
      const e = Math.min(postOff[keyId + 1]!, s + POSTINGS_BUDGET);
      if (!liveOnly && !anyIdent && fi > 0 && cannotReach(0, rest, restKeys, maxAcc * RELATIVE_CUTOFF)) {
        // no name this key or a later one adds can reach topCandidates' cutoff unless it has weight already:
        // the rest of the walk accumulates the names that still can, the others keep a weight under the cutoff
        liveOnly = true;
        this.markLive(nTouched, rest, restKeys, maxAcc * RELATIVE_CUTOFF);
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
        if (ident) identEntities.add(nameEntity[nameId]!);
      }
    }
    if (liveOnly) for (let t = 0; t < nTouched; t++) live[touched[t]! >>> 5] = 0;
    return { nTouched, identEntities };
  }

  /** Sizes the scratch arrays for a walk of `visited` postings over `nKeys` keys and clears the table (at most half
   * full: a power of two ≥ twice the postings walked); returns its mask and hash shift. */
  private sizeFor(visited: number, nKeys: number): { tmask: number; shift: number } {
    let bitsT = 10;
    while (1 << bitsT < 2 * visited) bitsT++;
    const size = 1 << bitsT;
    if (this.table.length < size) {
      this.table = new Int32Array(size);
      this.tableIdx = new Uint32Array(size);
    } else this.table.fill(0, 0, size);
    if (this.touched.length < visited) {
      this.touched = new Uint32Array(visited);
      this.accT = new Float32Array(visited);
    }
    if (this.keyAdd.length < nKeys) this.keyAdd = new Float64Array(nKeys * 2);
    return { tmask: size - 1, shift: 32 - bitsT };
  }

  /** Marks live the touched names that can still reach `cut` with the keys left. */
  private markLive(nTouched: number, rest: number, restKeys: number, cut: number): void {
    const { touched, accT, live } = this;
    for (let t = 0; t < nTouched; t++)
      if (!cannotReach(accT[t]!, rest, restKeys, cut)) {
        const nameId = touched[t]!;
        live[nameId >>> 5]! |= 1 << (nameId & 31);
      }
  }

  /** The MAX_CANDIDATES best touched names by accumulated weight (and every name of an entity an identifier
   * reached), in name id order. */
  topCandidates(nTouched: number, identEntities: Set<number>): number[] {
    const touched = this.touched;
    const hn = this.bestByWeight(nTouched);
    const cands: number[] = [];
    for (let j = 0; j < hn; j++) cands.push(touched[this.heap[j]!]!);
    if (identEntities.size > 0) {
      // identifier hits are always scored, whatever their names
      const kept = new Set(cands);
      for (let t = 0; t < nTouched; t++) {
        const id = touched[t]!;
        if (!kept.has(id) && identEntities.has(this.view.nameEntity[id]!)) cands.push(id);
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

  /** The MAX_CANDIDATES best touched names at or above the relative cutoff by accumulated weight (ties: lower name
   * id) into heap, with a bounded min-heap of touched indexes: a common name can touch tens of thousands of names on
   * a 1M index, and sorting them all costs milliseconds. Returns how many. */
  private bestByWeight(nTouched: number): number {
    const { touched, accT, heap } = this;
    let maxAcc = 0;
    for (let i = 0; i < nTouched; i++) {
      const a = accT[i]!;
      if (a > maxAcc) maxAcc = a;
    }
    const cut = maxAcc * RELATIVE_CUTOFF;
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
    return hn;
  }
}
