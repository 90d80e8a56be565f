// FollowTheMoney JSON lines (OpenSanctions exports): plain entity lines, or delta lines
// {"op": "ADD"|"MOD"|"DEL", "entity": {...}} applied in order (later MOD replaces, DEL removes). `path` is a file
// or a directory whose *.json files are read recursively in name order.
//
// Streaming: plain files are read twice — pass 1 collects only the small link entities (Sanction → programs,
// CryptoWallet → wallet ids, Passport/Identification → document numbers) keyed by the target id; pass 2 emits
// the screenable entities. Delta files must buffer the live state by id (acceptable, as agreed).
//
// Choices:
// - source is always 'opensanctions' (FtM ids are globally unique there), so entity_id is `opensanctions:<id>`;
//   the entity's own FtM datasets (e.g. eu_fsf) only feed the dataset fallback below.
// - Only screenable schemata are emitted: Person, Organization, Company, LegalEntity, Vessel, Aircraft, plus
//   PublicBody as Organization. Everything else (Sanction, Address, Ownership, …) is context, skipped silently.
// - `name`: first value primary (the caption if it is one of the names), the rest alias (FtM names are usually spellings of equal standing);
//   alias → alias, weakAlias and abbreviation → weak, previousName → former. No name → firstName + lastName.
// - topics → datasets: sanction*, → sanctions; role.pep → pep; role.rca → pep_rca; crime*, wanted → wanted;
//   debarment, corp.disqual, export.control → debarment; gov.soe → soe. An entity linked to a CryptoWallet also
//   gets crypto_wallets. When no topic maps, the FtM dataset names are used as hints (…sanction…, _sdn, fsf,
//   dttot, terror → sanctions; pep, congress, parliament → pep; exclusion, debar, disqual → debarment; wanted,
//   interpol → wanted). Entities with neither (e.g. plain company-registry records) are not screening targets
//   and are skipped; one summary issue per file says how many.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { EntityDraft, type Origin } from './builder.js';
import { lookupCountry } from './countries.js';
import { parseDate } from './dates.js';
import type { AmlDataset, Entity, EntitySchema, IssueSink, NameKind } from './entity.js';
import { listFiles, readLines } from './io.js';

const SOURCE = 'opensanctions';

const SCHEMATA: Record<string, EntitySchema> = {
  Person: 'Person',
  Organization: 'Organization',
  Company: 'Company',
  LegalEntity: 'LegalEntity',
  Vessel: 'Vessel',
  Aircraft: 'Aircraft',
  PublicBody: 'Organization',
};

const NAME_PROPS: [string, NameKind][] = [
  ['alias', 'alias'],
  ['previousName', 'former'],
  ['weakAlias', 'weak'],
  ['abbreviation', 'weak'],
];

const ID_PROPS: [string, string][] = [
  ['passportNumber', 'passport'],
  ['taxNumber', 'tax_id'],
  ['innCode', 'tax_id'],
  ['vatCode', 'tax_id'],
  ['imoNumber', 'imo'],
  ['mmsi', 'mmsi'],
  ['callSign', 'call_sign'],
  ['leiCode', 'lei'],
  ['registrationNumber', 'registration'],
  ['ogrnCode', 'registration'],
  ['swiftBic', 'swift_bic'],
];

export function topicDataset(topic: string): AmlDataset | undefined {
  if (topic.startsWith('sanction')) return 'sanctions';
  if (topic === 'role.pep') return 'pep';
  if (topic === 'role.rca') return 'pep_rca';
  if (topic.startsWith('crime') || topic === 'wanted') return 'wanted';
  if (topic === 'debarment' || topic === 'corp.disqual' || topic === 'export.control') return 'debarment';
  if (topic === 'gov.soe') return 'soe';
  return undefined;
}

const DATASET_HINTS: [RegExp, AmlDataset][] = [
  [/sanction|_sdn|fsf|dttot|terror|blacklist/, 'sanctions'],
  [/pep|congress|parliament/, 'pep'],
  [/exclusion|debar|disqual/, 'debarment'],
  [/wanted|interpol/, 'wanted'],
];

interface FtmEntity {
  id: string;
  schema: string;
  caption?: string;
  properties: Record<string, unknown>;
  datasets: string[];
}

interface Links {
  programs: Map<string, Set<string>>;
  wallets: Map<string, Set<string>>;
  documents: Map<string, { type: string; number: string; country?: string }[]>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toFtm(v: unknown): FtmEntity | undefined {
  if (!isRecord(v) || typeof v['id'] !== 'string' || v['id'] === '' || typeof v['schema'] !== 'string') {
    return undefined;
  }
  const props = isRecord(v['properties']) ? v['properties'] : {};
  const ds = Array.isArray(v['datasets'])
    ? v['datasets'].filter((x): x is string => typeof x === 'string')
    : [];
  const out: FtmEntity = { id: v['id'], schema: v['schema'], properties: props, datasets: ds };
  if (typeof v['caption'] === 'string') out.caption = v['caption'];
  return out;
}

/** String values of a property; non-array or non-string values are reported and dropped. */
function prop(e: FtmEntity, name: string, at: Origin, onIssue: IssueSink): string[] {
  const v = e.properties[name];
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    onIssue({ ...at, field: `properties.${name}`, message: 'property is not an array; ignored' });
    return [];
  }
  return v.filter((x): x is string => typeof x === 'string');
}

