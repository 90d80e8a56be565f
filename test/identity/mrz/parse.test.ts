// Parsing MRZ lines into fields: every format's specimen, the TD1 long document number, MRZ dates with their
// century, check digits that fail, and repair then parse (readCandidate).
import { describe, expect, it } from 'vitest';
import { SPECIMEN_TD2, SPECIMEN_TD3 } from '../../../bench/mrz-specimens.js';
import { findCandidates } from '../../../identity/document/mrz/lines.js';
import { mrzDate, parseLines, readCandidate } from '../../../identity/document/mrz/parse.js';
import type { MrzFields, MrzFormat } from '../../../identity/document/types.js';
import { MRVA_LINES, MRVB_LINES, TD1_LINES, TD1_LONG_LINES, TD2_LINES, TD3_LINES } from './specimens.js';

const [TD3_0, TD3_1] = TD3_LINES as [string, string];
const VISA = { ...SPECIMEN_TD3, document_type: 'V', document_number: 'L8988901C', nationality: 'XXX' };

describe('parsing MRZ lines', () => {
  it.each([
    ['740812', 'birth', '1974-08-12'],
    ['150101', 'birth', '2015-01-01'],
    // a birth date in the future is last century's
    ['300101', 'birth', '1930-01-01'],
    ['120415', 'expiry', '2012-04-15'],
    ['690101', 'expiry', '2069-01-01'],
    ['700101', 'expiry', '1970-01-01'],
    ['991301', 'expiry', null],
    ['990230', 'birth', null],
    ['74O812', 'birth', null],
  ] as [string, 'birth' | 'expiry', string | null][])('mrzDate(%s, %s) = %s', (yymmdd, kind, out) => {
    expect(mrzDate(yymmdd, kind, new Date('2026-01-01T00:00:00Z'))).toBe(out);
  });

  it.each([
    ['TD3', TD3_LINES, SPECIMEN_TD3],
    ['TD2', TD2_LINES, SPECIMEN_TD2],
    ['TD1', TD1_LINES, { ...SPECIMEN_TD2, format: 'TD1' }],
    [
      'TD1',
      TD1_LONG_LINES,
      {
        ...SPECIMEN_TD2,
        format: 'TD1',
        document_number: 'D23145890734',
        surname: 'STEVENSON',
        given_names: 'PETER JOHN',
        birth_date: '1934-07-12',
        sex: 'M',
        expiry_date: '1995-07-12',
      },
    ],
    [
      'MRVA',
      MRVA_LINES,
      {
        ...VISA,
        format: 'MRVA',
        birth_date: '1940-09-07',
        expiry_date: '1996-12-10',
        optional_data: '6ZE184226B',
      },
    ],
    [
      'MRVB',
      MRVB_LINES,
      { ...VISA, format: 'MRVB', birth_date: '1940-09-07', expiry_date: '1996-12-10', optional_data: null },
    ],
  ] as [MrzFormat, string[], MrzFields][])('parseLines(%s) of the specimen %#', (format, lines, fields) => {
    const r = parseLines(format, lines);
    expect(r).toEqual({ fields, lines, check_digits_valid: true, invalid_checks: [], changes: 0 });
  });

  it.each([
    ['a wrong document number digit', [TD3_0, TD3_1.replace('C36', 'C37')], ['document_number', 'composite']],
    ['an impossible birth date', [TD3_0, TD3_1.replace('7408122', '7413122')], ['birth_date', 'composite']],
  ])('parseLines: %s → invalid %j', (_, lines, invalid) => {
    const r = parseLines('TD3', lines);
    expect(r?.check_digits_valid).toBe(false);
    expect(r?.invalid_checks).toEqual(expect.arrayContaining(invalid));
  });

  it.each([
    // the mrz package reads its own format from the lines: a TD3 of TD2 length is none
    ['lines of another format', 'TD3', TD2_LINES],
    ['no lines', 'TD2', []],
  ] as [string, MrzFormat, string[]][])('parseLines: %s → null', (_, format, lines) => {
    expect(parseLines(format, lines)).toBeNull();
  });

  it.each([
    [
      'a confusion in every field class',
      'TD3',
      ['P<UT0ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UT07408I22F12O4159ZE184226B<<<<<10'],
      SPECIMEN_TD3,
      4,
    ],
    [
      'O in a document number',
      'TD2',
      ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D2314589O7UTO7408122F1204159<<<<<<<6'],
      SPECIMEN_TD2,
      1,
    ],
  ] as [string, MrzFormat, string[], MrzFields, number][])(
    'readCandidate: %s',
    (_, format, lines, fields, changes) => {
      const r = readCandidate({ format, lines });
      expect(r).toMatchObject({ fields, check_digits_valid: true, changes });
    },
  );

  it('drops what a photographed page adds: a mark after the name filler, a letter after the last digit (62_pass-aus)', () => {
    // a filler lost before the last two digits and an F read after them; a 1 after the name filler
    const text = 'P<AUSC1TIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<1\nPA09404097AU88406077F1903212<17331334P<<<08F';
    const valid = findCandidates(text)
      .map((c) => readCandidate(c))
      .filter((r) => r?.check_digits_valid);
    expect(valid).toHaveLength(1);
    expect(valid[0]?.fields).toMatchObject({
      issuing_country: 'AUS',
      nationality: 'AUS',
      document_number: 'PA0940409',
      surname: 'CITIZEN',
      given_names: 'JANE',
      birth_date: '1984-06-07',
      expiry_date: '2019-03-21',
      optional_data: '17331334P',
    });
  });

  it('readCandidate: a candidate with the wrong number of lines is none', () => {
    expect(readCandidate({ format: 'TD1', lines: TD3_LINES })).toBeNull();
  });
});
