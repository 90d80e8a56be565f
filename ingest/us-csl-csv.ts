// US Consolidated Screening List (trade.gov CSL) CSV, gzip-compressed, with a header row of 29 columns.
// Multi-valued cells are `;`-separated. `ids` items read "[country, [dates…,]] value, label", e.g.
// "JO, 2014-08-30, 2009-08-31, K475336, Passport" or "Male, Gender"; labels reuse the OFAC label table.
//
// The same entity appears once per list it is on (e.g. SDN + SSI + CAP), as adjacent rows sharing `_id` and
// `entity_number`: those rows are merged into one entity with the union of datasets and programs. A repeat
// that is not adjacent is reported and skipped. source_id = entity_number (OFAC ent_num) or else `_id`.
//
// Schema: Individual → Person, Entity → Organization, Vessel, Aircraft; blank type (the BIS/State lists,
// which mix people and firms) → LegalEntity, FtM's "person or organisation" parent.
// Datasets by list code: SDN, SSI, PLC, CMIC, CAP, NS-MBS, FSE → sanctions; EL, DPL, UVL, MEU, ISN, DTC →
// debarment (export-control and debarment lists). The list's long name is kept in notes.

import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { lookupCountry } from './countries.js';
import { readCsv } from './csv.js';
import { parseDateExpr } from './dates.js';
import type { AmlDataset, Entity, EntitySchema, IssueSink } from './entity.js';
import { assertExists, openText } from './io.js';
import { identifierTypeForLabel } from './ofac-sdn-csv.js';

const SOURCE = 'us_csl';

const REQUIRED = ['_id', 'source', 'entity_number', 'type', 'programs', 'name', 'alt_names'] as const;

const TYPES: Record<string, EntitySchema> = {
  individual: 'Person',
  entity: 'Organization',
  vessel: 'Vessel',
  aircraft: 'Aircraft',
  '': 'LegalEntity',
};

const LIST_DATASETS: Record<string, AmlDataset> = {
  SDN: 'sanctions',
  SSI: 'sanctions',
  PLC: 'sanctions',
  CMIC: 'sanctions',
  CAP: 'sanctions',
  'NS-MBS LIST': 'sanctions',
  'NS-MBS': 'sanctions',
  FSE: 'sanctions',
  EL: 'debarment',
  DPL: 'debarment',
  UVL: 'debarment',
  MEU: 'debarment',
  ISN: 'debarment',
  DTC: 'debarment',
};