function collectLink(e: FtmEntity, links: Links, at: Origin, onIssue: IssueSink): void {
  const p = (n: string) => prop(e, n, at, onIssue);
  const setFor = (m: Map<string, Set<string>>, k: string): Set<string> => {
    let v = m.get(k);
    if (v === undefined) {
      v = new Set();
      m.set(k, v);
    }
    return v;
  };
  if (e.schema === 'Sanction') {
    const programs = [...p('programId'), ...(p('programId').length === 0 ? p('program') : [])];
    for (const target of p('entity')) {
      const set = setFor(links.programs, target);
      for (const prog of programs) set.add(prog);
    }
  } else if (e.schema === 'CryptoWallet') {
    for (const holder of p('holder')) {
      const set = setFor(links.wallets, holder);
      for (const key of p('publicKey')) set.add(key);
    }
  } else if (e.schema === 'Passport' || e.schema === 'Identification') {
    const type = e.schema === 'Passport' ? 'passport' : 'national_id';
    const country = p('country')[0];
    for (const number of p('number')) {
      for (const holder of p('holder')) {
        const doc = country === undefined ? { type, number } : { type, number, country };
        const list = links.documents.get(holder);
        if (list === undefined) links.documents.set(holder, [doc]);
        else list.push(doc);
      }
    }
  }
}

function convert(e: FtmEntity, links: Links, at: Origin, onIssue: IssueSink): Entity | 'skip' | undefined {
  const schema = SCHEMATA[e.schema];
  if (schema === undefined) return 'skip';
  const p = (n: string) => prop(e, n, at, onIssue);
  const d = new EntityDraft(SOURCE, e.id, schema);

  for (const t of p('topics')) {
    const ds = topicDataset(t);
    if (ds !== undefined) d.datasets.add(ds);
  }
  const wallets = links.wallets.get(e.id);
  if (wallets !== undefined && wallets.size > 0) d.datasets.add('crypto_wallets');
  if (d.datasets.size === 0) {
    for (const name of e.datasets) {
      for (const [re, ds] of DATASET_HINTS) if (re.test(name)) d.datasets.add(ds);
    }
  }
  if (d.datasets.size === 0) return 'skip';

  const names = p('name');
  if (names.length === 0) {
    const composed = [p('firstName')[0], p('lastName')[0]].filter((x) => x !== undefined).join(' ');
    if (composed !== '') names.push(composed);
  }
  // FtM's caption is the display name chosen among the names; prefer it as primary when it is one of them.
  const cap = e.caption;
  let capIdx = cap === undefined ? -1 : names.indexOf(cap);
  if (capIdx < 0 && cap !== undefined) capIdx = names.findIndex((n) => n.toLowerCase() === cap.toLowerCase());
  if (capIdx > 0) names.unshift(...names.splice(capIdx, 1));
  for (const [i, n] of names.entries()) d.addName(n, i === 0 ? 'primary' : 'alias');
  for (const [pn, kind] of NAME_PROPS) for (const n of p(pn)) d.addName(n, kind);

  for (const b of p('birthDate')) {
    const iso = parseDate(b);
    if (iso === undefined)
      onIssue({ ...at, field: 'properties.birthDate', message: `unparseable date "${b}"` });
    else d.birthDates.add(iso);
  }
  for (const b of p('birthPlace')) d.addBirthPlace(b);
  for (const pn of ['nationality', 'citizenship'])
    for (const c of p(pn)) d.addNationality(c, `properties.${pn}`, at, onIssue);
  for (const pn of ['country', 'jurisdiction', 'flag'])
    for (const c of p(pn)) d.addCountry(c, `properties.${pn}`, at, onIssue);
  const g = p('gender')[0]?.toLowerCase();
  if (g === 'male' || g === 'female') d.gender = g;

  for (const v of p('idNumber')) d.addIdentifier(schema === 'Person' ? 'national_id' : 'registration', v);
  for (const [pn, type] of ID_PROPS) for (const v of p(pn)) d.addIdentifier(type, v);
  for (const doc of links.documents.get(e.id) ?? []) {
    const c = doc.country === undefined ? undefined : lookupCountry(doc.country);
    d.addIdentifier(doc.type, doc.number, c !== undefined && 'code' in c ? c.code : undefined);
  }
  for (const w of wallets ?? []) d.addIdentifier('crypto_wallet', w);
  for (const prog of links.programs.get(e.id) ?? []) d.addProgram(prog);
  for (const n of p('notes')) d.addNote(n);
  return d.finish(at, onIssue);
}

