// MRZ text: finding MRZ lines in OCR output, length fixes, check-digit repair of OCR confusions driven by the
// field type, and parsing into MrzFields (the `mrz` package for TD1/TD2/TD3, our own for MRV-A/MRV-B visas,
// which the package does not know).
import { parse as parseMrz } from 'mrz';
import { ICAO_CODES } from './strict.js';
import type { MrzFields, MrzFormat } from './types.js';

/** ICAO 9303 check digit: weights 7, 3, 1; '<' = 0, digits as is, A–Z = 10–35. */
export function checkDigit(s: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : 0;
    sum += v * (weights[i % 3] ?? 0);
  }
  return sum % 10;
}

type Kind = 'A' | 'N' | 'X';
interface Range {
  line: number;
  start: number;
  end: number;
}
interface Field extends Range {
  name: string;
  kind: Kind;
}
interface Check {
  name: string;
  /** the ranges the digit covers */
  over: Range[];
  /** position of the digit */
  at: Range;
  /** a '<' digit is valid when every covered character is '<' (empty optional data) */
  fillerOk?: boolean;
}
interface Layout {
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

const take = (lines: string[], x: Range): string => (lines[x.line] ?? '').slice(x.start, x.end);

/** TD1 long document numbers (ICAO 9303-5 note j): '<' in the check-digit position, the number continues in
 * the optional data up to the first '<', whose last character is the check digit. */
function td1LongNumber(lines: string[]): { number: string; digit: string } | null {
  const l0 = lines[0] ?? '';
  if (l0[14] !== '<' || l0[13] === '<') return null;
  const rest = l0.slice(15, 30);
  const end = rest.indexOf('<');
  const tail = end < 0 ? rest : rest.slice(0, end);
  if (tail.length < 2) return null;
  return { number: l0.slice(5, 14) + tail.slice(0, -1), digit: tail.slice(-1) };
}

interface CheckResult {
  name: string;
  valid: boolean;
}

export function checkResults(layout: Layout, lines: string[]): CheckResult[] {
  return layout.checks.map((c) => {
    if (layout.format === 'TD1' && c.name === 'document_number') {
      const long = td1LongNumber(lines);
      if (long) return { name: c.name, valid: String(checkDigit(long.number)) === long.digit };
    }
    const data = c.over.map((x) => take(lines, x)).join('');
    const digit = take(lines, c.at);
    if (digit === '<') return { name: c.name, valid: !!c.fillerOk && /^<*$/.test(data) };
    return { name: c.name, valid: String(checkDigit(data)) === digit };
  });
}

// ---- OCR confusions ------------------------------------------------------------------------------------

const TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  T: '1',
  Z: '2',
  S: '5',
  B: '8',
  G: '6',
  A: '4',
};
/** Letters the legacy engine confuses with each other on MRZ fonts (measured on the PassportEye set: TWN read
 * THN, MAC read HAC, KOWALSKA read KONALSKA, CHONG read CRONG). */
export const LETTER_CONFUSIONS: Record<string, string[]> = {
  W: ['N', 'H', 'M'],
  N: ['W', 'H', 'M'],
  H: ['W', 'N', 'M', 'R'],
  M: ['W', 'N', 'H'],
  R: ['H'],
  O: ['D', 'Q', 'U'],
  D: ['O'],
  Q: ['O'],
  U: ['O', 'V'],
  V: ['U'],
  I: ['L', 'T'],
  L: ['I'],
  T: ['I'],
  E: ['F'],
  F: ['E'],
  C: ['G'],
  G: ['C'],
};

/** Letters a digit read in a letter field may stand for: the repair by field type takes the first (TO_LETTER); a
 * country code that is then no ICAO code may take another (AU8 for AUS on a photographed page: 8 read for S). */
const DIGIT_LETTERS: Record<string, string[]> = {
  '0': ['O', 'D', 'Q'],
  '1': ['I', 'L', 'T'],
  '2': ['Z'],
  '4': ['A'],
  '5': ['S'],
  '6': ['G'],
  '8': ['B', 'S'],
};

/** A three-letter code that is not an ICAO code becomes the one ICAO code a single confusion away (its '<'
 * filler kept); unchanged when there is none or more than one. `raw` is the field as read, before digits became
 * letters: a digit there may stand for any of its DIGIT_LETTERS. */
