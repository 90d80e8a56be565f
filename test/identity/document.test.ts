// Document reading (identity/document): the PassportEye specimens give exactly the fields of its own
// mrz_test.py; a rotated photograph is read inside a worker thread; corrupt, unsupported and oversized files give
// an error reading; the strict check and the check-digit repair of OCR confusions, as unit tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPECIMEN_TD2, SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import { median, rotate } from '../../identity/document/image.js';
import {
  createDocumentReader,
  type DocumentReader,
  type MrzFields,
  strictCheck,
} from '../../identity/document/index.js';
import {
  checkDigit,
  checkNames,
  findCandidates,
  fitLength,
  hybridCandidate,
  icaoRepair,
  insertionIn,
  mrzDate,
  parseLines,
  readCandidate,
} from '../../identity/document/mrz-text.js';
import { tieBreak } from '../../identity/document/reader.js';
import { HAS_SHARED_DATA, REPO_ROOT, sharedPath } from '../helpers/shared-data.js';

const TD3_LINES = [
  'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
  'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
];
const TD2_LINES = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'];

// mrz_test.py: number, dates, names, sex, countries; personal number 'ZE184226B<<<<<' (SPECIMEN_TD3) and optional1
// '<<<<<<<' (SPECIMEN_TD2, i.e. empty)

