// Date normalisation to ISO partial dates: 'YYYY' | 'YYYY-MM' | 'YYYY-MM-DD'. Precision is never invented:
// "Oct 1952" stays '1952-10'. Ranges ("1960 to 1962", "BETWEEN") become every year of the span (at most
// MAX_RANGE_YEARS, otherwise just the two end years) because a matcher compares years for fuzzy DOBs.

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

const MAX_RANGE_YEARS = 10;
const MIN_YEAR = 1800;
const MAX_YEAR = 2100;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Build an ISO partial date from parts; undefined when out of range (Feb 30, month 13, year 0201…). */
export function isoDate(year: number, month?: number, day?: number): string | undefined {
  if (!Number.isInteger(year) || year < MIN_YEAR || year > MAX_YEAR) return undefined;
  if (month === undefined || month === 0) return String(year);
  if (!Number.isInteger(month) || month < 1 || month > 12) return undefined;
  if (day === undefined || day === 0) return `${year}-${pad2(month)}`;
  if (!Number.isInteger(day) || day < 1 || day > daysIn(year, month)) return undefined;
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

export type DayMonthOrder = 'dmy' | 'mdy';

/** One date in any of the list formats; undefined when it cannot be read. */
export function parseDate(raw: string, order: DayMonthOrder = 'dmy'): string | undefined {
  const s = raw.trim().replace(/\.$/, '').trim();
  if (s === '') return undefined;
  let m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ].*)?$/.exec(s);
  if (m) return isoDate(Number(m[1]), m[2] ? Number(m[2]) : undefined, m[3] ? Number(m[3]) : undefined);
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(s);
  if (m) return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    return order === 'dmy' ? isoDate(Number(m[3]), b, a) : isoDate(Number(m[3]), a, b);
  }
  // "12 Oct 1952", "12-OCT-1952", "Oct 1952", "October 12, 1952"
  m = /^(?:(\d{1,2})[\s-]+)?([A-Za-z]{3,9})\.?[\s-]+(\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS[m[2]!.toLowerCase()];
    if (month === undefined) return undefined;
    return isoDate(Number(m[3]), month, m[1] ? Number(m[1]) : undefined);
  }
  m = /^([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS[m[1]!.toLowerCase()];
    if (month === undefined) return undefined;
    return isoDate(Number(m[3]), month, Number(m[2]));
  }
  return undefined;
}

/** Every year from a to b, or just the two ends when the span is implausibly wide. */
export function yearSpan(from: number, to: number): string[] {
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  if (lo < MIN_YEAR || hi > MAX_YEAR) return [];
  if (hi - lo > MAX_RANGE_YEARS) return [String(lo), String(hi)];
  const out: string[] = [];
  for (let y = lo; y <= hi; y++) out.push(String(y));
  return out;
}

/** A date expression as lists write them: a single date, "circa X", "X to Y", "X-Y" (years), "between X and Y".
 * Returns undefined when unreadable so the caller can report the field. */
export function parseDateExpr(raw: string, order: DayMonthOrder = 'dmy'): string[] | undefined {
  let s = raw
    .trim()
    .replace(/\.$/, '')
    .replace(/^(circa|approximately|approx\.?|about|ca\.?|c\.)\s*/i, '')
    .trim();
  const between = /^between\s+(.+?)\s+and\s+(.+)$/i.exec(s);
  if (between) s = `${between[1]} to ${between[2]}`;
  const range = /^(.+?)\s+(?:to|until|-|–)\s+(.+)$/i.exec(s) ?? /^(\d{4})\s*[-–/]\s*(\d{4})$/.exec(s);
  if (range) {
    const a = parseDate(range[1]!, order);
    const b = parseDate(range[2]!, order);
    if (a === undefined || b === undefined) return undefined;
    if (a === b) return [a];
    const span = yearSpan(Number(a.slice(0, 4)), Number(b.slice(0, 4)));
    return span.length > 0 ? span : undefined;
  }
  const one = parseDate(s, order);
  return one === undefined ? undefined : [one];
}
