/**
 * String formats of our own, beyond ajv-formats: every Ajv that validates our schemas registers them
 * (server/http/validation.ts, and the OpenAPI response checker in the tests).
 */

const PARTIAL_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (a date of birth may be known only in part), and a month or day the calendar has. */
export function isPartialDate(s: string): boolean {
  const m = PARTIAL_DATE.exec(s);
  if (!m) return false;
  const [, y, mo, d] = m;
  if (mo === undefined) return true;
  const month = Number(mo);
  if (month < 1 || month > 12) return false;
  if (d === undefined) return true;
  const day = Number(d);
  // day 0 of the next month is the last day of this one (UTC, so no time zone moves it)
  return day >= 1 && day <= new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
}

/** A UUID's text, 8-4-4-4-12 hex digits, either case (RFC 9562: case-insensitive on input). No `urn:uuid:` prefix,
 * no braces, no missing hyphens: those are other spellings of an identifier, refused rather than guessed. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The one spelling of a UUID that is stored, compared and used as a key: lower case. Other text is left alone. */
export function canonicalUuid(s: string): string {
  return UUID.test(s) ? s.toLowerCase() : s;
}

/** Whether y-month-day is a day of the calendar, years 0001 to 9999 (there is no year 0000). */
function validDay(y: number, month: number, day: number): boolean {
  if (y < 1 || y > 9999 || month < 1 || month > 12 || day < 1) return false;
  // day 0 of the next month is the last day of this one (setUTCFullYear keeps years below 100 as they are)
  const last = new Date(0);
  last.setUTCFullYear(y, month, 0);
  return day <= last.getUTCDate();
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD`, a day the calendar has, years 0001 to 9999. */
export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return !!m && validDay(Number(m[1]), Number(m[2]), Number(m[3]));
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
/** The last second a timestamp may fall in, in UTC: JavaScript's Date and ISO 8601 without a sign stop there. */
const LAST_SECOND = Date.UTC(9999, 11, 31, 23, 59, 59);
const FIRST_SECOND = new Date('0001-01-01T00:00:00Z').getTime();

/**
 * RFC 3339 `date-time` with an offset (`Z` or `±hh:mm`), limited to what Postgres stores and gives back unchanged:
 * a day the calendar has, seconds 00–59 (a leap second `:60` is refused: Postgres moves it to the next minute and
 * JavaScript cannot hold it), offsets below 24 h, and an instant from 0001-01-01 to 9999-12-31 in UTC after the
 * offset and Postgres's rounding to microseconds (9999-12-31T23:00-05:00 is year 10000, which ISO 8601 writes only
 * with a sign and the service could not read back).
 */
export function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec, frac, sign, oh, om] = m;
  if (!validDay(Number(y), Number(mo), Number(d))) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return false;
  if (sign && (Number(oh) > 23 || Number(om) > 59)) return false;
  const at = new Date(0);
  at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi), Number(sec), 0);
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  // Postgres rounds to microseconds: .9999995 and up is the next second
  const carry = Math.round(Number(`0.${frac ?? '0'}`) * 1e6) === 1e6 ? 1000 : 0;
  const second = at.getTime() - offsetMs + carry;
  return second >= FIRST_SECOND && second <= LAST_SECOND;
}

export const FORMATS: Record<string, { type: 'string'; validate: (s: string) => boolean }> = {
  'partial-date': { type: 'string', validate: isPartialDate },
  // ajv-formats' own are wider than what the service can store: `urn:uuid:` prefixes, year 0000, leap seconds
  uuid: { type: 'string', validate: (s) => UUID.test(s) },
  date: { type: 'string', validate: isDate },
  'date-time': { type: 'string', validate: isDateTime },
};
