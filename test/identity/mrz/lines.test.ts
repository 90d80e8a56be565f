// Finding MRZ lines in OCR text: cleaning, fitting to the format's length, the plausible starts of a line, and the
// candidates (format and lines) that groups of consecutive lines give.
import { describe, expect, it } from 'vitest';
import { cleanLine, findCandidates, fitLength, starts } from '../../../identity/document/mrz/lines.js';
import type { MrzFormat } from '../../../identity/document/types.js';
import { MRVB_LINES, TD1_LINES, TD2_LINES, TD3_LINES } from './specimens.js';

const [TD3_0, TD3_1] = TD3_LINES as [string, string];

describe('finding MRZ lines', () => {
  it.each([
    ['p<uto eriksson', 'P<UTOERIKSSON'],
    ['P«UTO', 'P<<UTO'],
    ['P‹UTO(ERIK[SSON{', 'P<UTO<ERIK<SSON<'],
    ['L898 902-C3.6', 'L898902C36'],
  ])('cleanLine(%j) = %j', (line, out) => {
    expect(cleanLine(line)).toBe(out);
  });

  it.each([
    ['exact', TD3_0, 44, TD3_0],
    ['a filler missing at the end', 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<', 44, TD3_0],
    ['a filler more inside', 'L898902C36UTO7408122F1204159ZE184226B<<<<<<10', 44, TD3_1],
    ['a filler missing inside', 'L898902C36UTO7408122F1204159ZE184226B<<<<10', 44, TD3_1],
    ['too long, no filler run to absorb it', 'ABCDEFGHIJ', 8, 'ABCDEFGH'],
    ['too short, no filler run', 'ABCDEF', 8, 'ABCDEF<<'],
  ] as [string, string, number, string][])('fitLength: %s', (_, line, n, out) => {
    expect(fitLength(line, n)).toBe(out);
  });

  it.each([
    ['a name line as is', TD3_0, 44, 'names', [TD3_0]],
    // a character after three or more fillers at the end of the name line is a mark, never a name
    ['a mark after the name filler', `${TD3_0.slice(0, 43)}<1`, 44, 'names', [TD3_0]],
    // something read before the first character: up to eight dropped
    // something read before the first character: the line fitted as it is (a filler less), and without it
    [
      'a border read before the line',
      `I${TD3_1}`,
      44,
      'data',
      ['IL898902C36UTO7408122F1204159ZE184226B<<<<10', TD3_1],
    ],
    // a letter after the last check digit puts every digit one off: the line without it too
    [
      'a letter after the last digit',
      `${TD3_1}F`,
      44,
      'data',
      ['L898902C36UTO7408122F1204159ZE184226B<<<<10F', '898902C36UTO7408122F1204159ZE184226B<<<<<10F', TD3_1],
    ],
    // aligned on the dates when two characters were read before the first
    [
      'aligned on its dates',
      `XY${TD3_1.slice(0, 40)}`,
      44,
      'data',
      [`XY${TD3_1.slice(0, 40)}`.slice(0, 42) + '<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<<<'],
    ],
  ] as [string, string, number, 'names' | 'data' | 'other', string[]][])(
    'starts: %s',
    (_, line, n, kind, out) => {
      expect(starts(line, n, kind)).toEqual(out);
    },
  );

  it.each([
    ['TD3', TD3_LINES.join('\n'), [['TD3', TD3_LINES]]],
    ['TD2', TD2_LINES.join('\n'), [['TD2', TD2_LINES]]],
    ['TD1', TD1_LINES.join('\n'), [['TD1', TD1_LINES]]],
    ['MRV-B', MRVB_LINES.join('\n'), [['MRVB', MRVB_LINES]]],
    ['OCR text around it', `UTOPIA\nPASSPORT  PASS\n${TD3_0}\n${TD3_1}\n`, [['TD3', TD3_LINES]]],
    [
      'spaces and a missing filler',
      `P<UTO ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<\n${TD3_1}`,
      [['TD3', TD3_LINES]],
    ],
    // a first line must start with a document type letter (1 read for I is one)
    ['no document type', `X<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n${TD3_1}`, []],
    ['short lines only', 'P<UTO\nL898902C3', []],
  ] as [string, string, [MrzFormat, string[]][]][])('findCandidates: %s', (_, text, out) => {
    expect(findCandidates(text).map((c) => [c.format, c.lines])).toEqual(out);
  });

  it('drops a character read after the last check digit or after the name filler (62_pass-aus)', () => {
    const text = 'P<AUSC1TIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<1\nPA09404097AU88406077F1903212<17331334P<<<08F';
    const candidates = findCandidates(text);
    expect(candidates.map((c) => c.lines[1])).toContain('PA09404097AU88406077F1903212<17331334P<<<<08');
    // a digit after the last check digit is not dropped: it may be the check digit itself, misplaced
    const digit =
      'P<AUSC1TIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<1\nPA09404097AU88406077F1903212<17331334P<<<081';
    expect(findCandidates(digit)).toHaveLength(1);
  });

  it('caps the candidates of a group of lines (a page of small print can look like many MRZ lines)', () => {
    const noisy = `P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<1012345`;
    expect(findCandidates(noisy).length).toBeLessThanOrEqual(16 * 2);
  });
});
