// Names and country codes against a second engine: check digits do not cover them, so the LSTM engine's reading
// of the band must agree with ours letter by letter (a letter it reads otherwise is adopted only with support).
import { ICAO_CODES } from '../strict.js';
import type { MrzFormat } from '../types.js';
import { LETTER_CONFUSIONS } from './confusions.js';
import { LAYOUTS } from './layouts.js';
import { cleanLine } from './lines.js';

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

/** Whether another engine's text holds every run of letters of our name field, letter for letter, at its place
 * (within ±3 positions, as checkNames aligns them) on the engine's line that matches ours best. checkNames takes a
 * run it cannot align for no signal; this is the positive confirmation that a reading with fewer voters needs
 * (the located band, reader.ts): 79_pass-can's surname read QATN by two preprocessings, the LSTM engine reading
 * MARTIN there, is not confirmed. */
export function namesConfirmed(format: MrzFormat, lines: string[], secondEngine: string): boolean {
  const row = format === 'TD1' ? 2 : 0;
  const from = format === 'TD1' ? 0 : 5;
  const ours = lines[row] ?? '';
  const body = ours.slice(from, format === 'TD1' ? 30 : LAYOUTS[format].length).replace(/<+$/, '');
  const theirLine = bestLine(ours, secondEngine);
  if (!theirLine || !/[A-Z]/.test(body)) return false;
  const runs = /[A-Z]+/g;
  for (let m = runs.exec(body); m; m = runs.exec(body)) {
    const run = m[0];
    const at = from + m.index;
    const found = [0, -1, 1, -2, 2, -3, 3].some(
      (d) => at + d >= 0 && theirLine.slice(at + d, at + d + run.length) === run,
    );
    if (!found) return false;
  }
  return true;
}

/** The line of another engine's text (lines of at least 20 characters, cleaned) that has the most of our line's
 * non-filler characters at the same positions; null when it has none. */
function bestLine(ours: string, text: string): string | null {
  let best: string | null = null;
  let bestSame = -1;
  for (const t of text
    .split('\n')
    .map(cleanLine)
    .filter((l) => l.length >= 20)) {
    let same = 0;
    for (let i = 0; i < ours.length; i++) if (t[i] === ours[i] && ours[i] !== '<') same++;
    if (same > bestSame) {
      bestSame = same;
      best = t;
    }
  }
  return best;
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
  const letters = new Map<string, string>();
  const insertions: Insertion[] = [];
  let compared = false;
  let indels = 0;
  for (const seg of segments) {
    const ours = lines[seg.row] ?? '';
    const body = ours.slice(seg.from, seg.to).replace(/<+$/, '');
    // the engine's line that matches ours best, position by position
    const theirLine = bestLine(ours, text);
    if (!theirLine) continue;
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
