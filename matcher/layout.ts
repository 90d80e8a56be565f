// The index's binary contract, in one place: its format number (written into every artifact and checked before an
// index is searched) and the widths of every packed field (asserted when an index is built, so a list with more
// datasets, schemas, name kinds or sources than the layout holds fails loudly instead of vanishing from filters).
import { AML_DATASETS, ENTITY_SCHEMAS, type NameKind } from '../ingest/entity.js';
import type { IndexData } from './types.js';

/** Bump whenever normalisation, keys or layout change: an index of another format is rebuilt, never searched. */
export const INDEX_FORMAT = 18;
export const NAME_KINDS: readonly NameKind[] = ['primary', 'alias', 'weak', 'former'];
export const FLAG_ABJAD = 1;

/** Per-name filter word built by the screener (one random read per posting): low bit first. The dataset field is a
 * bit mask (one bit per AML dataset); the others are indexes. */
export const PACK = {
  kind: { shift: 0, bits: 3 },
  schema: { shift: 3, bits: 3 },
  datasets: { shift: 6, bits: 7 },
  source: { shift: 13, bits: 19 },
} as const;
/** Widths of the per-entity arrays the word is built from (entDatasets, entSource are Uint16Array). */
const STORED_BITS = { datasets: 16, source: 16 } as const;

export class IndexLayoutError extends Error {
  override name = 'IndexLayoutError';
}
export class IndexFormatError extends Error {
  override name = 'IndexFormatError';
  constructor(readonly found: unknown) {
    super(`index format ${String(found)} is not the supported format ${INDEX_FORMAT}: rebuild it`);
  }
}

export interface LayoutCounts {
  datasets: number;
  schemas: number;
  nameKinds: number;
  sources: number;
}

/** Throws IndexLayoutError when a count does not fit its packed field. Called by buildIndex for the engine's
 * enumerations and the index's sources; tests call it with hypothetical counts. */
export function assertLayoutFits(c: LayoutCounts): void {
  const fields: [string, number, number][] = [
    // a mask needs one bit per dataset; an index field holds 2^bits values
    [
      'AML datasets (one bit each in the dataset mask)',
      c.datasets,
      Math.min(PACK.datasets.bits, STORED_BITS.datasets),
    ],
    ['entity schemas', c.schemas, 2 ** PACK.schema.bits],
    ['name kinds', c.nameKinds, 2 ** PACK.kind.bits],
    ['sources', c.sources, 2 ** Math.min(PACK.source.bits, STORED_BITS.source)],
  ];
  for (const [what, n, capacity] of fields) {
    if (n > capacity) {
      throw new IndexLayoutError(
        `index layout: ${n} ${what}, but the packed field holds ${capacity}; widen matcher/layout.ts PACK and bump INDEX_FORMAT`,
      );
    }
  }
  let next = 0;
  for (const [name, f] of Object.entries(PACK)) {
    if (f.shift !== next) throw new IndexLayoutError(`index layout: field ${name} overlaps or leaves a gap`);
    next = f.shift + f.bits;
  }
  if (next > 32) throw new IndexLayoutError(`index layout: ${next} bits do not fit a 32-bit word`);
}

/** The engine's own enumerations, checked once at module load: adding an eighth AML dataset fails every build. */
export const engineCounts = (sources: number): LayoutCounts => ({
  datasets: AML_DATASETS.length,
  schemas: ENTITY_SCHEMAS.length,
  nameKinds: NAME_KINDS.length,
  sources,
});

const mask = (bits: number) => (bits >= 32 ? 0xffffffff : (1 << bits) - 1);

export function packNameInfo(kind: number, schema: number, datasets: number, source: number): number {
  return (
    (((kind & mask(PACK.kind.bits)) << PACK.kind.shift) |
      ((schema & mask(PACK.schema.bits)) << PACK.schema.shift) |
      ((datasets & mask(PACK.datasets.bits)) << PACK.datasets.shift) |
      ((source & mask(PACK.source.bits)) << PACK.source.shift)) >>>
    0
  );
}
export const infoKind = (info: number) => (info >>> PACK.kind.shift) & mask(PACK.kind.bits);
export const infoSchema = (info: number) => (info >>> PACK.schema.shift) & mask(PACK.schema.bits);
export const infoDatasets = (info: number) => (info >>> PACK.datasets.shift) & mask(PACK.datasets.bits);
export const infoSource = (info: number) => (info >>> PACK.source.shift) & mask(PACK.source.bits);

/** Throws IndexFormatError unless `data` was built with this code's INDEX_FORMAT. */
export function assertIndexFormat(data: IndexData): void {
  if (Number(data.meta['format']) !== INDEX_FORMAT) throw new IndexFormatError(data.meta['format']);
}
