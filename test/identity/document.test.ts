// Document reading (identity/document): the PassportEye specimens give exactly the fields of its own
// mrz_test.py; a rotated photograph is read inside a worker thread; corrupt, unsupported and oversized files give
// an error reading; the strict check and the tie-break, as unit tests. The MRZ text steps have their table tests
// in test/identity/mrz/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenceBack, photograph } from '../../bench/licence-images.js';
import { SPECIMEN_TD2, SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import { median, rotate } from '../../identity/document/image.js';
import {
  createDocumentReader,
  type DocumentReader,
  type MrzFields,
  strictCheck,
} from '../../identity/document/index.js';
import type { Ocr } from '../../identity/document/ocr.js';
import { tieBreak, warmUp } from '../../identity/document/reader.js';
import { NY_LICENCE } from '../helpers/licences.js';
import { HAS_SHARED_DATA, REPO_ROOT, sharedPath } from '../helpers/shared-data.js';

import { TD3_LINES } from './mrz/specimens.js';

describe('valid readings that disagree: the tie-break', () => {
  const good = { ...SPECIMEN_TD3, document_number: 'A0000000' };
  const chance = { ...SPECIMEN_TD3, document_number: 'ADUU00DU' };
  const invalid = { ...SPECIMEN_TD3, document_number: 'A0000000', birth_date: null };

  it('takes the group whose contested fields more preprocessings read, valid or not (100_pass-isl)', () => {
    const readings = [
      { variant: 'strip', fields: chance },
      { variant: 'gray-large', fields: good },
      // check digits invalid elsewhere (a date), but the same document number: a second reading of it
      { variant: 'sauvola', fields: invalid },
    ];
    expect(tieBreak([chance, good], readings)).toBe(1);
  });

  it('stays undecided (→ readings_disagree) on a tie or with a single backer', () => {
    expect(
      tieBreak(
        [chance, good],
        [
          { variant: 'strip', fields: chance },
          { variant: 'gray', fields: good },
        ],
      ),
    ).toBeNull();
    expect(
      tieBreak(
        [chance, good],
        [
          { variant: 'strip', fields: chance },
          { variant: 'otsu', fields: chance },
          { variant: 'gray', fields: good },
          { variant: 'sauvola', fields: invalid },
        ],
      ),
    ).toBeNull();
    // two readings of the same preprocessing are one backer
    expect(
      tieBreak(
        [chance, good],
        [
          { variant: 'strip', fields: chance },
          { variant: 'gray', fields: good },
          { variant: 'gray', fields: invalid },
        ],
      ),
    ).toBeNull();
  });
});

describe('the OCR engines warm-up', () => {
  /** An engine that records which passes it was asked for. */
  const recording = () => {
    const passes: string[] = [];
    const pass =
      <T>(name: string, out: T) =>
      async (): Promise<T> => {
        passes.push(name);
        return out;
      };
    const ocr: Ocr = {
      layout: pass('layout', []),
      block: pass('block', ''),
      blockLines: pass('blockLines', []),
      blockLstm: pass('blockLstm', ''),
      pageLstm: pass('pageLstm', ''),
      close: async () => {},
    };
    return { ocr, passes };
  };

  it('reads the specimen by every pass a read starts with or searches by when no read has begun', async () => {
    const { ocr, passes } = recording();
    await warmUp(ocr, () => false);
    expect(passes.sort()).toEqual(['block', 'blockLines', 'blockLstm', 'layout']);
  });

  it('runs no pass once a read has begun: the document that arrived while the engines loaded pays their start-up', async () => {
    const { ocr, passes } = recording();
    await warmUp(ocr, () => true);
    expect(passes).toEqual([]);
  });
});

describe('image handling', () => {
  it("fills the corners a rotation uncovers with the image's median grey, not white", async () => {
    // a grey photograph turned by its skew: a white wedge would make a global threshold split fill from paper
    const g = { data: new Uint8Array(200 * 100).fill(120), width: 200, height: 100 };
    for (let i = 0; i < 200; i += 10) g.data[50 * 200 + i] = 0;
    expect(median(g)).toBe(120);
    const r = await rotate(g, 20);
    expect(r.width).toBeGreaterThan(200);
    expect(r.data[0]).toBe(120);
    expect(r.data[r.data.length - 1]).toBe(120);
  });
});

describe('strict check', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('passes the ICAO specimens (UTO), D for Germany and XXA', () => {
    expect(strictCheck(SPECIMEN_TD3, TD3_LINES, now)).toEqual([]);
    expect(
      strictCheck({ ...SPECIMEN_TD3, issuing_country: 'D', nationality: 'XXA' }, TD3_LINES, now),
    ).toEqual([]);
  });

  it('fails what check digits cannot catch', () => {
    // 'AOUDOOQD' for 'A0000000': O and Q in a document number with digits are ambiguous
    expect(strictCheck({ ...SPECIMEN_TD3, document_number: 'AOUD00Q0' }, TD3_LINES, now)).toContain(
      'document_number_ambiguous',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, document_number: 'AOUDOOQD' }, TD3_LINES, now)).toContain(
      'document_number_invalid',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, issuing_country: 'UT0' }, TD3_LINES, now)).toContain(
      'issuing_country_unknown',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, nationality: 'ZZZ' }, TD3_LINES, now)).toContain(
      'nationality_unknown',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, surname: 'ERIKSS0N' }, TD3_LINES, now)).toContain('name_invalid');
    // a stray letter inside the filler of the name line
    const noisy = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<K<<<<<<<<<<', TD3_LINES[1] as string];
    expect(strictCheck(SPECIMEN_TD3, noisy, now)).toContain('name_invalid');
    expect(strictCheck({ ...SPECIMEN_TD3, birth_date: '2030-01-01' }, TD3_LINES, now)).toContain(
      'birth_date_implausible',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, expiry_date: '1970-01-01' }, TD3_LINES, now)).toContain(
      'expiry_date_implausible',
    );
    expect(strictCheck({ ...SPECIMEN_TD3, document_type: 'I' }, TD3_LINES, now)).toContain(
      'document_type_invalid',
    );
  });
});