export function icaoRepair(field: string, raw = field): string {
  const code = field.replace(/<+$/, '');
  if (code.length < 1 || ICAO_CODES.has(code) || !/^[A-Z]+$/.test(code)) return field;
  const found = new Set<string>();
  for (let i = 0; i < code.length; i++) {
    for (const alt of [
      ...(LETTER_CONFUSIONS[code[i] as string] ?? []),
      ...(DIGIT_LETTERS[raw[i] ?? ''] ?? []),
    ]) {
      const c = code.slice(0, i) + alt + code.slice(i + 1);
      if (ICAO_CODES.has(c)) found.add(c);
    }
  }
  if (found.size !== 1) return field;
  return ([...found][0] as string) + field.slice(code.length);
}

/** The letter a digit in a letter field is read as: the first of its DIGIT_LETTERS. */
const TO_LETTER: Record<string, string> = Object.fromEntries(
  Object.entries(DIGIT_LETTERS).map(([digit, letters]) => [digit, letters[0] as string]),
);
/** Alternatives tried in alphanumeric fields when their check digit fails. */
const SWAPS: Record<string, string[]> = {
  O: ['0'],
  Q: ['0'],
  D: ['0'],
  '0': ['O', 'D'],
  I: ['1'],
  L: ['1'],
  '1': ['I', 'L'],
  B: ['8'],
  '8': ['B'],
  S: ['5'],
  '5': ['S'],
  Z: ['2'],
  '2': ['Z'],
  G: ['6'],
  '6': ['G'],
};

function setChars(lines: string[], line: number, start: number, value: string): void {
  const l = lines[line] ?? '';
  lines[line] = l.slice(0, start) + value + l.slice(start + value.length);
}

/** Coerces every character to its field's class (letters in numeric fields become digits and vice versa),
 * then repairs alphanumeric fields whose check digit fails by trying the usual confusions (at most two
 * changes; only a unique minimal repair is applied). Returns the repaired lines and the number of changes. */
export function repair(
  layout: Layout,
  input: string[],
  alternatives: string[][] = [],
): { lines: string[]; changes: number } {
  const lines = [...input];
  let changes = 0;
  for (const fd of layout.fields) {
    const raw = take(lines, fd);
    let out = '';
    for (const ch of raw) {
      let c = ch;
      if (fd.kind === 'N' && TO_DIGIT[ch]) c = TO_DIGIT[ch] as string;
      // issuers keep O and Q out of document numbers (the strict check never accepts one): read them as 0
      else if (fd.name === 'document_number' && (ch === 'O' || ch === 'Q')) c = '0';
      else if (fd.kind === 'A' && TO_LETTER[ch]) c = TO_LETTER[ch] as string;
      if (c !== ch) changes++;
      out += c;
    }
    // sex: M, F or '<' only
    if (fd.name === 'sex' && !/^[MF<]$/.test(out)) {
      const fixed =
        out === 'H' || out === 'N' ? 'M' : out === 'E' || out === 'P' ? 'F' : out === 'K' ? '<' : out;
      if (fixed !== out) changes++;
      out = fixed;
    }
    // country codes: no check digit covers them, but they come from a closed list (ICAO 9303-3)
    if (fd.name === 'issuing_country' || fd.name === 'nationality') {
      const code = icaoRepair(out, raw);
      if (code !== out) changes++;
      out = code;
    }
    setChars(lines, fd.line, fd.start, out);
  }
  for (const c of layout.checks) {
    if (c.name === 'composite') continue;
    const ok = checkResults(layout, lines).find((x) => x.name === c.name)?.valid;
    if (ok) continue;
    const fixed = searchRepair(layout, lines, c, alternatives);
    if (fixed) {
      changes += fixed.changes;
      for (let i = 0; i < lines.length; i++) lines[i] = fixed.lines[i] ?? '';
    }
  }
  return { lines, changes };
}

/** Several repairs pass the check digit: the one whose every changed character another reading of the same band
 * has at that position (`alternatives`, lines aligned with ours), when exactly one does; else none. */
