// UN Security Council Consolidated List, official XML. The file is ~2 MB, so it is read whole and parsed
// with the tolerant mini parser in xml.ts (no dependency). Records: INDIVIDUALS/INDIVIDUAL → Person and
// ENTITIES/ENTITY → Organization (UN entities are groups, companies and fronts alike; see the OFAC note).
//
// Names: FIRST_NAME…FOURTH_NAME joined → primary. NAME_ORIGINAL_SCRIPT (Arabic, Cyrillic) → alias: it is the
// same name in another script, so it gets a strong kind, but the single Latin primary keeps display simple.
// Alias QUALITY: Good, a.k.a. and blank → alias; Low → weak; f.k.a. → former.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { lookupCountry } from './countries.js';
import { isoDate, parseDate, yearSpan } from './dates.js';
import type { Entity, IssueSink, NameKind } from './entity.js';
import { assertExists } from './io.js';
import { child, childrenOf, parseXml, textOf, type XmlElement } from './xml.js';

const SOURCE = 'un_sc';

const QUALITY: Record<string, NameKind> = {
  good: 'alias',
  'a.k.a.': 'alias',
  '': 'alias',
  low: 'weak',
  'f.k.a.': 'former',
};

function docType(raw: string | undefined): string {
  const t = (raw ?? '').toLowerCase().replace(/\s+/g, ' ');
  if (t.includes('passport') || t.includes('passeport') || t.includes('pasaporte')) return 'passport';
  if (t.includes('national identification') || t.includes('national id') || t.includes('identity card')) {
    return 'national_id';
  }
  return 'other';
}

function values(el: XmlElement, tag: string): string[] {
  const out: string[] = [];
  for (const c of childrenOf(el, tag)) {
    for (const v of childrenOf(c, 'VALUE')) {
      const t = v.text.trim();
      if (t !== '') out.push(t);
    }
  }
  return out;
}

function parseDob(d: EntityDraft, dob: XmlElement, at: Origin, onIssue: IssueSink): void {
  const type = (textOf(dob, 'TYPE_OF_DATE') ?? '').toUpperCase();
  const date = textOf(dob, 'DATE');
  const year = textOf(dob, 'YEAR');
  const from = textOf(dob, 'FROM_YEAR');
  const to = textOf(dob, 'TO_YEAR');
  const note = textOf(dob, 'NOTE');
  let got: string[] = [];
  let raw: string | undefined;
  if (from !== undefined || to !== undefined) {
    raw = `${from ?? '?'}-${to ?? '?'}`;
    const a = Number(from ?? to);
    const b = Number(to ?? from);
    if (Number.isInteger(a) && Number.isInteger(b)) got = yearSpan(a, b);
  } else if (date !== undefined) {
    raw = date;
    const p = parseDate(date);
    if (p !== undefined) got = [p];
  } else if (year !== undefined) {
    raw = year;
    const p = /^\d{4}$/.test(year) ? isoDate(Number(year)) : undefined;
    if (p !== undefined) got = [p];
  } else if (note !== undefined) {
    // A few EXACT dates only carry a note like "Nov. 1973"; other notes are free text, not reported.
    const p = parseDate(note);
    if (p !== undefined) d.birthDates.add(p);
    return;
  } else {
    return; // empty DOB element: common, nothing to report
  }
  if (got.length === 0) {
    onIssue({ ...at, field: 'INDIVIDUAL_DATE_OF_BIRTH', message: `unparseable ${type || 'date'} "${raw}"` });
    return;
  }
  for (const g of got) d.birthDates.add(g);
}

