// Repair of OCR confusions in MRZ lines, driven by the field type: characters coerced to their field's class,
// country codes to the one ICAO code a confusion away, and fields whose check digit fails searched for the unique
// minimal change (one or two characters) that makes it pass.
import { ICAO_CODES } from '../strict.js';
import { checkResults } from './check-digits.js';
import { DIGIT_LETTERS, LETTER_CONFUSIONS, SWAPS, TO_DIGIT, TO_LETTER } from './confusions.js';
import { type Check, type Layout, type Range, take } from './layouts.js';

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