function pickSupported(
  found: string[][],
  lines: string[],
  range: Range,
  alternatives: string[][],
): string[] | null {
  const row = range.line;
  const supported = found.filter((cand) => {
    for (let i = range.start; i < range.end; i++) {
      const ch = (cand[row] ?? '')[i];
      if (ch !== (lines[row] ?? '')[i] && !alternatives.some((a) => (a[row] ?? '')[i] === ch)) return false;
    }
    return true;
  });
  return supported.length === 1 ? (supported[0] as string[]) : null;
}

/** The only repair found, else the one another reading supports (pickSupported), else none. */
function uniqueRepair(
  found: string[][],
  lines: string[],
  range: Range,
  alternatives: string[][],
): string[] | null {
  if (found.length === 1) return found[0] as string[];
  return found.length > 1 ? pickSupported(found, lines, range, alternatives) : null;
}

function searchRepair(
  layout: Layout,
  lines: string[],
  check: Check,
  alternatives: string[][] = [],
): { lines: string[]; changes: number } | null {
  const range = check.over[0];
  if (!range || check.over.length !== 1) return null;
  const value = take(lines, range);
  const positions: number[] = [];
  const numeric = layout.fields.find((x) => x.line === range.line && x.start === range.start)?.kind === 'N';
  // the usual confusions, and what another reading of the band has at that position (per-character vote: a
  // repair that takes it is read so by an engine), in the field's class; a document number never gets an O or Q
  // back (see repair)
  const swapsAt = (i: number): string[] => {
    const ch = value[i] as string;
    const seen = alternatives
      .map((a) => (a[range.line] ?? '')[range.start + i] ?? '')
      .map((x) => (numeric ? (TO_DIGIT[x] ?? x) : x))
      .filter((x) => /^[A-Z0-9<]$/.test(x));
    return [...new Set([...(SWAPS[ch] ?? []), ...seen])].filter(
      (x) => x !== ch && (check.name !== 'document_number' || (x !== 'O' && x !== 'Q')),
    );
  };
  for (let i = 0; i < value.length; i++) if (swapsAt(i).length) positions.push(i);
  const valid = (cand: string[]) =>
    checkResults(layout, cand).find((x) => x.name === check.name)?.valid === true;
  const found: string[][] = [];
  for (const i of positions) {
    for (const alt of swapsAt(i)) {
      const cand = [...lines];
      setChars(cand, range.line, range.start + i, alt);
      if (valid(cand)) found.push(cand);
    }
  }
  // several single changes pass (D8CDS0338 and 08CD50338 for 43_pass-fra's 08CDS0338): another reading decides
  const one = uniqueRepair(found, lines, range, alternatives);
  if (one) return { lines: one, changes: 1 };
  // two changes among many ambiguous characters would find some repair by chance (and cost quadratic time)
  if (found.length > 1 || positions.length > 10) return null;
  for (let a = 0; a < positions.length; a++) {
    for (let b = a + 1; b < positions.length; b++) {
      const i = positions[a] as number;
      const j = positions[b] as number;
      for (const altI of swapsAt(i)) {
        for (const altJ of swapsAt(j)) {
          const cand = [...lines];
          setChars(cand, range.line, range.start + i, altI);
          setChars(cand, range.line, range.start + j, altJ);
          if (valid(cand)) found.push(cand);
        }
      }
    }
  }
  const two = uniqueRepair(found, lines, range, alternatives);
  return two ? { lines: two, changes: 2 } : null;
}

// ---- finding MRZ lines in OCR text ---------------------------------------------------------------------