interface Parsed {
  ftm?: FtmEntity;
  op?: 'ADD' | 'MOD' | 'DEL';
  delId?: string;
}

function parseLine(text: string, at: Origin, onIssue: IssueSink): Parsed | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    onIssue({ ...at, message: 'invalid JSON line; skipped' });
    return undefined;
  }
  if (isRecord(v) && 'op' in v) {
    const op = v['op'];
    if (op !== 'ADD' && op !== 'MOD' && op !== 'DEL') {
      onIssue({ ...at, field: 'op', message: `unknown delta op "${String(op)}"; skipped` });
      return undefined;
    }
    const ent = v['entity'];
    if (op === 'DEL') {
      const id = isRecord(ent) ? ent['id'] : undefined;
      if (typeof id !== 'string') {
        onIssue({ ...at, field: 'entity.id', message: 'DEL without entity id; skipped' });
        return undefined;
      }
      return { op, delId: id };
    }
    const ftm = toFtm(ent);
    if (ftm === undefined) {
      onIssue({ ...at, field: 'entity', message: `${op} without a valid entity (id, schema); skipped` });
      return undefined;
    }
    return { op, ftm };
  }
  const ftm = toFtm(v);
  if (ftm === undefined) {
    onIssue({ ...at, message: 'not an FtM entity (needs string id and schema); skipped' });
    return undefined;
  }
  return { ftm };
}

async function* readFtmFile(
  file: string,
  display: string,
  emitted: Set<string>,
  onIssue: IssueSink,
): AsyncGenerator<Entity> {
  const links: Links = { programs: new Map(), wallets: new Map(), documents: new Map() };
  // Delta state: id → [entity, line of the op that produced it]. Plain screenable lines are re-read in pass 2.
  const state = new Map<string, [FtmEntity, number]>();
  let deltaOps = 0;
  let plainScreenable = 0;
  for await (const { text, line } of readLines(file)) {
    if (text.trim() === '') continue;
    const at = { file: display, line };
    const r = parseLine(text, at, onIssue);
    if (r === undefined) continue;
    if (r.op !== undefined) {
      deltaOps++;
      if (r.op === 'DEL') {
        // A DEL of an id not seen in this file is normal: deltas apply to a base export we do not have.
        state.delete(r.delId!);
      } else {
        state.set(r.ftm!.id, [r.ftm!, line]);
      }
    } else if (r.ftm !== undefined) {
      if (SCHEMATA[r.ftm.schema] !== undefined) plainScreenable++;
      else collectLink(r.ftm, links, at, onIssue);
    }
  }
  for (const [e, line] of state.values()) collectLink(e, links, { file: display, line }, onIssue);

  let skipped = 0;
  const emit = (e: FtmEntity, at: Origin): Entity | undefined => {
    const out = convert(e, links, at, onIssue);
    if (out === 'skip') {
      if (SCHEMATA[e.schema] !== undefined) skipped++;
      return undefined;
    }
    if (out === undefined) return undefined;
    if (emitted.has(out.source_id)) {
      onIssue({ ...at, field: 'id', message: `duplicate entity id ${out.source_id}; later copy skipped` });
      return undefined;
    }
    emitted.add(out.source_id);
    return out;
  };

  if (deltaOps > 0) {
    for (const [e, line] of state.values()) {
      const out = emit(e, { file: display, line });
      if (out !== undefined) yield out;
    }
  }
  if (plainScreenable > 0) {
    // Pass 2 — errors were already reported in pass 1, so parse quietly.
    const quiet: IssueSink = () => {};
    for await (const { text, line } of readLines(file)) {
      if (text.trim() === '') continue;
      const r = parseLine(text, { file: display, line }, quiet);
      if (r?.ftm === undefined || r.op !== undefined || SCHEMATA[r.ftm.schema] === undefined) continue;
      const out = emit(r.ftm, { file: display, line });
      if (out !== undefined) yield out;
    }
  }
  if (skipped > 0) {
    onIssue({
      file: display,
      line: 0,
      field: 'properties.topics',
      message: `${skipped} entities without a screening topic or dataset hint skipped`,
    });
  }
}

export async function* readFtmJson(p: string, onIssue: IssueSink): AsyncGenerator<Entity> {
  let isDir: boolean;
  try {
    isDir = (await stat(p)).isDirectory();
  } catch {
    throw new Error(`ingest: file or directory not found: ${p}`);
  }
  const files = isDir ? await listFiles(p, ['.json']) : [p];
  const base = isDir ? p : path.dirname(p);
  const emitted = new Set<string>();
  for (const f of files) yield* readFtmFile(f, path.relative(base, f), emitted, onIssue);
}
