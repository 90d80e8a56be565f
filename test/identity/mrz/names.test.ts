// Names and country codes against a second engine (LSTM), letter by letter: a letter it reads otherwise is adopted
// with the support of another reading or a second LSTM reading, else unresolved; a dropped letter is inserted only
// when two LSTM readings put it at the same place; texts that cannot be aligned give no signal.
import { describe, expect, it } from 'vitest';
import {
  checkNames,
  insertionIn,
  namesConfirmed,
  substringDistance,
} from '../../../identity/document/mrz/names.js';
import { parseLines } from '../../../identity/document/mrz/parse.js';

const POL = ['P<POLKONALSKA<KWIATKOWSKA<<JOANNA<<<<<<<<<<<', 'AA00000000POL6002084F1412314<<<<<<<<<<<<<<<4'];
const POL_RIGHT = 'P<POLKOWALSKA<KWIATKOWSKA<<JOANNA<<<<<<<<<<<';
// the LSTM engine reads the letters right, the filler as K/L, and may read '<<' as three characters
const POL_LSTM =
  'P<POLKOWALSKA<KWIATKOWSKALKSJOANNA<<L<L<L<L<L<\nAAOOOOOOOOPOL6002084F1412314<<<<<<<<K<K<K<<<<K<4\n';
const POL_OTHER = ['P<POLKOWALSKA<KWIATKONSKA<<JOANNA<<<<<<<<<<<', POL[1] as string];

