// A worker thread's view of a shared index (index-build.ts, layout in docs/matching.md §2): typed arrays over the
// SharedArrayBuffers, key lookup (open addressing) and the decoding of names and entity metadata.
import type { EntityMeta } from './index-build.js';
import { fnv1a } from './keys.js';
import { FLAG_ABJAD } from './layout.js';
import type { NormalizedName } from './normalize.js';
import { type PreparedName, prepareNormalized } from './prepared-name.js';
import type { IndexData } from './types.js';

const decoder = new TextDecoder();

export class IndexView {
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
  /** the dataset version the index was built from */
  readonly version: string;
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
    this.version = data.version;
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

  /** A name's normalised text as the index stores it: tokens|legal forms|Han, Hangul and kana characters, then (when
   * it has them) |its letters as written|and in the other order (NormalizedName.raw), then (when it differs)
   * |its letters without the legal forms at its edges (NormalizedName.rawCore). */
  normText(id: number): string {
    return this.text(this.nameNormBytes, this.nameNormOff[id]!, this.nameNormOff[id + 1]!);
  }

  /** The prepared name of name `id` from its normalised text `s` (normText). */
  normName(id: number, s: string): PreparedName {
    const bar = s.indexOf('|');
    const bar2 = s.indexOf('|', bar + 1);
    const bar3 = bar2 < 0 ? -1 : s.indexOf('|', bar2 + 1);
    const bar4 = bar3 < 0 ? -1 : s.indexOf('|', bar3 + 1);
    const toks = s.slice(0, bar);
    const forms = s.slice(bar + 1, bar2 < 0 ? s.length : bar2);
    const cjk = bar2 < 0 ? '' : s.slice(bar2 + 1, bar3 < 0 ? s.length : bar3);
    const n: NormalizedName = {
      tokens: toks.length ? toks.split(' ') : [],
      legalForms: forms.length ? forms.split(' ') : [],
      abjad: (this.nameFlags[id]! & FLAG_ABJAD) !== 0,
    };
    if (cjk) n.cjk = cjk;
    if (bar4 > bar3 + 1) {
      n.raw = s.slice(bar3 + 1, bar4);
      const bar5 = s.indexOf('|', bar4 + 1);
      const swapped = s.slice(bar4 + 1, bar5 < 0 ? s.length : bar5);
      if (swapped.length > 0) n.rawSwapped = swapped;
      if (bar5 > 0) n.rawCore = s.slice(bar5 + 1);
    }
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
