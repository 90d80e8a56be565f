// UK FCDO Sanctions List as re-shaped by a third-party cleaning script (covyr/uk-sanctions-list), not the
// official layout. Four CSVs with headers, keyed by unique_id:
//   subjects.csv             unique_id, subject_type (individual|entity|ship), un_reference_number, …
//   subject_names.csv        name_id, unique_id, name_type (primary|primary_variation|alias), alias_strength
//                            (good_quality_aka|low_quality_aka|blank), full_name, name_6 (surname), name_1..5
//   subject_dobs.csv         dob_id, unique_id, year, month, day, precision, parse_issues
//   subject_identifiers.csv  id, unique_id, ofsi_group_id, raw_value, identifier_type, additional_info
// The side files are small, so they are read into maps first (identifiers are not sorted), then subjects.csv is
// streamed. Side rows whose unique_id is not a subject are reported as orphans.
//
// Names: full_name (always filled; otherwise name_1..5 + name_6 are assembled). primary → primary;
// primary_variation and alias → alias, or weak when alias_strength is low_quality_aka. The script dropped the
// non-Latin names. Programs: the regime code that prefixes unique_id (RUS0001 → RUS). No nationality or
// address data survives the reshaping; additional_info is used for a document's country only when it is
// exactly a country name.

import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { lookupCountry } from './countries.js';
import { readCsvRows } from './csv.js';
import { isoDate } from './dates.js';
import type { Entity, EntitySchema, IssueSink, NameKind } from './entity.js';
import { assertExists, exists, openText } from './io.js';

const SOURCE = 'gb_fcdo';

const TYPES: Record<string, EntitySchema> = { individual: 'Person', entity: 'Organization', ship: 'Vessel' };
const ID_TYPES: Record<string, string> = {
  passport: 'passport',
  national: 'national_id',
  business_registration_numbers: 'registration',
  imo: 'imo',
};

interface Side {
  line: number;
  cells: Record<string, string>;
}

async function readSide(
  file: string,
  columns: readonly string[],
  onIssue: IssueSink,
): Promise<Map<string, Side[]>> {
  const out = new Map<string, Side[]>();
  if (!(await exists(file))) {
    onIssue({ file: path.basename(file), line: 0, message: 'file missing; its data is absent' });
    return out;
  }
  const name = path.basename(file);
  for await (const row of readCsvRows(openText(file), {
    file: name,
    onIssue,
    required: ['unique_id', ...columns],
  })) {
    const id = row.get('unique_id').trim();
    if (id === '') {
      onIssue({ file: name, line: row.line, field: 'unique_id', message: 'row without unique_id; skipped' });
      continue;
    }
    const cells: Record<string, string> = {};
    for (const c of columns) cells[c] = row.get(c);
    const list = out.get(id);
    if (list === undefined) out.set(id, [{ line: row.line, cells }]);
    else list.push({ line: row.line, cells });
  }
  return out;
}

function intOrUndefined(s: string | undefined): number | undefined {
  const t = (s ?? '').trim();
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

export async function* readUkCsv(dir: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  await assertExists(dir, 'directory');
  const subjectsPath = path.join(dir, 'subjects.csv');
  await assertExists(subjectsPath, 'file');
  const names = await readSide(
    path.join(dir, 'subject_names.csv'),
    ['name_type', 'alias_strength', 'full_name', 'name_1', 'name_2', 'name_3', 'name_4', 'name_5', 'name_6'],
    onIssue,
  );
  const dobs = await readSide(path.join(dir, 'subject_dobs.csv'), ['year', 'month', 'day'], onIssue);
  const ids = await readSide(
    path.join(dir, 'subject_identifiers.csv'),
    ['raw_value', 'identifier_type', 'additional_info'],
    onIssue,
  );

  const file = 'subjects.csv';
  for await (const row of readCsvRows(openText(subjectsPath), {
    file,
    onIssue,
    required: ['unique_id', 'subject_type'],
  })) {
    const at: Origin = { file, line: row.line };
    const id = row.get('unique_id').trim();
    if (id === '') {
      onIssue({ ...at, field: 'unique_id', message: 'row without unique_id; skipped' });
      continue;
    }
    const typeRaw = row.get('subject_type').trim();
    const schema = TYPES[typeRaw.toLowerCase()];
    if (schema === undefined) {
      onIssue({ ...at, field: 'subject_type', message: `unknown subject_type "${typeRaw}"; row skipped` });
      // Its names, dates and identifiers go with it (they are not orphans).
      for (const m of [names, dobs, ids]) m.delete(id);
      continue;
    }
    const d = new EntityDraft(SOURCE, id, schema);
    d.countryCodes = false;
    d.datasets.add('sanctions');
    const regime = /^([A-Z]{3})\d+$/.exec(id)?.[1];
    if (regime !== undefined) d.addProgram(regime);
    d.addIdentifier('un_reference', row.get('un_reference_number').trim() || undefined);

    for (const n of names.get(id) ?? []) {
      const c = n.cells;
      let full = (c['full_name'] ?? '').trim();
      if (full === '') {
        full = ['name_1', 'name_2', 'name_3', 'name_4', 'name_5', 'name_6']
          .map((k) => (c[k] ?? '').trim())
          .filter((x) => x !== '')
          .join(' ');
      }
      const type = (c['name_type'] ?? '').trim();
      const low = (c['alias_strength'] ?? '').trim() === 'low_quality_aka';
      let kind: NameKind;
      if (type === 'primary') kind = 'primary';
      else if (type === 'primary_variation' || type === 'alias') kind = low ? 'weak' : 'alias';
      else {
        onIssue({
          file: 'subject_names.csv',
          line: n.line,
          field: 'name_type',
          message: `unknown name_type "${type}"; kept as alias`,
        });
        kind = 'alias';
      }
      d.addName(full, kind);
    }
    names.delete(id);

    for (const b of dobs.get(id) ?? []) {
      const year = intOrUndefined(b.cells['year']);
      const iso =
        year === undefined
          ? undefined
          : isoDate(year, intOrUndefined(b.cells['month']), intOrUndefined(b.cells['day']));
      if (iso === undefined) {
        const raw = `${b.cells['year']}-${b.cells['month']}-${b.cells['day']}`;
        onIssue({
          file: 'subject_dobs.csv',
          line: b.line,
          field: 'year',
          message: `unparseable date "${raw}"`,
        });
      } else d.birthDates.add(iso);
    }
    dobs.delete(id);

    for (const x of ids.get(id) ?? []) {
      const t = (x.cells['identifier_type'] ?? '').trim();
      const type = ID_TYPES[t];
      if (type === undefined) {
        onIssue({
          file: 'subject_identifiers.csv',
          line: x.line,
          field: 'identifier_type',
          message: `unknown identifier_type "${t}"; kept as other`,
        });
      }
      const info = (x.cells['additional_info'] ?? '').trim();
      const r = info === '' ? undefined : lookupCountry(info, false);
      d.addIdentifier(
        type ?? 'other',
        x.cells['raw_value'],
        r !== undefined && 'code' in r ? r.code : undefined,
      );
    }
    ids.delete(id);

    const e = d.finish(at, onIssue);
    if (e !== undefined) yield e;
  }

  for (const [name, map] of [
    ['subject_names.csv', names],
    ['subject_dobs.csv', dobs],
    ['subject_identifiers.csv', ids],
  ] as const) {
    for (const [id, rows] of map) {
      for (const r of rows) {
        onIssue({
          file: name,
          line: r.line,
          field: 'unique_id',
          message: `orphan row: unique_id ${id} not in subjects.csv`,
        });
      }
    }
  }
}
