import type { CheckBatchCreateIn } from '../../schemas/batches.js';
import type { SubjectIn } from '../../schemas/subjects.js';
import type { CsvRow } from './csv';

/**
 * A customer CSV → check batch records: which column feeds which record field, guessed from the header and
 * changed by the operator. A malformed optional value is reported with its line and left out, and the name is
 * still screened (never a silent miss); a row without a name is reported and skipped.
 */

export type BatchRecordIn = CheckBatchCreateIn['records'][number];

export const MAPPABLE = [
  {
    field: 'name',
    label: 'Name',
    required: true,
    guesses: [
      'name',
      'full name',
      'customer name',
      'legal name',
      'first name',
      'given name',
      'company',
      'company name',
    ],
  },
  {
    field: 'name_last',
    label: 'Last name (appended to the name)',
    guesses: ['last name', 'surname', 'family name'],
  },
  {
    field: 'external_id',
    label: 'Customer reference (external_id)',
    guesses: ['external id', 'customer id', 'client id', 'customer ref', 'reference', 'ref', 'id'],
  },
  { field: 'type', label: 'Type (person, company, …)', guesses: ['type', 'entity type', 'kind', 'schema'] },
  {
    field: 'date_of_birth',
    label: 'Date of birth (YYYY-MM-DD)',
    guesses: ['dob', 'date of birth', 'birth date', 'birthdate', 'born'],
  },
  { field: 'nationality', label: 'Nationality (ISO alpha-2)', guesses: ['nationality', 'citizenship'] },
  {
    field: 'country',
    label: 'Country (ISO alpha-2)',
    guesses: ['country', 'country code', 'residence', 'address country'],
  },
  {
    field: 'aliases',
    label: 'Aliases (separated by ;)',
    guesses: ['aliases', 'alias', 'aka', 'other names'],
  },
  {
    field: 'registration_number',
    label: 'Registration number',
    guesses: ['registration number', 'reg no', 'company number', 'registration'],
  },
] as const;

export type MappedField = (typeof MAPPABLE)[number]['field'];
/** field → index of the CSV column (absent: not mapped) */
export type Mapping = Partial<Record<MappedField, number>>;

const norm = (h: string) =>
  h
    .toLowerCase()
    .replace(/[_\-.]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Each field takes the first column whose header is one of its guesses (exact, in the order of the guesses). */
export function guessMapping(header: string[]): Mapping {
  const cols = header.map(norm);
  const taken = new Set<number>();
  const m: Mapping = {};
  for (const f of MAPPABLE) {
    for (const g of f.guesses) {
      const i = cols.findIndex((c, idx) => c === g && !taken.has(idx));
      if (i >= 0) {
        m[f.field] = i;
        taken.add(i);
        break;
      }
    }
  }
  return m;
}

export interface RowProblem {
  line: number;
  field: MappedField;
  message: string;
  /** the row was left out (no name), rather than only the value */
  skipped: boolean;
}

const TYPES: Record<string, NonNullable<SubjectIn['type']>> = {
  person: 'person',
  individual: 'person',
  natural: 'person',
  company: 'company',
  business: 'company',
  organization: 'organization',
  organisation: 'organization',
  vessel: 'vessel',
  ship: 'vessel',
  aircraft: 'aircraft',
};

/** YYYY, YYYY-MM or YYYY-MM-DD (one-digit month or day padded: 1969-7-16 is unambiguous). */
export function normalizeDob(v: string): string | undefined {
  const m = /^(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?$/.exec(v);
  if (!m) return undefined;
  const [, y, mo, d] = m;
  if (mo && (Number(mo) < 1 || Number(mo) > 12)) return undefined;
  if (d && (Number(d) < 1 || Number(d) > 31)) return undefined;
  return [y, mo?.padStart(2, '0'), d?.padStart(2, '0')].filter(Boolean).join('-');
}

export function buildRecords(
  rows: CsvRow[],
  mapping: Mapping,
  source: string,
): { records: BatchRecordIn[]; lines: number[]; problems: RowProblem[] } {
  const records: BatchRecordIn[] = [];
  const lines: number[] = [];
  const problems: RowProblem[] = [];
  const cell = (r: CsvRow, f: MappedField) => {
    const i = mapping[f];
    return i === undefined ? '' : (r.cells[i] ?? '').trim();
  };
  for (const r of rows) {
    const report = (field: MappedField, message: string, skipped = false) =>
      problems.push({ line: r.line, field, message, skipped });
    const name = [cell(r, 'name'), cell(r, 'name_last')].filter(Boolean).join(' ');
    if (!name) {
      report('name', 'no name: the row is skipped', true);
      continue;
    }
    if (name.length > 500) {
      report('name', 'the name is longer than 500 characters: the row is skipped', true);
      continue;
    }
    const subject: SubjectIn = { name, ref: `${source}:${r.line}`.slice(-200) };
    const type = cell(r, 'type');
    if (type) {
      const t = TYPES[type.toLowerCase()];
      if (t) subject.type = t;
      else
        report('type', `“${type}” is not a subject type (person, company, organization, vessel, aircraft)`);
    }
    const dob = cell(r, 'date_of_birth');
    if (dob) {
      const d = normalizeDob(dob);
      if (d) subject.date_of_birth = d;
      else report('date_of_birth', `“${dob}” is not a date as YYYY-MM-DD (or YYYY-MM, YYYY)`);
    }
    for (const f of ['nationality', 'country'] as const) {
      const v = cell(r, f);
      if (!v) continue;
      if (/^[A-Za-z]{2}$/.test(v)) subject[f] = v.toUpperCase();
      else report(f, `“${v}” is not an ISO 3166-1 alpha-2 country code`);
    }
    const aliases = cell(r, 'aliases')
      .split(/[;|]/)
      .map((a) => a.trim())
      .filter((a) => a && a.length <= 500);
    if (aliases.length) subject.aliases = aliases.slice(0, 50);
    const reg = cell(r, 'registration_number');
    if (reg) subject.registration_number = reg.slice(0, 100);
    const record: BatchRecordIn = { subjects: [subject] };
    const ext = cell(r, 'external_id');
    if (ext) {
      if (ext.length <= 200) record.external_id = ext;
      else report('external_id', 'the reference is longer than 200 characters: left out');
    }
    records.push(record);
    lines.push(r.line);
  }
  return { records, lines, problems };
}
