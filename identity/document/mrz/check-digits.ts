// Check digits (ICAO 9303-3 §4.9): the digit itself, and the verdict of every check digit of a layout on lines.
import { type Layout, take } from './layouts.js';

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

/** TD1 long document numbers (ICAO 9303-5 note j): '<' in the check-digit position, the number continues in
 * the optional data up to the first '<', whose last character is the check digit. */
export function td1LongNumber(lines: string[]): { number: string; digit: string } | null {
  const l0 = lines[0] ?? '';
  if (l0[14] !== '<' || l0[13] === '<') return null;
  const rest = l0.slice(15, 30);
  const end = rest.indexOf('<');
  const tail = end < 0 ? rest : rest.slice(0, end);
  if (tail.length < 2) return null;
  return { number: l0.slice(5, 14) + tail.slice(0, -1), digit: tail.slice(-1) };
}

export interface CheckResult {
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

/** The positions check digits cover (their data and the digits themselves), per row. */
export function checkedPositions(layout: Layout): Set<string> {
  const out = new Set<string>();
  for (const c of layout.checks) {
    for (const x of [...c.over, c.at]) for (let i = x.start; i < x.end; i++) out.add(`${x.line}:${i}`);
  }
  return out;
}
