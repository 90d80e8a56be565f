// Repair of OCR confusions: characters coerced to their field's class, country codes to the one ICAO code a
// confusion away, and a failing check digit's field searched for its unique minimal change (another reading of the
// band decides between several).
import { describe, expect, it } from 'vitest';
import { LAYOUTS } from '../../../identity/document/mrz/layouts.js';
import { icaoRepair, repair } from '../../../identity/document/mrz/repair.js';
import type { MrzFormat } from '../../../identity/document/types.js';
import { TD2_LINES, TD3_LINES } from './specimens.js';

const [TD3_0, TD3_1] = TD3_LINES as [string, string];
const FRA_NAMES = 'P<FRAULYSSE<<CHRISTOPHE<<<<<<<<<<<<<<<<<<<<<';
/** 43_pass-fra as the legacy engine read it at 44 px: a 0 for the D, a 5 for the S, H for M */
const FRA_LEGACY = [FRA_NAMES, '08C0503380FRA6004103H1806058<<<<<<<<<<<<<<06'];

describe('repair of OCR confusions', () => {
  it.each([
    ['a code that is one', 'UTO', undefined, 'UTO'],
    ['W read as H', 'THN', undefined, 'TWN'],
    ['M read as H', 'HAC', undefined, 'MAC'],
    ['a one-letter code with its filler', 'D<<', undefined, 'D<<'],
    // BDR is no ICAO code and no single confusion makes one: left for the strict check to refuse
    ['no code a confusion away', 'BDR', undefined, 'BDR'],
    // a digit read in a code may stand for another letter than the usual one: AU8 is AUS, not AUB
    ['8 read for S', 'AUB', 'AU8', 'AUS'],
    ['B without the raw reading', 'AUB', undefined, 'AUB'],
    ['0 read in a code that is one', 'UTO', 'UT0', 'UTO'],
    ['digits left in the field', 'U1O', undefined, 'U1O'],
  ] as [string, string, string | undefined, string][])('icaoRepair: %s (%s)', (_, field, raw, out) => {
    expect(icaoRepair(field, raw)).toBe(out);
  });

  it.each([
    ['the specimen', 'TD3', TD3_LINES, [], TD3_LINES, 0],
    [
      // 'UT0' for UTO, 'O' for 0 in the birth date, 'I' for 1 in the expiry date
      'letters in numeric fields, digits in country codes',
      'TD3',
      ['P<UT0ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UT07408I22F12O4159ZE184226B<<<<<10'],
      [],
      TD3_LINES,
      4,
    ],
    [
      // issuers keep O and Q out of document numbers: read as 0, never read back
      'O in a document number',
      'TD2',
      ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D2314589O7UTO7408122F1204159<<<<<<<6'],
      [],
      TD2_LINES,
      1,
    ],
    ['sex read P', 'TD3', [TD3_0, TD3_1.replace('2F1', '2P1')], [], TD3_LINES, 1],
    [
      'THN for TWN',
      'TD3',
      ['P<THNLIN<<MEI<HUA<<<<<<<<<<<<<<<<<<<<<<<<<<<', '0000000000THN7601015F1404018A234567893<<<<18'],
      [],
      ['P<TWNLIN<<MEI<HUA<<<<<<<<<<<<<<<<<<<<<<<<<<<', '0000000000TWN7601015F1404018A234567893<<<<18'],
      2,
    ],
    [
      // D read for 0: of the usual swaps in the document number, only 0 for D passes its check digit
      'a single change passes the check digit',
      'TD3',
      [TD3_0, TD3_1.replace('L898902C3', 'L8989D2C3')],
      [],
      TD3_LINES,
      1,
    ],
    [
      // B read for 8: 8 for B passes, and so do LB9B902C3 and LB9890ZC3: no repair
      'several single changes pass, nothing to decide',
      'TD3',
      [TD3_0, TD3_1.replace('L898902C3', 'LB98902C3')],
      [],
      [TD3_0, TD3_1.replace('L898902C3', 'LB98902C3')],
      0,
    ],
    [
      // 08CDS0338: D8CDS0338 and 08CD50338 both pass; alone, no repair
      'two single changes pass: none taken',
      'TD3',
      [FRA_NAMES, '08CDSO3380FRA6004103M1806058<<<<<<<<<<<<<<06'],
      [],
      [FRA_NAMES, '08CDS03380FRA6004103M1806058<<<<<<<<<<<<<<06'],
      1,
    ],
    [
      // the legacy engine read a 5 where the S is: 08CD50338
      'two single changes pass: another reading decides',
      'TD3',
      [FRA_NAMES, '08CDSO3380FRA6004103M1806058<<<<<<<<<<<<<<06'],
      [FRA_LEGACY],
      [FRA_NAMES, '08CD503380FRA6004103M1806058<<<<<<<<<<<<<<06'],
      2,
    ],
    [
      // S read for 6 in the date of birth: only another reading has the 6
      'a digit only another reading has',
      'TD3',
      [FRA_NAMES, '08CDSO3380FRAS004103M1806058<<<<<<<<<<<<<<06'],
      [FRA_LEGACY],
      [FRA_NAMES, '08CD503380FRA6004103M1806058<<<<<<<<<<<<<<06'],
      4,
    ],
  ] as [string, MrzFormat, string[], string[][], string[], number][])(
    'repair: %s',
    (_, format, lines, alternatives, out, changes) => {
      expect(repair(LAYOUTS[format], lines, alternatives)).toEqual({ lines: out, changes });
    },
  );
});