describe('MRZ text: check digits, repair, parsing', () => {
  it('computes ICAO check digits', () => {
    expect(checkDigit('L898902C3')).toBe(6);
    expect(checkDigit('740812')).toBe(2);
    expect(checkDigit('D23145890')).toBe(7);
    expect(checkDigit('<<<<<<<<<<<<<<')).toBe(0);
  });

  it('parses SPECIMEN_TD3 and SPECIMEN_TD2 with every check digit', () => {
    const td3 = parseLines('TD3', TD3_LINES);
    expect(td3?.fields).toEqual(SPECIMEN_TD3);
    expect(td3?.check_digits_valid).toBe(true);
    const td2 = parseLines('TD2', TD2_LINES);
    expect(td2?.fields).toEqual(SPECIMEN_TD2);
    expect(td2?.check_digits_valid).toBe(true);
    const bad = parseLines('TD3', [TD3_LINES[0] as string, 'L898902C37UTO7408122F1204159ZE184226B<<<<<10']);
    expect(bad?.check_digits_valid).toBe(false);
    expect(bad?.invalid_checks).toEqual(expect.arrayContaining(['document_number', 'composite']));
  });

  it('repairs O/0 confusions by field type: letters in numeric fields, digits in country codes', () => {
    // 'UT0' for UTO, 'O' for 0 in the birth date, 'I' for 1 in the expiry date
    const read = [
      'P<UT0ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
      'L898902C36UT07408I22F12O4159ZE184226B<<<<<10',
    ];
    const [c] = findCandidates(read.join('\n'));
    expect(c?.format).toBe('TD3');
    const r = readCandidate(c as NonNullable<typeof c>);
    expect(r?.fields).toEqual(SPECIMEN_TD3);
    expect(r?.check_digits_valid).toBe(true);
    expect(r?.changes).toBe(4);
  });

  it('reads O and Q in a document number as 0 (issuers avoid them); never reads one back', () => {
    const read = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D2314589O7UTO7408122F1204159<<<<<<<6'];
    const r = readCandidate({ format: 'TD2', lines: read });
    expect(r?.fields.document_number).toBe('D23145890');
    expect(r?.check_digits_valid).toBe(true);
  });

  it('repairs a country code to the one ICAO code a letter confusion away, and only then', () => {
    expect(icaoRepair('THN')).toBe('TWN');
    expect(icaoRepair('HAC')).toBe('MAC');
    expect(icaoRepair('UTO')).toBe('UTO');
    expect(icaoRepair('D<<')).toBe('D<<');
    // BDR is no ICAO code and no single confusion makes one: left for the strict check to refuse
    expect(icaoRepair('BDR')).toBe('BDR');
    const r = readCandidate({
      format: 'TD3',
      lines: ['P<THNLIN<<MEI<HUA<<<<<<<<<<<<<<<<<<<<<<<<<<<', '0000000000THN7601015F1404018A234567893<<<<18'],
    });
    expect(r?.fields).toMatchObject({ issuing_country: 'TWN', nationality: 'TWN' });
  });

  it('a digit read in a country code may stand for another letter than the usual one (AU8: AUS, not AUB)', () => {
    expect(icaoRepair('AUB', 'AU8')).toBe('AUS');
    // without the raw reading, B is no known confusion: unchanged
    expect(icaoRepair('AUB')).toBe('AUB');
    // 0 read in a code: O, D or Q; ambiguous alternatives leave the field for the strict check to refuse
    expect(icaoRepair('UTO', 'UT0')).toBe('UTO');
  });

  it('drops a character read after the last check digit or after the name filler (the edge of a photographed page)', () => {
    // 62_pass-aus: a filler lost before the last two digits and an F read after them; a 1 after the name filler
    const read = [
      'P<AUSC1TIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<1',
      'PA09404097AU88406077F1903212<17331334P<<<08F',
    ];
    const parsed = findCandidates(read.join('\n'))
      .map((c) => readCandidate(c))
      .filter((r) => r?.check_digits_valid);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]?.fields).toMatchObject({
      issuing_country: 'AUS',
      nationality: 'AUS',
      document_number: 'PA0940409',
      surname: 'CITIZEN',
      given_names: 'JANE',
      birth_date: '1984-06-07',
      expiry_date: '2019-03-21',
      optional_data: '17331334P',
    });
    // a digit after the last check digit is not dropped: it may be the check digit itself, misplaced
    expect(findCandidates(`${read[0]}\nPA09404097AU88406077F1903212<17331334P<<<081`).length).toBe(1);
  });

  it('lets another reading of the band decide between repairs that pass a check digit (per-character vote)', () => {
    // 43_pass-fra (08CD50338): the LSTM engine's digits at 80 px Sauvola, the legacy engine's reading at 44 px
    const names = 'P<FRAULYSSE<<CHRISTOPHE<<<<<<<<<<<<<<<<<<<<<';
    const legacy = [names, '08C0503380FRA6004103H1806058<<<<<<<<<<<<<<06'];
    const lstm = [names, '08CDSO3380FRA6004103M1806058<<<<<<<<<<<<<<06'];
    // alone, 08CDS0338 has two single repairs with the check digit 0: D8CDS0338 and 08CD50338
    expect(readCandidate({ format: 'TD3', lines: lstm })?.check_digits_valid).toBe(false);
    // the legacy engine read a 5 where the S is and a 0 where the D would go: 08CD50338
    const r = readCandidate({ format: 'TD3', lines: lstm }, [legacy]);
    expect(r?.check_digits_valid).toBe(true);
    expect(r?.fields).toMatchObject({ document_number: '08CD50338', birth_date: '1960-04-10' });
    // a digit only another reading has (S read for 6 in the date of birth, the legacy engine's 6)
    const s = [names, '08CDSO3380FRAS004103M1806058<<<<<<<<<<<<<<06'];
    expect(readCandidate({ format: 'TD3', lines: s })?.check_digits_valid).toBe(false);
    expect(readCandidate({ format: 'TD3', lines: s }, [legacy])?.fields).toMatchObject({
      document_number: '08CD50338',
      birth_date: '1960-04-10',
    });
  });

  it("takes the digits from the LSTM engine where the legacy engine read letters, keeping the legacy engine's names", () => {
    // 79_pass-hun: the legacy engine reads BD0002028 as BDODOZOZB, the LSTM engine the digits right, its fillers as L
    const legacy = [
      'P<HUNHANDRA<<R02ALIA<1RMA<<<<<<<<<<<<<<<<<<<',
      'BDODOZOZBZHUN7802225F2203012<<<<<<<<<<<<<<O6',
    ];
    const lstm =
      'P<HUNHANDRAK<ROZALIAKIRMAKKKLLLLLLLLLLLLLLLL\nBDD0020282HUN7802225F2203012<<<<<<<<<LL<L<06\n';
    expect(readCandidate({ format: 'TD3', lines: legacy })?.check_digits_valid).toBe(false);
    const h = hybridCandidate({ format: 'TD3', lines: legacy }, lstm);
    const r = h && readCandidate(h);
    expect(r?.check_digits_valid).toBe(true);
    expect(r?.fields).toMatchObject({
      document_number: 'BD0002028',
      surname: 'HANDRA',
      given_names: 'ROZALIA IRMA',
      nationality: 'HUN',
      sex: 'F',
    });
    // an LSTM text that is another row altogether gives no hybrid
    expect(hybridCandidate({ format: 'TD3', lines: legacy }, 'XQXQXQXQXQXQXQXQXQXQXQXQ\n')).toBeNull();
  });

  it('fits lines with a missing or extra filler to the format length', () => {
    expect(fitLength('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<', 44)).toBe(TD3_LINES[0]);
    expect(fitLength('L898902C36UTO7408122F1204159ZE184226B<<<<<<10', 44)).toBe(TD3_LINES[1]);
    expect(fitLength('L898902C36UTO7408122F1204159ZE184226B<<<<10', 44)).toBe(TD3_LINES[1]);
  });

  it('reads MRV-B visas with its own layout (no composite digit)', () => {
    const lines = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];
    const c = findCandidates(lines.map((l) => fitLength(l, 36)).join('\n'))[0];
    expect(c?.format).toBe('MRVB');
    const r = readCandidate(c as NonNullable<typeof c>);
    expect(r?.fields).toMatchObject({
      format: 'MRVB',
      document_type: 'V',
      document_number: 'L8988901C',
      nationality: 'XXX',
      birth_date: '1940-09-07',
      expiry_date: '1996-12-10',
    });
    expect(r?.check_digits_valid).toBe(true);
  });

  it('converts dates with the century that makes sense', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(mrzDate('740812', 'birth', now)).toBe('1974-08-12');
    expect(mrzDate('150101', 'birth', now)).toBe('2015-01-01');
    expect(mrzDate('300101', 'birth', now)).toBe('1930-01-01');
    expect(mrzDate('120415', 'expiry', now)).toBe('2012-04-15');
    expect(mrzDate('991301', 'expiry', now)).toBeNull();
  });
});

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

