// Finding MRZ lines in OCR text: lines cleaned to MRZ characters, fitted to their format's length, and every
// plausible start of consecutive lines that look like an MRZ taken as a candidate.
import type { MrzFormat } from '../types.js';
import { TO_DIGIT, TO_LETTER } from './confusions.js';

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
export function starts(text: string, n: number, kind: 'names' | 'data' | 'other'): string[] {
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
