// Digits from a second engine: a hybrid reading with the characters check digits cover taken from the LSTM
// engine's text, the rest (names, country codes, sex) from the legacy engine's.
import { checkedPositions } from './check-digits.js';
import { LAYOUTS } from './layouts.js';
import { type Candidate, cleanLine, starts } from './lines.js';

/** The LSTM engine reads the filler '<' as K or L: a run of '<', K and L that holds a '<', or one of three or more
 * that ends the line, is filler. */
export function restoreFiller(line: string): string {
  return line
    .replace(/[<KL]{2,}/g, (run) => (run.includes('<') ? '<'.repeat(run.length) : run))
    .replace(/[<KL]{3,}$/, (run) => '<'.repeat(run.length));
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
