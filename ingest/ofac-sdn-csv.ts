import { readdir } from 'node:fs/promises';
// OFAC legacy CSV (SDN and Consolidated/non-SDN lists): no header, CRLF, `-0- ` as null, 0x1A at EOF.
//   sdn.csv / cons_prim.csv       ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage,
//                                 GRT, Vess_flag, Vess_owner, Remarks
//   alt.csv / cons_alt.csv        ent_num, alt_num, alt_type, alt_name, alt_remarks
//   add.csv / cons_add.csv        ent_num, add_num, Address, City/State/Province/Postal Code, Country, Add_remarks
//   sdn_comments.csv / cons_comments.csv   ent_num, Remarks_Extended (continuation of a truncated Remarks)
// The side files are small (≤ 2 MB) and keyed by ent_num, so they are tokenised into maps first; the main file
// is then streamed. Side rows left over at the end are orphans (their ent_num is not in the main file) and are
// reported one issue per row.
//
// Schema choice: SDN_Type "-0-" (OFAC "entity") → Organization. OFAC entities mix companies, armed groups,
// ministries and banks; FtM's Organization is the common parent the matcher treats as company-compatible, and
// guessing Company from legal-form words would misclassify e.g. "… MINISTRY OF DEFENSE".

import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { lookupCountry } from './countries.js';
import { readCsv } from './csv.js';
import { parseDateExpr } from './dates.js';
import type { Entity, EntitySchema, IssueSink, NameKind } from './entity.js';
import { assertExists, exists, openText } from './io.js';

export interface OfacLayout {
  source: string;
  main: string;
  alt: string;
  add: string;
  comments: string;
}

export const OFAC_SDN_LAYOUT: OfacLayout = {
  source: 'us_ofac_sdn',
  main: 'sdn.csv',
  alt: 'alt.csv',
  add: 'add.csv',
  comments: 'sdn_comments.csv',
};

export const OFAC_CONS_LAYOUT: OfacLayout = {
  source: 'us_ofac_cons',
  main: 'cons_prim.csv',
  alt: 'cons_alt.csv',
  add: 'cons_add.csv',
  comments: 'cons_comments.csv',
};

const TYPES: Record<string, EntitySchema> = {
  individual: 'Person',
  vessel: 'Vessel',
  aircraft: 'Aircraft',
  entity: 'Organization',
};

const ALT_KINDS: Record<string, NameKind> = { aka: 'alias', fka: 'former', nka: 'alias' };

/** OFAC null: `-0-` with optional trailing space. */
function val(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  return t === '' || t === '-0-' ? undefined : t;
}

interface SideRow {
  fields: string[];
  line: number;
}

