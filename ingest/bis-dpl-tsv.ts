// BIS Denied Persons List, tab-separated with quoted fields and a header row:
//   Name, Street_Address, City, State, Country, Postal_Code, Effective_Date, Expiration_Date, Standard_Order,
//   Last_Update, Action, FR_Citation
// One row per (person, address): adjacent rows with the same name and effective date are one denial order and
// are merged into one entity (countries united). A non-adjacent repeat is reported and skipped.
//
// source_id: the first 16 hex digits of SHA-1 over "<NAME upper, whitespace collapsed>|<effective date ISO>".
// The FR_Citation grows with every renewal notice, so name + effective date is the stable key.
// Schema: the list has no type column. Names containing a legal-form or business word (LTD, LLC, INC, GMBH,
// COMPANY, AIRLINES, TRADING, …), single-word names and domain names → Company (DPL parties that are not
// people are firms); everything else → Person. A few trading names still fall through (e.g. "AVIASTAR - TU").
// Dates are US style (MM/DD/YYYY). datasets ['debarment'].

import { createHash } from 'node:crypto';
import path from 'node:path';
import { cleanText, EntityDraft, type Origin } from './builder.js';
import { readCsvRows } from './csv.js';
import { parseDate } from './dates.js';
import type { Entity, EntitySchema, IssueSink } from './entity.js';
import { assertExists, openText } from './io.js';

const SOURCE = 'us_bis_dpl';

const BUSINESS_WORDS = new Set(
  [
    'LTD',
    'LIMITED',
    'LLC',
    'L.L.C',
    'INC',
    'INCORPORATED',
    'CORP',
    'CORPORATION',
    'CO',
    'COMPANY',
    'GMBH',
    'AG',
    'SA',
    'S.A',
    'SARL',
    'SRL',
    'BV',
    'NV',
    'PLC',
    'JSC',
    'OJSC',
    'PJSC',
    'OOO',
    'ZAO',
    'FZE',
    'FZCO',
    'FZC',
    'LLP',
    'LP',
    'PTE',
    'PTY',
    'KG',
    'AB',
    'AS',
    'OY',
    'SPA',
    'TRADING',
    'ENTERPRISES',
    'ENTERPRISE',
    'INDUSTRIES',
    'INDUSTRIAL',
    'INTERNATIONAL',
    'GROUP',
    'HOLDING',
    'HOLDINGS',
    'SERVICES',
    'SERVICE',
    'AIRLINES',
    'AIRLINE',
    'AIRWAYS',
    'AVIATION',
    'FREIGHT',
    'LOGISTICS',
    'SHIPPING',
    'TECHNOLOGY',
    'TECHNOLOGIES',
    'TECHNIK',
    'ELECTRONICS',
    'SYSTEMS',
    'SUPPLY',
    'EXPORT',
    'IMPORT',
    'CORPORATE',
    'TRANSPORTATION',
    'EXPRESS',
    'AEROSPACE',
    'PRODUCTS',
    'ENGINEERING',
    'INSTITUTE',
    'LABORATORY',
    'LABORATORIES',
    'UNIVERSITY',
    'BANK',
    'FOUNDATION',
    'ASSOCIATES',
    'PARTNERS',
    'MANUFACTURING',
    'CONSULTING',
    'SOLUTIONS',
    'EQUIPMENT',
    'COMPONENTS',
    'INSTRUMENTS',
    'DEVICES',
    'MACHINERY',
    'CHEMICALS',
    'CHEMICAL',
    'MARINE',
    'ESTABLISHMENT',
    'AGENCY',
    'CENTER',
    'CENTRE',
    'COMPUTERS',
    'COMPUTER',
    'TRADE',
    'SL',
    'INTERNACIONAL',
  ].map((w) => w.replace(/\./g, '')),
);

export function guessSchema(name: string): EntitySchema {
  const toks = name
    .toUpperCase()
    .split(/[\s,()/&-]+/)
    .filter((t) => t !== '');
  // A lone word ("ELECTROCOM") or a domain ("SYNAPTIX.NET") is a trading name; people have two or more parts.
  if (toks.length === 1 || /\.(COM|NET|ORG)\b/.test(name.toUpperCase())) return 'Company';
  for (const tok of toks) {
    if (BUSINESS_WORDS.has(tok.replace(/\./g, ''))) return 'Company';
  }
  return 'Person';
}

function stableId(name: string, effective: string): string {
  return createHash('sha1').update(`${name.toUpperCase()}|${effective}`).digest('hex').slice(0, 16);
}

export async function* readBisDplTsv(file: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  await assertExists(file, 'file');
  const name = path.basename(file);
  let current: { key: string; draft: EntityDraft; at: Origin } | undefined;
  const done = new Set<string>();
  const flush = (): Entity | undefined => {
    if (current === undefined) return undefined;
    const c = current;
    current = undefined;
    done.add(c.key);
    return c.draft.finish(c.at, onIssue);
  };

  for await (const row of readCsvRows(openText(file), {
    file: name,
    onIssue,
    delimiter: '\t',
    required: ['Name', 'Country', 'Effective_Date'],
  })) {
    const at: Origin = { file: name, line: row.line };
    const person = cleanText(row.get('Name'));
    if (person === '') {
      onIssue({ ...at, field: 'Name', message: 'row without Name; skipped' });
      continue;
    }
    const effRaw = row.get('Effective_Date').trim();
    const effective = parseDate(effRaw, 'mdy');
    if (effective === undefined) {
      onIssue({ ...at, field: 'Effective_Date', message: `unparseable date "${effRaw}"; row skipped` });
      continue;
    }
    const key = stableId(person, effective);
    if (current === undefined || current.key !== key) {
      const e = flush();
      if (e !== undefined) yield e;
      if (done.has(key)) {
        onIssue({
          ...at,
          field: 'Name',
          message: `"${person}" (${effective}) repeated non-adjacently; row skipped`,
        });
        continue;
      }
      const d = new EntityDraft(SOURCE, key, guessSchema(person));
      d.datasets.add('debarment');
      d.addName(person, 'primary');
      const exp = parseDate(row.get('Expiration_Date'), 'mdy');
      d.addNote(`Denial effective ${effective}${exp === undefined ? '' : `, expires ${exp}`}`);
      d.addNote(row.get('FR_Citation'));
      current = { key, draft: d, at };
    }
    const country = row.get('Country').trim();
    if (country !== '') current.draft.addCountry(country, 'Country', at, onIssue);
  }
  const last = flush();
  if (last !== undefined) yield last;
}