describe('document reader: errors', () => {
  let reader: DocumentReader;
  beforeAll(async () => {
    reader = await createDocumentReader({ maxPixels: 1_000_000, maxBytes: 2_000_000 });
  });
  afterAll(async () => {
    await reader.close();
  });

  it('gives mrz null and an error for corrupt, unsupported and oversized files, never a throw', async () => {
    const corrupt = await reader.read(Buffer.from('\xff\xd8\xff\xe0 this is not really a jpeg', 'latin1'));
    expect(corrupt).toMatchObject({ mrz: null, accepted: false, check_digits_valid: false });
    expect(corrupt.error).toMatch(/^(corrupt_image|unsupported_format):/);
    const text = await reader.read(Buffer.from('hello, world'));
    expect(text.error).toMatch(/^unsupported_format:/);
    const empty = await reader.read(new Uint8Array(0));
    expect(empty.error).toBeDefined();
    // 2000×2000 is over the 1,000,000-pixel limit: refused from its header, before decoding
    const big = await sharp({
      create: { width: 2000, height: 2000, channels: 3, background: '#fff' },
    } as never)
      .png()
      .toBuffer();
    expect((await reader.read(big)).error).toMatch(/^image_too_large:/);
    expect((await reader.read(new Uint8Array(2_000_001))).error).toMatch(/^file_too_large:/);
    // a truncated PNG
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#888' } } as never)
      .png()
      .toBuffer();
    expect((await reader.read(png.subarray(0, 60))).error).toMatch(/^corrupt_image:/);
  });

  it('a blank image has no MRZ', async () => {
    const blank = await sharp({
      create: { width: 400, height: 300, channels: 3, background: '#fff' },
    } as never)
      .jpeg()
      .toBuffer();
    const r = await reader.read(blank);
    expect(r).toMatchObject({ mrz: null, accepted: false, reasons: ['mrz_not_found'] });
    expect(r.error).toBeUndefined();
  });
});

