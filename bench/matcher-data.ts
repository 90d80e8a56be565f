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