/** Upper-cases, drops spaces and maps look-alikes of '<' ('«' → '<<'); keeps only A–Z, 0–9 and '<'. */
export function cleanLine(s: string): string {
  return s
    .toUpperCase()
    .replace(/«/g, '<<')
    .replace(/[‹([{]/g, '<')
    .replace(/[^A-Z0-9<]/g, '');
}

/** Makes a line exactly `length` long: trailing filler trimmed or added; an extra or missing character inside
 * the longest filler run is absorbed there. */
export function fitLength(line: string, length: number): string {
  if (line.length === length) return line;
  if (line.length > length) {
    let s = line;
    while (s.length > length && s.endsWith('<<')) s = s.slice(0, -1);
    while (s.length > length) {
      const m = longestFiller(s);
      if (!m || m.len < 2) break;
      s = s.slice(0, m.at) + s.slice(m.at + 1);
    }
    return s.length > length ? s.slice(0, length) : s;
  }
  const m = longestFiller(line);
  if (m && m.len >= 3 && m.at + m.len < line.length) {
    const missing = length - line.length;
    return line.slice(0, m.at) + '<'.repeat(missing) + line.slice(m.at);
  }
  return line + '<'.repeat(length - line.length);
}

function longestFiller(s: string): { at: number; len: number } | null {
  let best: { at: number; len: number } | null = null;
  const re = /<+/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (!best || m[0].length >= best.len) best = { at: m.index, len: m[0].length };
  }
  return best;
}

/** Candidates per group of lines: garbage text (a page of small print) can look like many MRZ lines. */
const MAX_PER_GROUP = 16;

export interface Candidate {
  format: MrzFormat;
  lines: string[];
}

/** Where the fixed part of the second line (date of birth, check digit, sex, expiry, check digit) starts in
 * each format, for re-aligning lines with something read before their first character. */
const DATES_AT: Record<number, number> = { 44: 13, 36: 13, 30: 0 };
const DATES = /[0-9OQDUILZSBG]{7}[MF<][0-9OQDUILZSBG]{7}/;

/** Ways to read a cleaned line as an MRZ line of `n` characters: as is; when it is too long, without up to
 * eight leading characters (a mark or a border read before the first character); and, for a data line,
 * aligned on its dates. */
function starts(text: string, n: number, kind: 'names' | 'data' | 'other'): string[] {
  // the name field ends in filler only: a character after three or more fillers at the end of the name line is a
  // mark or the card's edge, never a name (a name part follows at most '<<'; the strict check refuses it)
  const line = kind === 'names' && /<<<[^<]$/.test(text) ? text.slice(0, -1) : text;
  const out = [fitLength(line, n)];
  // only a line too long for its format has something before its first character
  for (let k = 1; k <= Math.min(8, line.length - n); k++) out.push(fitLength(line.slice(k), n));
  if (kind === 'data') {
    // a data line ends with a check digit: a letter read after it (a mark, the card's edge) puts every check digit
    // before it one position off, the more so when a filler was lost too (62_pass-aus)
    if (/[A-Z]$/.test(line) && !TO_DIGIT[line[line.length - 1] as string])
      out.push(fitLength(line.slice(0, -1), n));
    const m = DATES.exec(line);
    const at = DATES_AT[n] ?? 0;
    if (m && m.index > at) out.push(fitLength(line.slice(m.index - at), n));
  }
  return [...new Set(out)];
}

/** The first line's document type letter and country code with digits read for letters (1 → I, 0 → O …), as the
 * repair by field type will read them; the document type's second character is not coerced (a 0 there is as
 * likely a D as an O), so such a line is not taken for a first line. */
function headLetters(x: string): string {
  const c = (ch: string | undefined) => (ch === undefined ? '' : (TO_LETTER[ch] ?? ch));
  return c(x[0]) + (x[1] ?? '') + [...x.slice(2, 5)].map(c).join('') + x.slice(5);
}

/** Groups of consecutive cleaned lines that look like an MRZ of some format (lengths within a tolerance),
 * fitted to the exact length; every combination of plausible starts is a candidate. */
export function findCandidates(text: string): Candidate[] {
  const lines = text
    .split('\n')
    .map(cleanLine)
    .filter((l) => l.length >= 20);
  const out: Candidate[] = [];
  const near = (l: string, n: number) => l.length >= n - 5 && l.length <= n + 6;
  for (let i = 0; i < lines.length; i++) {
    const a = lines[i] as string;
    const b = lines[i + 1];
    const c = lines[i + 2];
    const groupStart = out.length;
    const full = () => out.length - groupStart >= MAX_PER_GROUP;
    if (b && c && near(a, 30) && near(b, 30) && near(c, 30)) {
      for (const a1 of starts(a, 30, 'other').filter((x) => /^[IAC][A-Z<][A-Z]/.test(headLetters(x)))) {
        for (const b1 of starts(b, 30, 'data')) {
          for (const c1 of starts(c, 30, 'names'))
            if (!full()) out.push({ format: 'TD1', lines: [a1, b1, c1] });
        }
      }
    }
    if (!b) continue;
    for (const n of [44, 36]) {
      if (!near(a, n) || !near(b, n)) continue;
      for (const a1 of starts(a, n, 'names').filter((x) => /^[PVIAC][A-Z<][A-Z]/.test(headLetters(x)))) {
        const visa = a1.startsWith('V');
        const format: MrzFormat = n === 44 ? (visa ? 'MRVA' : 'TD3') : visa ? 'MRVB' : 'TD2';
        for (const b1 of starts(b, n, 'data')) if (!full()) out.push({ format, lines: [a1, b1] });
      }
    }
  }
  return out;
}

// ---- parsing -------------------------------------------------------------------------------------------

export interface Parsed {
  fields: MrzFields;
  lines: string[];
  check_digits_valid: boolean;
  invalid_checks: string[];
  /** characters changed by the repair */
  changes: number;
}

/** YYMMDD → YYYY-MM-DD (null when not a calendar date). Birth dates take the century that puts them in the
 * past; expiry dates are 20YY below 70, else 19YY. */
export function mrzDate(yymmdd: string, kind: 'birth' | 'expiry', now = new Date()): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  const dd = Number(yymmdd.slice(4, 6));
  let year: number;
  if (kind === 'birth') {
    year = 2000 + yy;
    if (new Date(Date.UTC(year, mm - 1, dd)) > now) year -= 100;
  } else {
    year = yy < 70 ? 2000 + yy : 1900 + yy;
  }
  const d = new Date(Date.UTC(year, mm - 1, dd));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== mm - 1 || d.getUTCDate() !== dd) return null;
  return d.toISOString().slice(0, 10);
}

