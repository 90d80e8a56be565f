// Senzing JSON lines as exported by OpenSanctions (here the us_congress PEP dataset). One record per line:
// RECORD_ID, RECORD_TYPE (PERSON | ORGANIZATION), NAMES [{NAME_TYPE, NAME_FULL | NAME_ORG | NAME_FIRST/…}],
// DATES [{DATE_OF_BIRTH}], COUNTRIES [{NATIONALITY | CITIZENSHIP | …}], IDENTIFIERS, RISKS [{TOPIC}].
// Senzing also allows those attributes flat on the record; both shapes are read.
//
// Records without RECORD_TYPE are position descriptions ("United States senator") that OpenSanctions exports
// alongside the people; they are skipped with an issue. Datasets come from RISKS topics (role.pep → pep, …)
// and default to ['pep'] for this PEP export. TRUSTED_ID WIKIDATA → identifier type 'wikidata'.

import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { parseDate } from './dates.js';
import type { Entity, EntitySchema, IssueSink, NameKind } from './entity.js';
import { topicDataset } from './ftm-json.js';
import { assertExists, readLines } from './io.js';

const SOURCE = 'us_congress';

const TYPES: Record<string, EntitySchema> = { PERSON: 'Person', ORGANIZATION: 'Organization' };
const NAME_KINDS: Record<string, NameKind> = {
  PRIMARY: 'primary',
  ALIAS: 'alias',
  AKA: 'alias',
  FORMER: 'former',
};

// Senzing feature keys → identifier types.
const ID_KEYS: [string, string][] = [
  ['PASSPORT_NUMBER', 'passport'],
  ['NATIONAL_ID_NUMBER', 'national_id'],
  ['TAX_ID_NUMBER', 'tax_id'],
  ['LEI_NUMBER', 'lei'],
  ['DUNS_NUMBER', 'registration'],
];

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The record itself plus the objects in its feature lists, so flat and nested attributes read the same. */
function featureObjects(rec: Rec, list: string): Rec[] {
  const v = rec[list];
  return [rec, ...(Array.isArray(v) ? v.filter(isRec) : [])];
}

function convert(rec: Rec, at: Origin, onIssue: IssueSink): Entity | undefined {
  const id = str(rec['RECORD_ID']);
  if (id === undefined) {
    onIssue({ ...at, field: 'RECORD_ID', message: 'record without RECORD_ID; skipped' });
    return undefined;
  }
  const typeRaw = str(rec['RECORD_TYPE']);
  if (typeRaw === undefined) {
    onIssue({
      ...at,
      field: 'RECORD_TYPE',
      message: `record ${id} has no RECORD_TYPE (position record); skipped`,
    });
    return undefined;
  }
  const schema = TYPES[typeRaw.toUpperCase()];
  if (schema === undefined) {
    onIssue({ ...at, field: 'RECORD_TYPE', message: `unknown RECORD_TYPE "${typeRaw}"; skipped` });
    return undefined;
  }
  const d = new EntityDraft(SOURCE, id, schema);
  for (const n of featureObjects(rec, 'NAMES')) {
    const full =
      str(n['NAME_FULL']) ??
      str(n['NAME_ORG']) ??
      [n['NAME_FIRST'], n['NAME_MIDDLE'], n['NAME_LAST']]
        .map(str)
        .filter((x) => x !== undefined)
        .join(' ');
    if (full === '') continue;
    const t = (str(n['NAME_TYPE']) ?? 'PRIMARY').toUpperCase();
    const kind = NAME_KINDS[t];
    if (kind === undefined) {
      onIssue({ ...at, field: 'NAMES.NAME_TYPE', message: `unknown NAME_TYPE "${t}"; kept as alias` });
    }
    d.addName(full, kind ?? 'alias');
  }
  for (const o of featureObjects(rec, 'DATES')) {
    const dob = str(o['DATE_OF_BIRTH']);
    if (dob === undefined) continue;
    const iso = parseDate(dob);
    if (iso === undefined)
      onIssue({ ...at, field: 'DATES.DATE_OF_BIRTH', message: `unparseable date "${dob}"` });
    else d.birthDates.add(iso);
  }
  for (const o of featureObjects(rec, 'COUNTRIES')) {
    for (const k of ['NATIONALITY', 'CITIZENSHIP'])
      d.addNationality(str(o[k]), `COUNTRIES.${k}`, at, onIssue);
    for (const k of ['REGISTRATION_COUNTRY', 'COUNTRY_OF_ASSOCIATION'])
      d.addCountry(str(o[k]), `COUNTRIES.${k}`, at, onIssue);
  }
  for (const o of featureObjects(rec, 'IDENTIFIERS')) {
    if (str(o['TRUSTED_ID_TYPE'])?.toUpperCase() === 'WIKIDATA')
      d.addIdentifier('wikidata', str(o['TRUSTED_ID_NUMBER']));
    for (const [k, type] of ID_KEYS) d.addIdentifier(type, str(o[k]));
  }
  const gender = str(rec['GENDER'])?.toLowerCase();
  if (gender === 'male' || gender === 'm') d.gender = 'male';
  else if (gender === 'female' || gender === 'f') d.gender = 'female';
  for (const r of featureObjects(rec, 'RISKS')) {
    const topic = str(r['TOPIC']);
    const ds = topic === undefined ? undefined : topicDataset(topic);
    if (ds !== undefined) d.datasets.add(ds);
  }
  if (d.datasets.size === 0) d.datasets.add('pep');
  return d.finish(at, onIssue);
}

export async function* readSenzingJson(file: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  await assertExists(file, 'file');
  const name = path.basename(file);
  for await (const { text, line } of readLines(file)) {
    if (text.trim() === '') continue;
    const at = { file: name, line };
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      onIssue({ ...at, message: 'invalid JSON line; skipped' });
      continue;
    }
    if (!isRec(v)) {
      onIssue({ ...at, message: 'line is not a JSON object; skipped' });
      continue;
    }
    const e = convert(v, at, onIssue);
    if (e !== undefined) yield e;
  }
}
