// Digits from a second engine: the LSTM engine's filler (K, L) restored, and a hybrid reading with the characters
// check digits cover taken from its best-aligned line, the legacy engine's letters kept.
import { describe, expect, it } from 'vitest';
import { hybridCandidate, restoreFiller } from '../../../identity/document/mrz/hybrid.js';
import { readCandidate } from '../../../identity/document/mrz/parse.js';

// 79_pass-hun: the legacy engine reads BD0002028 as BDODOZOZB, the LSTM engine the digits right, its fillers as L
const HUN_LEGACY = [
  'P<HUNHANDRA<<R02ALIA<1RMA<<<<<<<<<<<<<<<<<<<',
  'BDODOZOZBZHUN7802225F2203012<<<<<<<<<<<<<<O6',
];
const HUN_LSTM =
  'P<HUNHANDRAK<ROZALIAKIRMAKKKLLLLLLLLLLLLLLLL\nBDD0020282HUN7802225F2203012<<<<<<<<<LL<L<06\n';

describe('digits: a second engine', () => {
  it.each([
    ['ZE184226B<<<<<10', 'ZE184226B<<<<<10'],
    // a run of <, K and L that holds a '<' is filler
    ['ZE184226B<<KL<10', 'ZE184226B<<<<<10'],
    // three or more at the end of the line
    ['ANNAKKLL', 'ANNA<<<<'],
    // a K or L next to a filler, or three at the end, is taken for filler too: harmless, since a hybrid takes from
    // this text only what check digits cover, never names
    ['KLAUS<<KARL', 'KLAUS<<<ARL'],
    ['KARLKL', 'KAR<<<'],
    ['KLAUS<KARL<', 'KLAUS<<AR<<'],
    // a K or L away from fillers stays
    ['KLAUS<BAKER', 'KLAUS<BAKER'],
  ])('restoreFiller(%s) = %s', (line, out) => {
    expect(restoreFiller(line)).toBe(out);
  });

  it.each([
    [
      'the LSTM digits, the legacy letters',
      HUN_LEGACY,
      HUN_LSTM,
      ['P<HUNHANDRA<<R02ALIA<1RMA<<<<<<<<<<<<<<<<<<<', 'BDD0020282HUN7802225F2203012<<<<<<<<<<<<<<06'],
    ],
    // a third of the row at least must agree: otherwise the LSTM line is another row (or none)
    ['another row altogether', HUN_LEGACY, 'XQXQXQXQXQXQXQXQXQXQXQXQ\n', null],
    ['no text', HUN_LEGACY, '', null],
  ] as [string, string[], string, string[] | null][])('hybridCandidate: %s', (_, legacy, lstm, lines) => {
    const h = hybridCandidate({ format: 'TD3', lines: legacy }, lstm);
    expect(h ? h.lines : null).toEqual(lines);
  });

  it('the hybrid of 79_pass-hun reads with every check digit valid and the names of the legacy engine', () => {
    expect(readCandidate({ format: 'TD3', lines: HUN_LEGACY })?.check_digits_valid).toBe(false);
    const h = hybridCandidate({ format: 'TD3', lines: HUN_LEGACY }, HUN_LSTM);
    const r = h && readCandidate(h);
    expect(r?.check_digits_valid).toBe(true);
    expect(r?.fields).toMatchObject({
      document_number: 'BD0002028',
      surname: 'HANDRA',
      given_names: 'ROZALIA IRMA',
      nationality: 'HUN',
      sex: 'F',
    });
  });
});
