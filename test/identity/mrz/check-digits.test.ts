// Check digits: ICAO 9303-3's weights 7, 3, 1 over '<' = 0, digits, A–Z = 10–35; and the verdict of each check
// digit of a layout on lines (a filler digit on empty optional data, a TD1 long document number).
import { describe, expect, it } from 'vitest';
import {
  checkDigit,
  checkedPositions,
  checkResults,
  td1LongNumber,
} from '../../../identity/document/mrz/check-digits.js';
import { LAYOUTS } from '../../../identity/document/mrz/layouts.js';
import type { MrzFormat } from '../../../identity/document/types.js';
import { TD1_LINES, TD1_LONG_LINES, TD2_LINES, TD3_LINES } from './specimens.js';

const [TD3_0, TD3_1] = TD3_LINES as [string, string];

describe('check digits', () => {
  it.each([
    ['L898902C3', 6],
    ['740812', 2],
    ['120415', 9],
    ['D23145890', 7],
    ['D23145890734', 9],
    ['ZE184226B<<<<<', 1],
    ['<<<<<<<<<<<<<<', 0],
    ['', 0],
    // anything else counts as '<'
    ['A-B', checkDigit('A<B')],
  ] as [string, number][])('checkDigit(%j) = %i', (s, digit) => {
    expect(checkDigit(s)).toBe(digit);
  });

  it.each([
    ['TD3 specimen', 'TD3', TD3_LINES, []],
    ['TD2 specimen', 'TD2', TD2_LINES, []],
    ['TD1 specimen', 'TD1', TD1_LINES, []],
    ['TD1 long document number', 'TD1', TD1_LONG_LINES, []],
    [
      'a wrong document number digit',
      'TD3',
      [TD3_0, TD3_1.replace('C36', 'C37')],
      ['document_number', 'composite'],
    ],
    ['a wrong birth date', 'TD3', [TD3_0, TD3_1.replace('740812', '740813')], ['birth_date', 'composite']],
    ['a wrong composite digit', 'TD3', [TD3_0, `${TD3_1.slice(0, 43)}1`], ['composite']],
    // empty optional data may carry '<' as its check digit; optional data with a '<' digit may not
    ['TD3 empty optional data, < digit', 'TD3', [TD3_0, 'L898902C36UTO7408122F1204159<<<<<<<<<<<<<<<8'], []],
    [
      'TD3 optional data with a < digit',
      'TD3',
      [TD3_0, 'L898902C36UTO7408122F1204159ZE184226B<<<<<<0'],
      ['optional_data', 'composite'],
    ],
    ['a line missing', 'TD1', TD1_LINES.slice(0, 2), []],
  ] as [string, MrzFormat, string[], string[]][])('%s → invalid %j', (_, format, lines, invalid) => {
    const verdicts = checkResults(LAYOUTS[format], lines);
    expect(verdicts.map((c) => c.name)).toEqual(LAYOUTS[format].checks.map((c) => c.name));
    expect(verdicts.filter((c) => !c.valid).map((c) => c.name)).toEqual(invalid);
  });

  it.each([
    ['a long number', TD1_LONG_LINES, { number: 'D23145890734', digit: '9' }],
    ['a nine-character number', TD1_LINES, null],
    ['a < check digit after a short number', ['I<UTOD2314589<<<<<<<<<<<<<<<<<'], null],
    ['a one-character continuation (no digit of its own)', ['I<UTOD23145890<7<<<<<<<<<<<<<<'], null],
  ] as [string, string[], { number: string; digit: string } | null][])(
    'td1LongNumber: %s',
    (_, lines, out) => {
      expect(td1LongNumber(lines)).toEqual(out);
    },
  );

  it.each([
    // the second line but nationality and sex
    ['TD3', 44 - 3 - 1],
    // number and digit, dates and digits, optional data, composite digit
    ['TD2', 10 + 7 + 7 + 7 + 1],
    // the first line from the number on; the second line but sex and nationality
    ['TD1', 25 + 30 - 1 - 3],
    // number, dates: no composite
    ['MRVA', 10 + 7 + 7],
  ] as [MrzFormat, number][])('checkedPositions(%s) covers %i positions', (format, n) => {
    const covered = checkedPositions(LAYOUTS[format]);
    expect(covered.size).toBe(n);
    // names are never covered
    const names = LAYOUTS[format].fields.find((f) => f.name === 'names');
    expect(covered.has(`${names?.line}:${names?.start}`)).toBe(false);
  });
});
