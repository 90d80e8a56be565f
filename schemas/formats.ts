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

export const FORMATS: Record<string, { type: 'string'; validate: (s: string) => boolean }> = {
  'partial-date': { type: 'string', validate: isPartialDate },
};