function names(field: string): { surname: string; given_names: string } {
  const trimmed = field.replace(/<+$/, '');
  const sep = trimmed.indexOf('<<');
  const surname = (sep < 0 ? trimmed : trimmed.slice(0, sep)).replace(/<+/g, ' ').trim();
  const given =
    sep < 0
      ? ''
      : trimmed
          .slice(sep + 2)
          .replace(/<+/g, ' ')
          .trim();
  return { surname, given_names: given };
}

const optional = (s: string): string | null => {
  const v = s.replace(/^<+|<+$/g, '');
  return v ? v : null;
};

/** Parses fitted (and repaired) lines of a known format. TD formats go through the `mrz` package; MRV
 * visas are parsed here with the same layout rules. Returns null when the text is not parseable. */
export function parseLines(format: MrzFormat, lines: string[], changes = 0): Parsed | null {
  const layout = LAYOUTS[format];
  const checks = checkResults(layout, lines);
  const invalid = checks.filter((c) => !c.valid).map((c) => c.name);
  const get = (name: string): string => {
    const fd = layout.fields.find((x) => x.name === name);
    return fd ? take(lines, fd) : '';
  };
  const sexRaw = get('sex');
  const sex: MrzFields['sex'] = sexRaw === 'M' ? 'M' : sexRaw === 'F' ? 'F' : 'X';
  let document_number = get('document_number');
  let optional_data = optional(get('optional_data'));
  let nm = names(get('names'));
  if (format === 'TD1' || format === 'TD2' || format === 'TD3') {
    let result: ReturnType<typeof parseMrz>;
    try {
      result = parseMrz(lines);
    } catch {
      return null;
    }
    if (result.format !== format) return null;
    // the package's own check-digit verdicts must agree with ours
    for (const d of result.details) {
      if (d.field && /CheckDigit$/.test(d.field) && !d.valid) {
        const name = d.field === 'compositeCheckDigit' ? 'composite' : d.field.replace(/CheckDigit$/, '');
        if (!invalid.includes(name)) invalid.push(name);
      }
    }
    if (result.documentNumber) document_number = result.documentNumber;
    const fl = result.fields as Record<string, string | null | undefined>;
    if (fl.lastName != null && fl.firstName != null) nm = { surname: fl.lastName, given_names: fl.firstName };
    if (format === 'TD1') {
      const long = td1LongNumber(lines);
      if (long) document_number = long.number;
      const opt1 = long ? (lines[0] ?? '').slice(15 + long.number.length - 9 + 1, 30) : get('optional_data');
      const parts = [optional(opt1), optional(get('optional_data_2'))].filter((x): x is string => !!x);
      optional_data = parts.length ? parts.join(' ') : null;
    }
  }
  const fields: MrzFields = {
    format,
    document_type: get('document_type').replace(/<+$/, ''),
    issuing_country: get('issuing_country').replace(/<+$/, ''),
    document_number: document_number.replace(/<+$/, ''),
    surname: nm.surname,
    given_names: nm.given_names,
    nationality: get('nationality').replace(/<+$/, ''),
    birth_date: mrzDate(get('birth_date'), 'birth'),
    sex,
    expiry_date: mrzDate(get('expiry_date'), 'expiry'),
    optional_data,
  };
  return { fields, lines, check_digits_valid: invalid.length === 0, invalid_checks: invalid, changes };
}