function split(cell: string | undefined): string[] {
  if (cell === undefined) return [];
  return cell
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function applyIds(d: EntityDraft, cell: string | undefined): void {
  for (const item of split(cell)) {
    const parts = item.split(', ').map((s) => s.trim());
    if (parts.length < 2) continue;
    const label = parts[parts.length - 1]!;
    const value = parts[parts.length - 2]!;
    if (label === 'Gender') {
      const g = value.toLowerCase();
      if (g === 'male' || g === 'female') d.gender = g;
      continue;
    }
    let type = identifierTypeForLabel(label);
    if (type === undefined) continue;
    // CSL writes "IMO 8898831, Vessel Registration Identification".
    if (type === 'registration' && /^IMO\s*\d{7}$/.test(value)) type = 'imo';
    let country: string | undefined;
    if (parts.length >= 3) {
      const r = lookupCountry(parts[0]!);
      if ('code' in r) country = r.code;
    }
    d.addIdentifier(type, value, country);
  }
}

function applyRow(d: EntityDraft, row: Map<string, string>, at: Origin, onIssue: IssueSink): void {
  const get = (k: string) => row.get(k) ?? '';
  const list = get('source');
  const code = /\(([^)]+)\)/.exec(list)?.[1]?.toUpperCase();
  const ds = code === undefined ? undefined : LIST_DATASETS[code];
  if (ds === undefined) {
    onIssue({ ...at, field: 'source', message: `unknown list "${list}"; treated as sanctions` });
    d.datasets.add('sanctions');
  } else d.datasets.add(ds);
  d.addNote(list);
  d.addName(get('name'), 'primary');
  for (const a of split(get('alt_names'))) d.addName(a, 'alias');
  for (const p of split(get('programs'))) d.addProgram(p);
  d.addNote(get('title'));
  d.addNote(get('remarks'));
  for (const dob of split(get('dates_of_birth'))) {
    const dates = parseDateExpr(dob);
    if (dates === undefined)
      onIssue({ ...at, field: 'dates_of_birth', message: `unparseable date "${dob}"` });
    else for (const x of dates) d.birthDates.add(x);
  }
  for (const pob of split(get('places_of_birth'))) d.addBirthPlace(pob);
  for (const c of split(get('nationalities'))) d.addNationality(c, 'nationalities', at, onIssue);
  for (const c of split(get('citizenships'))) d.addNationality(c, 'citizenships', at, onIssue);
  for (const addr of split(get('addresses'))) {
    // The country is the last comma part, usually an ISO code; other tails are postcodes or streets.
    const tail = addr.slice(addr.lastIndexOf(',') + 1).trim();
    if (/^[A-Z]{2}$/.test(tail)) d.addCountry(tail, 'addresses', at, onIssue);
    else {
      const r = lookupCountry(tail);
      if ('code' in r) d.countries.add(r.code);
    }
  }
  const flag = get('vessel_flag').trim();
  if (flag !== '') d.addCountry(flag, 'vessel_flag', at, onIssue);
  d.addIdentifier('call_sign', get('call_sign').trim() || undefined);
  applyIds(d, get('ids'));
}

export async function* readUsCslCsv(file: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  await assertExists(file, 'file');
  const name = path.basename(file);
  let header: string[] | undefined;
  let current: { key: string; draft: EntityDraft; at: Origin } | undefined;
  const done = new Set<string>();

  const flush = (): Entity | undefined => {
    if (current === undefined) return undefined;
    const c = current;
    current = undefined;
    done.add(c.key);
    return c.draft.finish(c.at, onIssue);
  };

  for await (const rec of readCsv(openText(file), { file: name, onIssue })) {
    if (header === undefined) {
      header = rec.fields.map((h) => h.trim());
      const missing = REQUIRED.filter((k) => !header!.includes(k));
      if (missing.length > 0) {
        onIssue({
          file: name,
          line: rec.line,
          message: `header lacks columns ${missing.join(', ')}; nothing read`,
        });
        return;
      }
      continue;
    }
    const at: Origin = { file: name, line: rec.line };
    if (rec.fields.length !== header.length) {
      onIssue({
        ...at,
        message: `expected ${header.length} columns, found ${rec.fields.length}; row skipped`,
      });
      continue;
    }
    const row = new Map<string, string>();
    for (const [i, h] of header.entries()) row.set(h, rec.fields[i] ?? '');
    const id = (row.get('entity_number') ?? '').trim() || (row.get('_id') ?? '').trim();
    if (id === '') {
      onIssue({ ...at, field: '_id', message: 'row without entity_number or _id; skipped' });
      continue;
    }
    const typeRaw = (row.get('type') ?? '').trim();
    const schema = TYPES[typeRaw.toLowerCase()];
    if (schema === undefined) {
      onIssue({ ...at, field: 'type', message: `unknown type "${typeRaw}"; row skipped` });
      continue;
    }
    if (current !== undefined && current.key === id) {
      applyRow(current.draft, row, at, onIssue);
      continue;
    }
    const e = flush();
    if (e !== undefined) yield e;
    if (done.has(id)) {
      onIssue({
        ...at,
        field: 'entity_number',
        message: `entity ${id} repeated non-adjacently; row skipped`,
      });
      continue;
    }
    const draft = new EntityDraft(SOURCE, id, schema);
    applyRow(draft, row, at, onIssue);
    current = { key: id, draft, at };
  }
  const last = flush();
  if (last !== undefined) yield last;
}
