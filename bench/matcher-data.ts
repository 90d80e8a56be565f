// The real lists and benchmark rows bench:matcher and bench/matcher-ab.ts read from ../shared/data.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countryCode } from '../ingest/countries.js';
import { parseCsvTable } from '../ingest/csv.js';
import type { Entity } from '../ingest/entity.js';
import { FORMATS, readSource } from '../ingest/index.js';
import type { ScreenSubject } from '../matcher/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SHARED = process.env.VERISCREEN_SHARED_DATA ?? path.resolve(ROOT, '../shared/data');
/** The yente candidate-generation benchmark's folder. */
export const YENTE_BENCH = 'matching_cases/yente_candidate_generation_benchmark/';

/** Rows as objects keyed by the header line. */
export function readTable(rel: string): Record<string, string>[] {
  return parseCsvTable(readFileSync(path.join(SHARED, rel), 'utf8'));
}

const DOB_RE = /^\d{4}(-\d{2}(-\d{2})?)?$/;
/** A benchmark CSV row as the customer record a bank would screen. */
export function subjectOf(row: Record<string, string>): ScreenSubject {
  const s: ScreenSubject = { name: row['full_name'] ?? '' };
  const dob = (row['date_of_birth'] ?? '').trim();
  if (DOB_RE.test(dob)) s.date_of_birth = dob;
  const nat = (row['nationality'] ?? '').trim();
  if (nat) {
    const c = countryCode(nat);
    if (c) s.nationality = c;
  }
  if ((row['gender'] ?? '').trim()) s.type = 'person';
  return s;
}

/** The 100k yente negatives (global, then US) as subjects, blank names left out. */
export function negativeSubjects(): ScreenSubject[] {
  return [...readTable(YENTE_BENCH + 'negatives_global.csv'), ...readTable(YENTE_BENCH + 'negatives_us.csv')]
    .map(subjectOf)
    .filter((s) => s.name.trim().length > 0);
}

/** bench:matcher's brute-force sample: `size` / 2 negatives and `size` / 2 UN treated positives, evenly spaced. */
export function bruteSample(
  negatives: ScreenSubject[],
  size: number,
): { negSample: ScreenSubject[]; posSample: ScreenSubject[] } {
  const step = Math.max(1, Math.floor(negatives.length / (size / 2)));
  const negSample = negatives.filter((_, i) => i % step === 0).slice(0, size / 2);
  const unTreated = readTable(YENTE_BENCH + 'positives_un_treated.csv').map(subjectOf);
  const ustep = Math.max(1, Math.floor(unTreated.length / (size / 2)));
  const posSample = unTreated.filter((_, i) => i % ustep === 0).slice(0, size / 2);
  return { negSample, posSample };
}

export { REAL_LISTS as LISTS } from './lists.js';

/** One list's entities, or undefined when its format or file is not available. */
export async function loadList(format: string, rel: string): Promise<Entity[] | undefined> {
  if (!FORMATS.includes(format)) return undefined;
  const p = path.join(SHARED, rel);
  if (!existsSync(p)) return undefined;
  const out: Entity[] = [];
  for await (const e of readSource(format, p, () => {})) out.push(e);
  return out;
}

/** bench:matcher's deterministic synthetic list of `n` entities (seeded): the generator, and the random source,
 * given names, word maker and sampled primary names (every 200th, filled as the generator runs) its queries use. */
export function syntheticSet(n: number) {
  let seed = 20261121;
  const rnd = (): number => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const onsets = [
    '',
    'b',
    'd',
    'f',
    'g',
    'h',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'z',
    'sh',
    'ch',
    'kh',
    'br',
    'st',
    'tr',
    'gr',
    'dr',
  ];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'i', 'ai', 'ou', 'ia'];
  const codas = ['', '', '', 'n', 'r', 'l', 's', 'm', 'k', 't', 'v', 'd'];
  const word = (minS: number, maxS: number): string => {
    const n = minS + Math.floor(rnd() * (maxS - minS + 1));
    let w = '';
    for (let i = 0; i < n; i++) w += pick(onsets) + pick(vowels) + pick(codas);
    return w[0]!.toUpperCase() + w.slice(1);
  };
  const given = Array.from({ length: 3000 }, () => word(2, 3));
  const family = Array.from({ length: 120_000 }, () => word(2, 4));
  const suffixes = ['ov', 'ev', 'enko', 'ski', 'escu', 'idze', 'ian', 'son', 'ez', 'i', ''];
  const orgWords = [
    'Trading',
    'Group',
    'Holding',
    'International',
    'Shipping',
    'Bank',
    'Industries',
    'Energy',
    'Petroleum',
    'Services',
    'Logistics',
    'Investment',
    'Technologies',
    'Maritime',
  ];
  const forms = ['LLC', 'Ltd', 'JSC', 'GmbH', 'SA', 'Inc', 'Corporation', 'Company', 'FZE', 'PLC', ''];
  const countries = ['RU', 'IR', 'KP', 'SY', 'CN', 'AE', 'TR', 'VE', 'BY', 'AF', 'IQ', 'LB'];
  const sampleNames: string[] = [];
  function* entities(): Generator<Entity> {
    for (let i = 0; i < n; i++) {
      const person = rnd() < 0.6;
      const fam = () => pick(family) + pick(suffixes);
      const primary = person
        ? `${pick(given)} ${rnd() < 0.3 ? pick(given) + ' ' : ''}${fam()}`
        : `${fam()} ${pick(orgWords)}${rnd() < 0.5 ? ' ' + pick(orgWords) : ''} ${pick(forms)}`.trim();
      const names: Entity['names'] = [{ value: primary, kind: 'primary' }];
      const r = rnd();
      if (r < 0.35)
        names.push({
          value: person ? `${fam()}, ${pick(given)}` : `${fam()} ${pick(orgWords)}`,
          kind: r < 0.05 ? 'weak' : 'alias',
        });
      if (i % 200 === 0) sampleNames.push(primary);
      yield {
        entity_id: `synthetic:${i}`,
        source: 'synthetic',
        source_id: String(i),
        schema: person ? 'Person' : 'Company',
        names,
        birth_dates: person
          ? [`${1940 + Math.floor(rnd() * 65)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}`]
          : [],
        birth_places: [],
        countries: rnd() < 0.5 ? [pick(countries)] : [],
        nationalities: person && rnd() < 0.5 ? [pick(countries)] : [],
        identifiers: [],
        programs: ['SYNTH'],
        datasets: [rnd() < 0.8 ? 'sanctions' : 'pep'],
      };
    }
  }
  return { rnd, pick, word, given, sampleNames, entities };
}