// 79_pass-can: every check digit valid, the surname read without its A by the legacy engine
const CAN = ['P<CANMRTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'ZE000509<9CAN8501019F2301147<<<<<<<<<<<<<<08'];
// the LSTM engine also reads the issuing country CAN as EAN: no ICAO code, its misreading, not a disagreement
const CAN_GRAY =
  'PCEANMARTINCCSARAH<CCC<CLLLLLLLLLLLLLLLLLLLLL\nZEDODS509<9CAN8501019F2301147<<<<<<<<<<LL<L08\n';
const CAN_OTSU =
  'PCEANMARTINCCSARAHCCLCCLLLLLLLLLLLLLLLLLLLL\nZEOODS509<9CANB501019F2301147<<<<<L<<L<LLKKLKLKO8\n';

type Row = [
  string,
  string[],
  string,
  string[][],
  string[],
  { compared: boolean; adopted: number; unresolved: number },
  string | null,
];

describe('names: a second engine must agree letter by letter', () => {
  it.each([
    [
      'W read as N, another legacy reading has W',
      POL,
      POL_LSTM,
      [POL_OTHER],
      [],
      { compared: true, adopted: 1, unresolved: 0 },
      POL_RIGHT,
    ],
    [
      'no other reading supports it',
      POL,
      POL_LSTM,
      [POL],
      [],
      { compared: true, adopted: 0, unresolved: 1 },
      POL[0],
    ],
    // a known legacy confusion (N for W) that a second LSTM reading of another preprocessing confirms
    [
      'a second LSTM reading confirms a known confusion',
      POL,
      POL_LSTM,
      [POL],
      [POL_LSTM],
      { compared: true, adopted: 1, unresolved: 0 },
      POL_RIGHT,
    ],
    [
      'the second LSTM reading disagrees',
      POL,
      POL_LSTM,
      [POL],
      [POL_LSTM.replace('KOWALSKA', 'KONALSKA')],
      { compared: true, adopted: 0, unresolved: 1 },
      POL[0],
    ],
    // N read for X is no known confusion: both LSTM readings agreeing is not enough
    [
      'an unknown confusion',
      POL,
      POL_LSTM.replace('KOWALSKA', 'KOXALSKA'),
      [POL],
      [POL_LSTM.replace('KOWALSKA', 'KOXALSKA')],
      { compared: true, adopted: 0, unresolved: 1 },
      POL[0],
    ],
    [
      'a letter more, read once',
      CAN,
      'PCEANMARTINCCSARAH<CCC<CLLLLLLLLLLLLLLLLLLLLL\n',
      [CAN],
      [],
      { compared: true, adopted: 0, unresolved: 1 },
      CAN[0],
    ],
    [
      'a letter more, read twice at the same place',
      CAN,
      CAN_GRAY,
      [CAN],
      [CAN_OTSU],
      { compared: true, adopted: 1, unresolved: 0 },
      'P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<',
    ],
    [
      'a letter more, another letter in the second reading',
      CAN,
      CAN_GRAY,
      [CAN],
      [CAN_OTSU.replace('MARTIN', 'MERTIN')],
      { compared: true, adopted: 0, unresolved: 1 },
      CAN[0],
    ],
    // an LSTM letter that makes the code another ICAO code (CAN → CAF) is a disagreement as before
    [
      'a country code read as another ICAO code',
      CAN,
      CAN_GRAY.replace('PCEAN', 'P<CAF'),
      [CAN],
      [CAN_OTSU],
      { compared: true, adopted: 1, unresolved: 1 },
      'P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<',
    ],
    [
      'texts that cannot be aligned',
      POL,
      'XQXQXQXQXQXQXQXQXQXQXQXQ\n',
      [POL],
      [],
      { compared: false, adopted: 0, unresolved: 0 },
      POL[0],
    ],
    ['no text', POL, '', [POL], [], { compared: false, adopted: 0, unresolved: 0 }, POL[0]],
  ] as Row[])('checkNames: %s', (_, lines, lstm, others, more, counts, first) => {
    const r = checkNames('TD3', lines, lstm, others, more);
    expect(r).toMatchObject(counts);
    expect(r.lines[0]).toBe(first);
    expect(r.lines[1]).toBe(lines[1]);
  });

  it('the letter adopted for 79_pass-can parses as MARTIN of CAN', () => {
    const r = checkNames('TD3', CAN, CAN_GRAY, [CAN], [CAN_OTSU]);
    expect(parseLines('TD3', r.lines)?.fields).toMatchObject({ surname: 'MARTIN', issuing_country: 'CAN' });
  });

  it.each([
    ['MRTIN', 'P<CANMARTIN<<', 5, { pos: 6, letter: 'A' }],
    // a letter before or after the run is a filler the LSTM engine read as a letter, not an insertion
    ['SARAH', '<<CSARAH<<', 3, null],
    ['SARAH', '<<SARAHC<<', 2, null],
    // the same run, no letter more
    ['MARTIN', 'P<CANMARTIN<<', 5, null],
    // too short to tell
    ['AB', 'AXB', 0, null],
  ] as [string, string, number, { pos: number; letter: string } | null][])(
    'insertionIn(%s, %s, %i)',
    (run, line, at, out) => {
      expect(insertionIn(run, line, at)).toEqual(out);
    },
  );

  // the located band's reading is taken only when the LSTM engine holds every letter of its name field
  const CAN_QATN = ['P<CANQATN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<<<', CAN[1] as string];
  const CAN_RIGHT = ['P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<', CAN[1] as string];
  const TD1_D = [
    'IDD<<T220001293<<<<<<<<<<<<<<<',
    '6408125<2010315D<<<<<<<<<<<<<4',
    'MUSTERMANN<<ERIKA<<<<<<<<<<<<<',
  ];
  it.each([
    // 79_pass-can: two preprocessings read QATN, the LSTM engine MARTIN; checkNames sees no signal there
    ['a surname the second engine reads otherwise (QATN for MARTIN)', 'TD3', CAN_QATN, CAN_GRAY, false],
    ['the same reading of MARTIN, fillers read as C and L', 'TD3', CAN_RIGHT, CAN_GRAY, true],
    [
      'every name run, shifted by the K/L read for fillers',
      'TD3',
      [POL_RIGHT, POL[1] as string],
      POL_LSTM,
      true,
    ],
    ['one letter of the surname otherwise', 'TD3', POL, POL_LSTM, false],
    ['a given name missing from the engine', 'TD3', CAN_RIGHT, CAN_GRAY.replace('SARAH', 'SAR'), false],
    [
      'the name line of a TD1 card is its third',
      'TD1',
      TD1_D,
      'IDDKKT22000129\nMUSTERMANNKKERIKALLLLLLLLLLLLL\n',
      true,
    ],
    ['no text', 'TD3', CAN_RIGHT, '', false],
    ['text that cannot be aligned', 'TD3', CAN_RIGHT, 'XQXQXQXQXQXQXQXQXQXQXQXQ\n', false],
  ] as [string, 'TD3' | 'TD1', string[], string, boolean][])(
    'namesConfirmed: %s',
    (_, format, lines, text, confirmed) => {
      expect(namesConfirmed(format, lines, text)).toBe(confirmed);
    },
  );

  it.each([
    ['MARTIN', 'XXMARTINXX', 0],
    ['MRTIN', 'P<CANMARTIN<<', 1],
    ['MARTIN', 'MRTIN', 1],
    ['ABC', '', 3],
  ])('substringDistance(%s, %s) = %i', (p, t, d) => {
    expect(substringDistance(p, t)).toBe(d);
  });
});
