import { describe, expect, it } from 'vitest';
import { AML_DATASETS, ENTITY_SCHEMAS, type Entity } from '../../ingest/entity.js';
import {
  assertLayoutFits,
  buildIndex,
  INDEX_FORMAT,
  IndexFormatError,
  IndexLayoutError,
  openIndex,
} from '../../matcher/index.js';
import {
  infoDatasets,
  infoKind,
  infoSchema,
  infoSource,
  NAME_KINDS,
  packNameInfo,
} from '../../matcher/layout.js';

const today = {
  datasets: AML_DATASETS.length,
  schemas: ENTITY_SCHEMAS.length,
  nameKinds: NAME_KINDS.length,
  sources: 1,
};

describe('index layout contract', () => {
  it("holds today's datasets, schemas and name kinds", () => {
    expect(() => assertLayoutFits(today)).not.toThrow();
  });

  it('refuses an eighth dataset instead of letting it vanish from every filter', () => {
    expect(() => assertLayoutFits({ ...today, datasets: 8 })).toThrow(IndexLayoutError);
    expect(() => assertLayoutFits({ ...today, datasets: 8 })).toThrow(/8 AML datasets/);
  });

  it('refuses more schemas, name kinds or sources than their fields hold', () => {
    expect(() => assertLayoutFits({ ...today, schemas: 9 })).toThrow(/entity schemas/);
    expect(() => assertLayoutFits({ ...today, nameKinds: 9 })).toThrow(/name kinds/);
    expect(() => assertLayoutFits({ ...today, sources: 65_537 })).toThrow(/sources/);
    expect(() => assertLayoutFits({ ...today, sources: 65_536 })).not.toThrow();
  });

  it('packs and unpacks every field at its widest value without touching its neighbours', () => {
    const info = packNameInfo(7, 7, 0b1111111, 65_535);
    expect([infoKind(info), infoSchema(info), infoDatasets(info), infoSource(info)]).toEqual([
      7, 7, 0b1111111, 65_535,
    ]);
    const one = packNameInfo(0, 0, 1 << (AML_DATASETS.length - 1), 0);
    expect(infoDatasets(one)).toBe(1 << (AML_DATASETS.length - 1));
    expect(infoKind(one) + infoSchema(one) + infoSource(one)).toBe(0);
  });

  it('never searches an index of another format', () => {
    const index = buildIndex([], 'v-old');
    expect(index.meta.format).toBe(INDEX_FORMAT);
    expect(() => openIndex(index)).not.toThrow();
    index.meta.format = INDEX_FORMAT - 1;
    expect(() => openIndex(index)).toThrow(IndexFormatError);
  });

  it('builds the same index from entities handed over one by one as from the whole list', () => {
    const entity = (i: number, name: string): Entity => ({
      entity_id: `t:${i}`,
      source: 't',
      source_id: String(i),
      schema: i % 2 ? 'Company' : 'Person',
      names: [{ value: name, kind: 'primary' }],
      birth_dates: [],
      birth_places: [],
      countries: [],
      nationalities: [],
      identifiers: [{ type: 'imo', value: `IMO 93${i}4567` }],
      programs: ['P'],
      datasets: ['sanctions'],
    });
    const list = ['Ivan Petrov', 'Petrov Trading LLC', 'Иван Петров', 'Ivan Petrow', 'Acme Shipping Ltd'].map(
      (n, i) => entity(i, n),
    );
    const bytes = (d: ReturnType<typeof buildIndex>) =>
      Object.entries(d.buffers).map(([k, b]) => [k, [...new Uint8Array(b)]]);
    const links = new Map([
      ['t:0', 'c:1'],
      ['t:3', 'c:1'],
    ]);
    for (const clusterOf of [undefined, links]) {
      const whole = buildIndex(list, 'v', clusterOf);
      const oneByOne = buildIndex(list.values(), 'v', clusterOf);
      expect(bytes(oneByOne)).toEqual(bytes(whole));
      expect({ ...oneByOne.meta, build_ms: 0 }).toEqual({ ...whole.meta, build_ms: 0 });
    }
  });
});
