// Parsing fitted MRZ lines into fields: TD1/TD2/TD3 through the `mrz` package (its check-digit verdicts must agree
// with ours), MRV-A/MRV-B visas, which the package does not know, with the same layout rules; dates with their
// century.
import { parse as parseMrz } from 'mrz';
import type { MrzFields, MrzFormat } from '../types.js';
import { checkResults, td1LongNumber } from './check-digits.js';
import { LAYOUTS, take } from './layouts.js';
import type { Candidate } from './lines.js';
import { repair } from './repair.js';

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