/** Repair then parse. */
export function readCandidate(c: Candidate, alternatives: string[][] = []): Parsed | null {
  const layout = LAYOUTS[c.format];
  if (c.lines.length !== layout.lines) return null;
  const fixed = repair(layout, c.lines, alternatives);
  return parseLines(c.format, fixed.lines, fixed.changes);
}

// ---- names: a second engine ----------------------------------------------------------------------------

export interface NameCheck {
  /** the lines with the name letters the second engine and another reading support */
  lines: string[];
  /** false when the second engine's text could not be aligned with the name line (no signal) */
  compared: boolean;
  /** letters changed to the second engine's, each also read so by another reading or engine */
  adopted: number;
  /** letters where the engines differ and nothing else supports the second engine, plus runs read with a
   * letter more or less */
  unresolved: number;
}

/** Check digits do not cover names or country codes, and the legacy engine confuses W/N/H/M in them. The LSTM
 * engine reads letters well (but the filler '<' as K or L), so its reading of the name line is compared letter by
 * letter with ours (engineLetters): where they differ, the LSTM letter is adopted when another reading of ours
 * (another preprocessing) has it at that position, or when the pair is a known legacy confusion
 * (LETTER_CONFUSIONS) and every reading in `moreEngines` (the LSTM engine on other preprocessings) has it too;
 * otherwise the letter is unresolved. A run read with a letter more or less is unresolved as a whole; a run of
 * which more than a third differs otherwise is not the same text: no signal. */
export function checkNames(
  format: MrzFormat,
  lines: string[],
  secondEngine: string,
  others: string[][],
  moreEngines: string[] = [],
): NameCheck {
  const first = engineLetters(format, lines, secondEngine);
  const moreRead = moreEngines.map((t) => engineLetters(format, lines, t));
  const more = moreRead.map((m) => m.letters);
  const next = [...lines];
  let adopted = 0;
  // a run the engine read with a letter more or less otherwise is unresolved as a whole
  let unresolved = first.indels;
  for (const [key, letter] of first.letters) {
    const [row, pos] = key.split(':').map(Number) as [number, number];
    const ours = (next[row] ?? '')[pos] as string;
    if (letter === ours) continue;
    // a country code comes from a closed list: the engine's letter that makes ours (an ICAO code) none is its
    // misreading (79_pass-can's CAN read EAN), not a disagreement
    const code = countryCodeAt(format, row, pos);
    if (code) {
      const l = next[row] ?? '';
      const theirs = l.slice(code.start, pos) + letter + l.slice(pos + 1, code.start + 3);
      if (ICAO_CODES.has(l.slice(code.start, code.start + 3).replace(/<+$/, '')) && !ICAO_CODES.has(theirs))
        continue;
    }
    const byReading = others.some((o) => (o[row] ?? '')[pos] === letter);
    // a known confusion of the legacy engine that the LSTM engine reads alike on another preprocessing too
    const byEngines =
      more.length > 0 &&
      (LETTER_CONFUSIONS[ours] ?? []).includes(letter) &&
      more.every((m) => m.get(key) === letter);
    if (byReading || byEngines) {
      const l = next[row] ?? '';
      next[row] = l.slice(0, pos) + letter + l.slice(pos + 1);
      adopted++;
    } else {
      unresolved++;
    }
  }
  // a letter the legacy engine dropped (two merged): adopted when the LSTM engine reads the same letter at the same
  // place on another preprocessing too, the line ending in filler (the name field shifts by one); from the right, so
  // that earlier positions stay valid
  const sorted = [...first.insertions].sort((a, b) => b.row - a.row || b.pos - a.pos);
  for (const ins of sorted) {
    const l = next[ins.row] ?? '';
    const confirmed =
      moreRead.length > 0 &&
      moreRead.every((m) =>
        m.insertions.some((x) => x.row === ins.row && x.pos === ins.pos && x.letter === ins.letter),
      );
    if (confirmed && l.endsWith('<')) {
      next[ins.row] = l.slice(0, ins.pos) + ins.letter + l.slice(ins.pos, -1);
      adopted++;
    } else {
      unresolved++;
    }
  }
  return { lines: next, compared: first.compared, adopted, unresolved };
}

