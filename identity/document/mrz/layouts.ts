// MRZ layouts as data (ICAO 9303): for each format its lines, their length, every field with its character class
// (A letters, N digits, X either) and place, and every check digit with the ranges it covers.
import type { MrzFormat } from '../types.js';

export type Kind = 'A' | 'N' | 'X';
export interface Range {
  line: number;
  start: number;
  end: number;
}
export interface Field extends Range {
  name: string;
  kind: Kind;
}
export interface Check {
  name: string;
  /** the ranges the digit covers */
  over: Range[];
  /** position of the digit */
  at: Range;
  /** a '<' digit is valid when every covered character is '<' (empty optional data) */
  fillerOk?: boolean;
}
export interface Layout {
  format: MrzFormat;
  lines: number;
  length: number;
  fields: Field[];
  checks: Check[];
}

const f = (name: string, kind: Kind, line: number, start: number, end: number): Field => ({
  name,
  kind,
  line,
  start,
  end,
});
const r = (line: number, start: number, end: number): Range => ({ line, start, end });

const TD3_LINE2: Field[] = [
  f('document_number', 'X', 1, 0, 9),
  f('document_number_check', 'N', 1, 9, 10),
  f('nationality', 'A', 1, 10, 13),
  f('birth_date', 'N', 1, 13, 19),
  f('birth_date_check', 'N', 1, 19, 20),
  f('sex', 'A', 1, 20, 21),
  f('expiry_date', 'N', 1, 21, 27),
  f('expiry_date_check', 'N', 1, 27, 28),
];
const head = (length: number): Field[] => [
  f('document_type', 'A', 0, 0, 2),
  f('issuing_country', 'A', 0, 2, 5),
  f('names', 'A', 0, 5, length),
];
const basicChecks = (line: number): Check[] => [
  { name: 'document_number', over: [r(line, 0, 9)], at: r(line, 9, 10) },
  { name: 'birth_date', over: [r(line, 13, 19)], at: r(line, 19, 20) },
  { name: 'expiry_date', over: [r(line, 21, 27)], at: r(line, 27, 28) },
];

export const LAYOUTS: Record<MrzFormat, Layout> = {
  TD3: {
    format: 'TD3',
    lines: 2,
    length: 44,
    fields: [
      ...head(44),
      ...TD3_LINE2,
      f('optional_data', 'X', 1, 28, 42),
      f('optional_data_check', 'N', 1, 42, 43),
      f('composite_check', 'N', 1, 43, 44),
    ],
    checks: [
      ...basicChecks(1),
      { name: 'optional_data', over: [r(1, 28, 42)], at: r(1, 42, 43), fillerOk: true },
      { name: 'composite', over: [r(1, 0, 10), r(1, 13, 20), r(1, 21, 43)], at: r(1, 43, 44) },
    ],
  },
  TD2: {
    format: 'TD2',
    lines: 2,
    length: 36,
    fields: [
      ...head(36),
      ...TD3_LINE2,
      f('optional_data', 'X', 1, 28, 35),
      f('composite_check', 'N', 1, 35, 36),
    ],
    checks: [
      ...basicChecks(1),
      { name: 'composite', over: [r(1, 0, 10), r(1, 13, 20), r(1, 21, 35)], at: r(1, 35, 36) },
    ],
  },
  TD1: {
    format: 'TD1',
    lines: 3,
    length: 30,
    fields: [
      f('document_type', 'A', 0, 0, 2),
      f('issuing_country', 'A', 0, 2, 5),
      f('document_number', 'X', 0, 5, 14),
      f('document_number_check', 'X', 0, 14, 15),
      f('optional_data', 'X', 0, 15, 30),
      f('birth_date', 'N', 1, 0, 6),
      f('birth_date_check', 'N', 1, 6, 7),
      f('sex', 'A', 1, 7, 8),
      f('expiry_date', 'N', 1, 8, 14),
      f('expiry_date_check', 'N', 1, 14, 15),
      f('nationality', 'A', 1, 15, 18),
      f('optional_data_2', 'X', 1, 18, 29),
      f('composite_check', 'N', 1, 29, 30),
      f('names', 'A', 2, 0, 30),
    ],
    checks: [
      // a long document number continues in the optional data; handled in td1DocumentNumber
      { name: 'document_number', over: [r(0, 5, 14)], at: r(0, 14, 15) },
      { name: 'birth_date', over: [r(1, 0, 6)], at: r(1, 6, 7) },
      { name: 'expiry_date', over: [r(1, 8, 14)], at: r(1, 14, 15) },
      { name: 'composite', over: [r(0, 5, 30), r(1, 0, 7), r(1, 8, 15), r(1, 18, 29)], at: r(1, 29, 30) },
    ],
  },
  MRVA: {
    format: 'MRVA',
    lines: 2,
    length: 44,
    fields: [...head(44), ...TD3_LINE2, f('optional_data', 'X', 1, 28, 44)],
    checks: basicChecks(1),
  },
  MRVB: {
    format: 'MRVB',
    lines: 2,
    length: 36,
    fields: [...head(36), ...TD3_LINE2, f('optional_data', 'X', 1, 28, 36)],
    checks: basicChecks(1),
  },
};

/** The characters of `x` in `lines`. */
export const take = (lines: string[], x: Range): string => (lines[x.line] ?? '').slice(x.start, x.end);