function parseRecord(
  el: XmlElement,
  individual: boolean,
  file: string,
  onIssue: IssueSink,
): Entity | undefined {
  const at: Origin = { file, line: el.line };
  const id = textOf(el, 'DATAID');
  if (id === undefined) {
    onIssue({ ...at, field: 'DATAID', message: `${el.tag} without DATAID; skipped` });
    return undefined;
  }
  const d = new EntityDraft(SOURCE, id, individual ? 'Person' : 'Organization');
  d.countryCodes = false;
  d.datasets.add('sanctions');
  const parts = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
    .map((t) => textOf(el, t))
    .filter((x): x is string => x !== undefined);
  d.addName(parts.join(' '), 'primary');
  d.addName(textOf(el, 'NAME_ORIGINAL_SCRIPT'), 'alias');
  for (const a of childrenOf(el, individual ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS')) {
    const name = textOf(a, 'ALIAS_NAME');
    if (name === undefined) continue;
    const q = (textOf(a, 'QUALITY') ?? '').toLowerCase();
    let kind = QUALITY[q];
    if (kind === undefined) {
      onIssue({
        file,
        line: a.line,
        field: 'QUALITY',
        message: `unknown alias QUALITY "${q}"; kept as alias`,
      });
      kind = 'alias';
    }
    d.addName(name, kind);
  }
  d.addProgram(textOf(el, 'UN_LIST_TYPE'));
  d.addIdentifier('un_reference', textOf(el, 'REFERENCE_NUMBER'));
  const gender = textOf(el, 'GENDER')?.toLowerCase();
  if (gender === 'male' || gender === 'female') d.gender = gender;
  for (const n of values(el, 'NATIONALITY'))
    d.addNationality(n, 'NATIONALITY', { file, line: el.line }, onIssue);
  for (const a of childrenOf(el, individual ? 'INDIVIDUAL_ADDRESS' : 'ENTITY_ADDRESS')) {
    d.addCountry(textOf(a, 'COUNTRY'), 'ADDRESS/COUNTRY', { file, line: a.line }, onIssue);
  }
  for (const pob of childrenOf(el, 'INDIVIDUAL_PLACE_OF_BIRTH')) {
    const place = ['CITY', 'STATE_PROVINCE', 'COUNTRY']
      .map((t) => textOf(pob, t))
      .filter((x) => x !== undefined);
    if (place.length > 0) d.addBirthPlace(place.join(', '));
  }
  for (const dob of childrenOf(el, 'INDIVIDUAL_DATE_OF_BIRTH'))
    parseDob(d, dob, { file, line: dob.line }, onIssue);
  for (const doc of childrenOf(el, 'INDIVIDUAL_DOCUMENT')) {
    const num = textOf(doc, 'NUMBER');
    if (num === undefined) continue;
    const cRaw = textOf(doc, 'ISSUING_COUNTRY') ?? textOf(doc, 'COUNTRY_OF_ISSUE');
    let country: string | undefined;
    if (cRaw !== undefined) {
      const r = lookupCountry(cRaw, false);
      if ('code' in r) country = r.code;
      else if ('unknown' in r) {
        onIssue({ file, line: doc.line, field: 'ISSUING_COUNTRY', message: `unknown country "${cRaw}"` });
      }
    }
    d.addIdentifier(docType(textOf(doc, 'TYPE_OF_DOCUMENT')), num, country);
  }
  for (const t of values(el, 'TITLE')) d.addNote(t);
  for (const t of values(el, 'DESIGNATION')) d.addNote(t);
  d.addNote(textOf(el, 'COMMENTS1'));
  return d.finish(at, onIssue);
}

export async function* readUnXml(file: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  await assertExists(file, 'file');
  const name = path.basename(file);
  const doc = parseXml(await readFile(file, 'utf8'), (p) => onIssue({ file: name, ...p }));
  const list = child(doc, 'CONSOLIDATED_LIST');
  if (list === undefined) {
    onIssue({ file: name, line: 1, message: 'no CONSOLIDATED_LIST root element; nothing read' });
    return;
  }
  for (const [group, tag, individual] of [
    ['INDIVIDUALS', 'INDIVIDUAL', true],
    ['ENTITIES', 'ENTITY', false],
  ] as const) {
    for (const g of childrenOf(list, group)) {
      for (const rec of g.children) {
        if (rec.tag !== tag) {
          onIssue({ file: name, line: rec.line, message: `unexpected <${rec.tag}> in <${group}>; skipped` });
          continue;
        }
        const e = parseRecord(rec, individual, name, onIssue);
        if (e !== undefined) yield e;
      }
    }
  }
}