/** The country code field (issuing country, nationality) that holds `row:pos`, if any. */
function countryCodeAt(format: MrzFormat, row: number, pos: number): { start: number } | null {
  const fields = LAYOUTS[format].fields.filter(
    (x) => x.name === 'issuing_country' || x.name === 'nationality',
  );
  const f = fields.find((x) => x.line === row && pos >= x.start && pos < x.end);
  return f ? { start: f.start } : null;
}

/** The letters another engine's text has at the positions of the letters of our name field, issuing country and
 * nationality (`row:pos` → letter): each run of our letters is located in the engine's best-matching line within
 * ±3 positions (the LSTM engine may read a filler as two characters or none); a run of which more than a third
 * differs is not the same text and gives no letters. */
function engineLetters(
  format: MrzFormat,
  lines: string[],
  text: string,
): { letters: Map<string, string>; insertions: Insertion[]; compared: boolean; indels: number } {
  // alphabetic segments checked, each on its own: the name field, the issuing country and the nationality (a TD3's
  // issuing country and surname are one run of letters, CANMRTIN, but two fields)
  const segments: { row: number; from: number; to: number; names?: true }[] =
    format === 'TD1'
      ? [
          { row: 2, from: 0, to: 30, names: true },
          { row: 0, from: 2, to: 5 },
          { row: 1, from: 15, to: 18 },
        ]
      : [
          { row: 0, from: 5, to: LAYOUTS[format].length, names: true },
          { row: 0, from: 2, to: 5 },
          { row: 1, from: 10, to: 13 },
        ];
  const theirs = text
    .split('\n')
    .map(cleanLine)
    .filter((l) => l.length >= 20);
  const letters = new Map<string, string>();
  const insertions: Insertion[] = [];
  let compared = false;
  let indels = 0;
  for (const seg of segments) {
    const ours = lines[seg.row] ?? '';
    const body = ours.slice(seg.from, seg.to).replace(/<+$/, '');
    // the engine's line that matches ours best, position by position
    let best: string | null = null;
    let bestSame = -1;
    for (const t of theirs) {
      let same = 0;
      for (let i = 0; i < ours.length; i++) if (t[i] === ours[i] && ours[i] !== '<') same++;
      if (same > bestSame) {
        bestSame = same;
        best = t;
      }
    }
    if (!best) continue;
    const theirLine = best;
    const runs = /[A-Z]+/g;
    for (let m = runs.exec(body); m; m = runs.exec(body)) {
      const run = m[0];
      const at = seg.from + m.index;
      let bestD = 0;
      let bestMiss = Number.POSITIVE_INFINITY;
      for (const d of [0, -1, 1, -2, 2, -3, 3]) {
        if (at + d < 0) continue;
        const cand = theirLine.slice(at + d, at + d + run.length);
        let miss = run.length - cand.length;
        for (let i = 0; i < cand.length; i++) if (cand[i] !== run[i]) miss++;
        if (miss < bestMiss) {
          bestMiss = miss;
          bestD = d;
        }
      }
      // the engine's run is ours with one more letter inside it, every other letter the same (MARTIN for our MRTIN:
      // the legacy engine merged two letters): an insertion, adopted or not by checkNames — in names only, whose
      // field has room (a country code has three letters)
      const ins = seg.names && bestMiss > 0 ? insertionIn(run, theirLine, at) : null;
      if (ins) {
        compared = true;
        insertions.push({ row: seg.row, pos: ins.pos, letter: ins.letter });
        continue;
      }
      if (bestMiss * 3 > run.length) {
        // not the same letters position by position; the same text with a letter more or less (MRTIN read for
        // MARTIN) is a disagreement, not an absence of signal
        const window = theirLine.slice(Math.max(0, at - 3), at + run.length + 3);
        if (substringDistance(run, window) * 3 <= run.length) {
          compared = true;
          indels++;
        }
        continue;
      }
      compared = true;
      for (let i = 0; i < run.length; i++) {
        const pos = at + i;
        if (pos < seg.from) continue;
        const letter = theirLine[at + bestD + i];
        if (letter !== undefined && /[A-Z]/.test(letter)) letters.set(`${seg.row}:${pos}`, letter);
      }
    }
  }
  return { letters, insertions, compared, indels };
}