async function readSide(file: string, width: number, onIssue: IssueSink): Promise<Map<string, SideRow[]>> {
  const out = new Map<string, SideRow[]>();
  const name = path.basename(file);
  for await (const rec of readCsv(openText(file), { file: name, onIssue })) {
    if (rec.fields.length !== width) {
      onIssue({
        file: name,
        line: rec.line,
        message: `expected ${width} columns, found ${rec.fields.length}; row skipped`,
      });
      continue;
    }
    const ent = val(rec.fields[0]);
    if (ent === undefined || !/^\d+$/.test(ent)) {
      onIssue({
        file: name,
        line: rec.line,
        field: 'ent_num',
        message: `invalid ent_num "${rec.fields[0]}"`,
      });
      continue;
    }
    const list = out.get(ent);
    if (list === undefined) out.set(ent, [{ fields: rec.fields, line: rec.line }]);
    else list.push({ fields: rec.fields, line: rec.line });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Remarks: `; `-separated items such as "DOB 07 Oct 1952", "alt. Passport X (Iran)", "a.k.a. 'NAME'".

type IdType =
  | 'passport'
  | 'national_id'
  | 'tax_id'
  | 'registration'
  | 'lei'
  | 'swift_bic'
  | 'imo'
  | 'mmsi'
  | 'other';

const ID_LABELS_RAW: [IdType, string[]][] = [
  [
    'passport',
    ['Passport', 'Diplomatic Passport', 'Passport Booklet', 'Passport Booklet:', 'Travel Document Number'],
  ],
  [
    'national_id',
    [
      'National ID No.',
      'National ID No',
      'Cedula No.',
      'C.U.R.P.',
      'C.U.R.P. #',
      'CURP #',
      'D.N.I.',
      'Personal ID Card',
      'Identification Number',
      'Turkish Identification Number',
      'Numero de Identidad',
      'Kenyan ID No.',
      'Tazkira National ID Card',
      "Citizen's Card Number",
      'National Foreign ID Number',
      'Refugee ID Card',
      'C.U.I.',
      'C.U.I.P.',
      'I.F.E.',
      'Credencial electoral',
      'Electoral Registry No.',
      'SSN',
      'UAE Identification',
      'Birth Certificate Number',
      'Residency Number',
      'Cartilla de Servicio Militar Nacional',
      "Driver's License No.",
      'VisaNumberID',
      'Personal Numerical Code',
      'Immigration No.',
      'SRE Permit No.',
    ],
  ],
  [
    'tax_id',
    [
      'Tax ID No.',
      'R.F.C.',
      'R.F.C. #',
      'RFC',
      'NIT #',
      'RUC #',
      'RIF #',
      'V.A.T. Number',
      'C.U.I.T.',
      'US FEIN',
      'Italian Fiscal Code',
      'Italian Fiscal Code:',
      'Paraguayan tax identification number',
      'Numero Unico de Identificacao Tributaria (NUIT)',
      'C.I.F.',
      'RTN',
    ],
  ],
  [
    'registration',
    [
      'Registration Number',
      'Business Registration Number',
      'Registration ID',
      'Company Number',
      'UK Company Number',
      'Commercial Registry Number',
      'Unified Social Credit Code (USCC)',
      'United Social Credit Code Certificate (USCCC)',
      'Chamber of Commerce Number',
      'Business Number',
      'Folio Mercantil No.',
      'Matricula Mercantil No',
      'C.R. No.',
      'Public Registration Number',
      'Trade License No.',
      'Central Registration System Number',
      'Istanbul Chamber of Comm. No.',
      'Dubai Chamber of Commerce Membership No.',
      'Enterprise Number',
      'Business Registration Document #',
      'Certificate of Incorporation Number',
      'Economic Register Number (CBLS)',
      'Government Gazette Number',
      'Romanian C.R.',
      'Registered Charity No.',
      'LE Number',
      'Organization Code',
      'D-U-N-S Number',
      'Branch Unit Number',
      'Aircraft Tail Number',
      'Vessel Registration Identification',
    ],
  ],
  ['lei', ['Legal Entity Number']],
  ['swift_bic', ['SWIFT/BIC']],
  [
    'imo',
    ['Vessel Registration Identification IMO', 'Identification Number IMO', 'Company Number IMO', 'IMO'],
  ],
  ['mmsi', ['MMSI']],
  [
    'other',
    [
      "Aircraft Manufacturer's Serial Number (MSN)",
      'Aircraft Serial Identification',
      'Aircraft Mode S Transponder Code',
      'ISIN',
      'BIK (RU)',
    ],
  ],
];

// Longest label first so "Identification Number IMO" wins over "Identification Number".
const ID_LABELS: { label: string; type: IdType }[] = ID_LABELS_RAW.flatMap(([type, labels]) =>
  labels.map((label) => ({ label: `${label} `, type })),
).sort((a, b) => b.label.length - a.label.length);

const LABEL_TYPES = new Map(ID_LABELS.map(({ label, type }) => [label.trim(), type]));

/** Identifier type for an OFAC-style label ("Passport", "Tax ID No.", …), shared with the CSL parser. */
export function identifierTypeForLabel(label: string): string | undefined {
  const l = label.trim();
  if (l.startsWith('Digital Currency Address')) return 'crypto_wallet';
  return LABEL_TYPES.get(l);
}

const CRYPTO = /^Digital Currency Address - ([A-Z0-9]+) (\S+)/;
const NAME_ITEM = /^(a\.k\.a\.|f\.k\.a\.|n\.k\.a\.)\s*'(.*)'$/i;
const QUALIFIER = /\s+(?:issued|expires|Issue Date|Expiration Date|Expire Date)\b.*$/i;
const TRAILING_PAREN = /\s*\(([^()]*)\)\s*$/;

function parseIdentifier(
  d: EntityDraft,
  type: IdType,
  label: string,
  rest: string,
  at: Origin,
  onIssue: IssueSink,
): void {
  let s = rest.replace(QUALIFIER, '').trim();
  let country: string | undefined;
  let lastParen: string | undefined;
  // Peel trailing "(…)" groups: "HRA 738077 (Stuttgart) (Germany)" → value "HRA 738077", country DE.
  for (let guard = 0; guard < 4; guard++) {
    const m = TRAILING_PAREN.exec(s);
    if (m === null) break;
    lastParen ??= m[1]!;
    const r = lookupCountry(m[1]!);
    if (country === undefined && 'code' in r) country = r.code;
    s = s.slice(0, m.index).trim();
  }
  if (country === undefined && lastParen !== undefined && 'unknown' in lookupCountry(lastParen)) {
    // Often a registry city ("(Bogota)"); reported so the country table can grow, the identifier is kept.
    onIssue({
      ...at,
      field: `Remarks.${label.trim()}`,
      message: `unknown country "${lastParen}" in identifier`,
    });
  }
  if (s === '') {
    onIssue({ ...at, field: `Remarks.${label.trim()}`, message: 'identifier without a value' });
    return;
  }
  d.addIdentifier(type, s, country);
}

export function parseRemarks(d: EntityDraft, remarks: string, at: Origin, onIssue: IssueSink): void {
  for (const part of remarks.split(';')) {
    let item = part.trim();
    if (item.endsWith('.')) item = item.slice(0, -1).trimEnd();
    if (item === '') continue;
    if (item.startsWith('alt. ')) item = item.slice(5).trim();
    const nm = NAME_ITEM.exec(item);
    if (nm) {
      const tag = nm[1]!.toLowerCase();
      // Remarks a.k.a.s are OFAC's "weak aliases"; f.k.a. stays former; n.k.a. is a current name.
      d.addName(nm[2], tag === 'f.k.a.' ? 'former' : tag === 'n.k.a.' ? 'alias' : 'weak');
      continue;
    }
    if (item.startsWith('DOB ')) {
      const dates = parseDateExpr(item.slice(4));
      if (dates === undefined)
        onIssue({ ...at, field: 'Remarks.DOB', message: `unparseable date "${item.slice(4)}"` });
      else for (const x of dates) d.birthDates.add(x);
      continue;
    }
    if (item.startsWith('POB ')) {
      d.addBirthPlace(item.slice(4));
      continue;
    }
    if (item.startsWith('nationality ') || item.startsWith('citizen ')) {
      const sp = item.indexOf(' ');
      d.addNationality(item.slice(sp + 1), `Remarks.${item.slice(0, sp)}`, at, onIssue);
      continue;
    }
    if (item.startsWith('Gender ')) {
      const g = item.slice(7).trim().toLowerCase();
      if (g === 'male' || g === 'female') d.gender = g;
      continue;
    }
    const crypto = CRYPTO.exec(item);
    if (crypto) {
      d.addIdentifier('crypto_wallet', crypto[2]);
      continue;
    }
    for (const { label, type } of ID_LABELS) {
      if (item.startsWith(label)) {
        parseIdentifier(d, type, label, item.slice(label.length), at, onIssue);
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------

/** The file `name` in dir, or a single `<prefix>-<name>` (fixtures and demo lists carry a prefix, e.g.
 * `demo-sdn.csv`, so that they are never mistaken for copies of the official files). */
async function locate(dir: string, name: string): Promise<string | undefined> {
  const exact = path.join(dir, name);
  if (await exists(exact)) return exact;
  const prefixed = (await readdir(dir)).filter((f) => f.endsWith(`-${name}`));
  return prefixed.length === 1 && prefixed[0] ? path.join(dir, prefixed[0]) : undefined;
}

export async function* readOfacCsv(
  dir: string,
  layout: OfacLayout,
  onIssue: IssueSink,
): AsyncGenerator<Entity> {
  await assertExists(dir, 'directory');
  const mainPath = (await locate(dir, layout.main)) ?? path.join(dir, layout.main);
  await assertExists(mainPath, 'file');
  const sideFile = new Map<string, string>();
  const side = async (name: string, width: number): Promise<Map<string, SideRow[]>> => {
    const p = await locate(dir, name);
    if (p) sideFile.set(name, path.basename(p));
    // alt/add/comments are optional: small lists may have no aliases or addresses at all.
    return p ? readSide(p, width, onIssue) : new Map();
  };
  const alts = await side(layout.alt, 5);
  const adds = await side(layout.add, 6);
  const comments = await side(layout.comments, 2);

  const file = path.basename(mainPath);
  for await (const rec of readCsv(openText(mainPath), { file, onIssue })) {
    const f = rec.fields;
    const at: Origin = { file, line: rec.line };
    if (f.length !== 12) {
      onIssue({ ...at, message: `expected 12 columns, found ${f.length}; row skipped` });
      continue;
    }
    const ent = val(f[0]);
    if (ent === undefined || !/^\d+$/.test(ent)) {
      onIssue({ ...at, field: 'ent_num', message: `invalid ent_num "${f[0]}"; row skipped` });
      continue;
    }
    const typeRaw = (val(f[2]) ?? 'entity').toLowerCase();
    const schema = TYPES[typeRaw];
    if (schema === undefined) {
      onIssue({ ...at, field: 'SDN_Type', message: `unknown SDN_Type "${f[2]}"; row skipped` });
      continue;
    }
    const d = new EntityDraft(layout.source, ent, schema);
    d.datasets.add('sanctions');
    d.addName(val(f[1]), 'primary');
    const program = val(f[3]);
    if (program !== undefined)
      for (const p of program.split(/\]\s*\[/)) d.addProgram(p.replace(/[[\]]/g, ''));
    const title = val(f[4]);
    d.addNote(title);
    d.addIdentifier('call_sign', val(f[5]));
    const flag = val(f[9]);
    if (flag !== undefined) d.addCountry(flag, 'Vess_flag', at, onIssue);

    let remarks = val(f[11]) ?? '';
    const extra = comments.get(ent);
    if (extra !== undefined) {
      // Remarks_Extended continues a Remarks cell cut at ~1000 characters, mid-word.
      for (const c of extra) remarks += c.fields[1] ?? '';
      comments.delete(ent);
    }
    if (remarks !== '') {
      parseRemarks(d, remarks, at, onIssue);
      d.addNote(remarks);
    }

    const altRows = alts.get(ent);
    if (altRows !== undefined) {
      for (const a of altRows) {
        const kindRaw = (val(a.fields[2]) ?? '').toLowerCase();
        const kind = ALT_KINDS[kindRaw];
        if (kind === undefined) {
          onIssue({
            file: sideFile.get(layout.alt) ?? layout.alt,
            line: a.line,
            field: 'alt_type',
            message: `unknown alt_type "${a.fields[2]}"`,
          });
          continue;
        }
        d.addName(val(a.fields[3]), kind);
      }
      alts.delete(ent);
    }
    const addRows = adds.get(ent);
    if (addRows !== undefined) {
      for (const a of addRows) {
        d.addCountry(
          val(a.fields[4]),
          'Country',
          { file: sideFile.get(layout.add) ?? layout.add, line: a.line },
          onIssue,
        );
      }
      adds.delete(ent);
    }
    const e = d.finish(at, onIssue);
    if (e !== undefined) yield e;
  }

  for (const [name, map] of [
    [layout.alt, alts],
    [layout.add, adds],
    [layout.comments, comments],
  ] as const) {
    for (const [ent, rows] of map) {
      for (const r of rows) {
        onIssue({
          file: sideFile.get(name) ?? name,
          line: r.line,
          field: 'ent_num',
          message: `orphan row: ent_num ${ent} not in ${path.basename(mainPath)}`,
        });
      }
    }
  }
}