describe('names: a second engine (LSTM) must agree letter by letter', () => {
  const td3 = [
    'P<POLKONALSKA<KWIATKOWSKA<<JOANNA<<<<<<<<<<<',
    'AA00000000POL6002084F1412314<<<<<<<<<<<<<<<4',
  ];
  // the LSTM engine reads the letters right, the filler as K/L, and may read '<<' as three characters
  const lstm =
    'P<POLKOWALSKA<KWIATKOWSKALKSJOANNA<<L<L<L<L<L<\nAAOOOOOOOOPOL6002084F1412314<<<<<<<<K<K<K<<<<K<4\n';

  it('adopts the LSTM letter where another legacy reading has it (W read as N)', () => {
    const other = ['P<POLKOWALSKA<KWIATKONSKA<<JOANNA<<<<<<<<<<<', td3[1] as string];
    const r = checkNames('TD3', td3, lstm, [other]);
    expect(r).toMatchObject({ compared: true, adopted: 1, unresolved: 0 });
    expect(r.lines[0]).toBe('P<POLKOWALSKA<KWIATKOWSKA<<JOANNA<<<<<<<<<<<');
  });

  it('leaves the letter unresolved (→ readings_disagree, review) when no other reading supports it', () => {
    const r = checkNames('TD3', td3, lstm, [td3]);
    expect(r).toMatchObject({ compared: true, adopted: 0, unresolved: 1 });
    expect(r.lines).toEqual(td3);
  });

  it('adopts a known legacy confusion (N for W) that a second LSTM reading of another preprocessing confirms', () => {
    const r = checkNames('TD3', td3, lstm, [td3], [lstm]);
    expect(r).toMatchObject({ compared: true, adopted: 1, unresolved: 0 });
    expect(r.lines[0]).toBe('P<POLKOWALSKA<KWIATKOWSKA<<JOANNA<<<<<<<<<<<');
    // the second reading disagrees: unresolved
    const other = lstm.replace('KOWALSKA', 'KONALSKA');
    expect(checkNames('TD3', td3, lstm, [td3], [other])).toMatchObject({ adopted: 0, unresolved: 1 });
    // not a known confusion (N read for X): both LSTM readings agreeing is not enough
    const x = lstm.replace('KOWALSKA', 'KOXALSKA');
    expect(checkNames('TD3', td3, x, [td3], [x])).toMatchObject({ adopted: 0, unresolved: 1 });
  });

  it('a name the LSTM engine reads with a letter more (MARTIN, ours MRTIN) is unresolved, not unchecked', () => {
    // 79_pass-can: every check digit valid, the surname read without its A by the legacy engine
    const can = [
      'P<CANMRTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<<',
      'ZE000509<9CAN8501019F2301147<<<<<<<<<<<<<<08',
    ];
    const r = checkNames('TD3', can, 'PCEANMARTINCCSARAH<CCC<CLLLLLLLLLLLLLLLLLLLLL\n', [can]);
    expect(r.compared).toBe(true);
    expect(r.unresolved).toBeGreaterThan(0);
  });

  it('adopts a letter the legacy engine dropped when two LSTM readings put it at the same place (79_pass-can)', () => {
    const can = [
      'P<CANMRTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<<',
      'ZE000509<9CAN8501019F2301147<<<<<<<<<<<<<<08',
    ];
    // the LSTM engine also reads the issuing country CAN as EAN: no ICAO code, its misreading, not a disagreement
    const gray =
      'PCEANMARTINCCSARAH<CCC<CLLLLLLLLLLLLLLLLLLLLL\nZEDODS509<9CAN8501019F2301147<<<<<<<<<<LL<L08\n';
    const otsu =
      'PCEANMARTINCCSARAHCCLCCLLLLLLLLLLLLLLLLLLLL\nZEOODS509<9CANB501019F2301147<<<<<L<<L<LLKKLKLKO8\n';
    const r = checkNames('TD3', can, gray, [can], [otsu]);
    expect(r).toMatchObject({ compared: true, adopted: 1, unresolved: 0 });
    expect(r.lines[0]).toBe('P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<');
    expect(parseLines('TD3', r.lines)?.fields).toMatchObject({ surname: 'MARTIN', issuing_country: 'CAN' });
    // the second LSTM reading puts another letter there: unresolved
    const other = otsu.replace('MARTIN', 'MERTIN');
    expect(checkNames('TD3', can, gray, [can], [other])).toMatchObject({ adopted: 0, unresolved: 1 });
    // an LSTM letter that makes the code another ICAO code (CAN → CAF) is a disagreement as before
    const caf = gray.replace('PCEAN', 'P<CAF');
    expect(checkNames('TD3', can, caf, [can], [otsu]).unresolved).toBeGreaterThan(0);
  });

  it('finds a letter more strictly inside a run, never at its ends', () => {
    expect(insertionIn('MRTIN', 'P<CANMARTIN<<', 5)).toEqual({ pos: 6, letter: 'A' });
    // a letter before or after the run is a filler the LSTM engine read as a letter, not an insertion
    expect(insertionIn('SARAH', '<<CSARAH<<', 3)).toBeNull();
    expect(insertionIn('SARAH', '<<SARAHC<<', 2)).toBeNull();
  });

  it('gives no signal when the texts cannot be aligned', () => {
    const r = checkNames('TD3', td3, 'XQXQXQXQXQXQXQXQXQXQXQXQ\n', [td3]);
    expect(r).toMatchObject({ compared: false, adopted: 0, unresolved: 0 });
  });
});