export interface Insertion {
  row: number;
  /** the letter goes before our character at this position */
  pos: number;
  letter: string;
}

/** Where `line` (another engine's) holds `run` (ours, at `at`, ±3 positions) with exactly one letter more strictly
 * inside it: the position in our line before which it goes, and the letter. The first found, shifts tried from 0. */
export function insertionIn(run: string, line: string, at: number): { pos: number; letter: string } | null {
  if (run.length < 3) return null;
  for (const d of [0, -1, 1, -2, 2, -3, 3]) {
    if (at + d < 0) continue;
    const cand = line.slice(at + d, at + d + run.length + 1);
    if (cand.length !== run.length + 1) continue;
    for (let p = 1; p < run.length; p++) {
      const letter = cand[p] as string;
      if (/[A-Z]/.test(letter) && cand.slice(0, p) + cand.slice(p + 1) === run)
        return { pos: at + p, letter };
    }
  }
  return null;
}

/** Edit distance between `p` and its best-matching substring of `t` (free start and end in `t`). */
export function substringDistance(p: string, t: string): number {
  let prev = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= p.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(
        (prev[j - 1] ?? 0) + (p[i - 1] === t[j - 1] ? 0 : 1),
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
      );
    }
    prev = cur;
  }
  return Math.min(...prev);
}

// ---- digits: a second engine ---------------------------------------------------------------------------

/** The LSTM engine reads the filler '<' as K or L: a run of '<', K and L that holds a '<', or one of three or more
 * that ends the line, is filler. */
export function restoreFiller(line: string): string {
  return line
    .replace(/[<KL]{2,}/g, (run) => (run.includes('<') ? '<'.repeat(run.length) : run))
    .replace(/[<KL]{3,}$/, (run) => '<'.repeat(run.length));
}

/** The positions check digits cover (their data and the digits themselves), per row. */
function checkedPositions(layout: Layout): Set<string> {
  const out = new Set<string>();
  for (const c of layout.checks) {
    for (const x of [...c.over, c.at]) for (let i = x.start; i < x.end; i++) out.add(`${x.line}:${i}`);
  }
  return out;
}

/** On some fonts the legacy engine reads digits as letters (0/O, 2/Z, 8/B) where the LSTM engine reads them right,
 * while the LSTM engine reads fillers as K/L and is the names' cross-check (checkNames). A hybrid reading: the
 * legacy candidate with every character that a check digit covers taken from the LSTM engine's best-aligned line,
 * so the check digits, not either engine, decide; letters no check digit covers (names, country codes, sex) stay
 * the legacy engine's. Null when the LSTM text has no line aligned with a row. */
export function hybridCandidate(c: Candidate, secondEngine: string): Candidate | null {
  const layout = LAYOUTS[c.format];
  const theirs = secondEngine
    .split('\n')
    .map(cleanLine)
    .filter((l) => l.length >= 20)
    // every plausible start (a character read before the first, the line aligned on its dates)
    .flatMap((l) => starts(l, layout.length, 'data'))
    .map(restoreFiller);
  const covered = checkedPositions(layout);
  const lines = [...c.lines];
  const rows = [...new Set([...covered].map((k) => Number(k.split(':')[0])))];
  for (const row of rows) {
    const ours = c.lines[row] ?? '';
    let best: string | null = null;
    let bestSame = 0;
    for (const t of theirs) {
      let same = 0;
      for (let i = 0; i < ours.length; i++) if (t[i] === ours[i]) same++;
      if (same > bestSame) {
        bestSame = same;
        best = t;
      }
    }
    // a third of the row at least must agree: otherwise the LSTM line is another row (or none)
    if (!best || bestSame * 3 < layout.length) return null;
    let out = '';
    for (let i = 0; i < ours.length; i++) out += covered.has(`${row}:${i}`) ? (best[i] ?? '<') : ours[i];
    lines[row] = out;
  }
  return { format: c.format, lines };
}