describe.skipIf(!HAS_SHARED_DATA)('document reader on the PassportEye specimens', () => {
  let reader: DocumentReader;
  beforeAll(async () => {
    reader = await createDocumentReader();
  });
  afterAll(async () => {
    await reader.close();
  });
  const spec = (name: string) => readFileSync(sharedPath('documents/passporteye/tests', name));

  for (const [file, fields] of [
    ['passport-td3.jpg', SPECIMEN_TD3],
    ['passport-td3.png', SPECIMEN_TD3],
    ['passport-td2.jpg', SPECIMEN_TD2],
    ['passport-td2.png', SPECIMEN_TD2],
  ] as const) {
    it(`${file} gives exactly the fields of mrz_test.py, accepted`, async () => {
      const r = await reader.read(spec(file));
      expect(r.mrz).toEqual(fields);
      expect(r.check_digits_valid).toBe(true);
      expect(r.accepted).toBe(true);
      expect(r.reasons).toEqual([]);
      expect(r.lines).toHaveLength(2);
      expect(r.quality).toMatchObject({ width: 1334 + (fields.format === 'TD2' ? 6 : 0) });
    });
  }

  describe('the MRZ band located by image analysis, read first', () => {
    let profiled: DocumentReader;
    beforeAll(async () => {
      profiled = await createDocumentReader({ profile: true });
    });
    afterAll(async () => {
      await profiled.close();
    });
    const stages = (r: { profile?: { stage: string }[] }) => (r.profile ?? []).map((p) => p.stage);

    it('gives the reading with no OCR pass to find the band when the second engine confirms its names', async () => {
      const r = await profiled.read(spec('passport-td3.jpg'), 'single', 'passport');
      expect(r.mrz).toEqual(SPECIMEN_TD3);
      expect(r.accepted).toBe(true);
      expect(stages(r)).toContain('located');
      expect(stages(r)).not.toContain('ocr.blockLines');
      expect(stages(r)).not.toContain('ocr.layout');
    });

    it('on a single side of no declared type, looks for a barcode as decoded only before reading the band', async () => {
      const r = await profiled.read(spec('passport-td3.jpg'), 'single');
      expect(r.mrz).toEqual(SPECIMEN_TD3);
      expect(r.barcode).toBeNull();
      // one barcode look, the cheap one, before the band; the deskewed looks (a skew estimate) never run
      expect(stages(r).filter((s) => s === 'barcode')).toHaveLength(1);
      expect(stages(r).indexOf('barcode')).toBeLessThan(stages(r).indexOf('locate'));
      expect(stages(r)).toContain('located');
    });

    it('a single side whose barcode only a deskewed look decodes is still read by its barcode', async () => {
      const back = await photograph(await licenceBack(NY_LICENCE), { rotate: 8, jpeg: 70 });
      const r = await profiled.read(back, 'single');
      expect(r.barcode?.aamva).toMatchObject({ document_number: 'D1234567', family_name: 'DOE' });
      expect(r.mrz).toBeNull();
      // the look as decoded missed it (turned 8°), the deskewed looks after the band found it
      expect(stages(r).filter((s) => s === 'barcode')).toHaveLength(2);
      // as a back, every barcode look comes first
      const asBack = await profiled.read(back, 'back');
      expect(asBack.barcode?.aamva).toMatchObject({ document_number: 'D1234567' });
      expect(stages(asBack)).not.toContain('locate');
    });

    it('is not taken when the LSTM engine reads its surname otherwise (79_pass-can: QATN, MARTIN)', async () => {
      const image = readFileSync(sharedPath('documents/passporteye/testdata/79_pass-can.jpg'));
      const r = await profiled.read(image, 'single', 'passport');
      // two preprocessings of the located band read QATN, accepted by the band's own second signal; the OCR
      // search that follows reads MARTIN
      expect(stages(r)).toContain('fallback');
      expect(r.mrz).toMatchObject({ surname: 'MARTIN', given_names: 'SARAH', document_number: 'ZE000509' });
      expect(r.accepted).toBe(true);
    });
  });

  describe('the OCR search: orientations', () => {
    let searching: DocumentReader;
    beforeAll(async () => {
      searching = await createDocumentReader({ locateFirst: false, profile: true });
    });
    afterAll(async () => {
      await searching.close();
    });
    const strips = (r: { profile?: { stage: string }[] }) =>
      (r.profile ?? []).filter((p) => p.stage === 'ocr.blockLines').length;

    it('reads a page turned upside down (its upright strip finds no MRZ)', async () => {
      const turned = await sharp(spec('passport-td3.jpg')).rotate(180).jpeg({ quality: 90 }).toBuffer();
      const r = await searching.read(turned, 'single', 'passport');
      expect(r.mrz).toEqual(SPECIMEN_TD3);
      expect(r.accepted).toBe(true);
      expect(Math.abs(r.rotation) % 360).toBe(180);
    });

    it('tries no other turn once the deskewed page reads as an MRZ, valid or not (25_pass-uto)', async () => {
      const image = readFileSync(sharedPath('documents/passporteye/testdata/25_pass-uto.jpg'));
      const r = await searching.read(image, 'single', 'passport');
      expect(r.accepted).toBe(false);
      expect(r.mrz?.issuing_country).toBe('UTO');
      // the deskewed orientation's strip only: upside down and the quarter turns each read a strip of their own
      expect(strips(r)).toBe(1);
    });
  });

  it('reads a quarter-turned photograph inside a worker thread (Piscina), as the service does', async () => {
    const rotated = await sharp(spec('passport-td2.jpg')).rotate(90).jpeg({ quality: 85 }).toBuffer();
    const pool = new Piscina({
      filename: join(REPO_ROOT, 'test/identity/document-worker.mjs'),
      minThreads: 1,
      maxThreads: 1,
    });
    try {
      const r = (await pool.run(rotated)) as { mrz: MrzFields | null; accepted: boolean; rotation: number };
      expect(r.mrz).toEqual(SPECIMEN_TD2);
      expect(r.accepted).toBe(true);
      expect(Math.abs(r.rotation) % 360).not.toBe(0);
    } finally {
      await pool.destroy();
    }
  });
});
