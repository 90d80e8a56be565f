// Non-name features and their combination with the name score. Shared by screen() and compare() so the
// two always agree.
import type { EntitySchema } from '../ingest/entity.js';
import { nameSimilarity } from './alignment.js';
import { alternativeReadings, type NameKind } from './normalize.js';
import { type PreparedName, prepareName } from './prepared-name.js';
import type { ScreenSubject, SubjectType } from './types.js';
import { FEATURES, featureWeight } from './weights.js';

export interface KindInfo {
  kind: NameKind;
  org: boolean;
}

export function schemaKind(schema: string): KindInfo {
  switch (schema) {
    case 'Person':
      return { kind: 'person', org: false };
    case 'Company':
    case 'Organization':
      return { kind: 'org', org: true };
    case 'Vessel':
    case 'Aircraft':
      return { kind: 'vessel', org: false };
    default:
      return { kind: 'any', org: false };
  }
}

export function subjectKind(type: SubjectType | undefined): KindInfo {
  switch (type) {
    case 'person':
      return { kind: 'person', org: false };
    case 'company':
    case 'organization':
      return { kind: 'org', org: true };
    case 'vessel':
    case 'aircraft':
      return { kind: 'vessel', org: false };
    default:
      return { kind: 'any', org: false };
  }
}

/** undefined: incompatible (never a match); otherwise a penalty ≤ 0. Unknown subject type matches anything. */
export function typePenalty(type: SubjectType | undefined, schema: EntitySchema): number | undefined {
  if (type === undefined) return 0;
  const craft = schema === 'Vessel' || schema === 'Aircraft';
  switch (type) {
    case 'person':
      if (craft) return undefined;
      return schema === 'Company' || schema === 'Organization' ? OTHER_KIND : 0;
    case 'company':
    case 'organization':
      if (craft) return OTHER_KIND;
      return schema === 'Person' ? OTHER_KIND : 0;
    case 'vessel':
      if (schema === 'Person' || schema === 'Aircraft') return undefined;
      return schema === 'Vessel' ? 0 : OTHER_KIND;
    case 'aircraft':
      if (schema === 'Person' || schema === 'Vessel') return undefined;
      return schema === 'Aircraft' ? 0 : OTHER_KIND;
  }
  return 0;
}

const DOB = FEATURES.dob;
const OTHER_KIND = FEATURES.entity_type.otherKind;
const WEAK_ALIAS = FEATURES.weak_alias.weak;

/** Best agreement of the subject's date of birth with any of the entity's; undefined if either is unknown. */
export function dobFeature(dob: string | undefined, dates: readonly string[]): number | undefined {
  if (!dob || dates.length === 0) return undefined;
  const sy = Number(dob.slice(0, 4));
  if (!Number.isFinite(sy)) return undefined;
  let best = Number.NEGATIVE_INFINITY;
  for (const d of dates) {
    const ey = Number(d.slice(0, 4));
    if (!Number.isFinite(ey)) continue;
    let v: number;
    if (ey === sy) {
      const common = Math.min(dob.length, d.length);
      if (common <= 4) v = DOB.year;
      else if (dob.slice(0, common) === d.slice(0, common)) v = common >= 10 ? DOB.exact : DOB.year;
      else v = DOB.partialMismatch;
    } else if (Math.abs(ey - sy) === 1) v = DOB.near;
    else v = DOB.mismatch;
    if (v > best) best = v;
  }
  return best === Number.NEGATIVE_INFINITY ? undefined : best;
}

export function countryFeature(
  subjectCountries: readonly string[],
  entityCountries: readonly string[],
): number | undefined {
  if (subjectCountries.length === 0 || entityCountries.length === 0) return undefined;
  for (const c of subjectCountries) if (entityCountries.includes(c)) return FEATURES.nationality.match;
  return FEATURES.nationality.mismatch;
}

export function normIdentifier(v: string): string {
  return v.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** Identifier values a subject carries, normalised like EntityIdentifier.value. */
export function subjectIdentifiers(s: ScreenSubject): string[] {
  const out: string[] = [];
  const add = (v: string | undefined): void => {
    if (!v) return;
    const n = normIdentifier(v);
    // very short values (e.g. "1") are not discriminating
    if (n.length >= 4 && !out.includes(n)) out.push(n);
  };
  if (s.identifiers) for (const k of Object.keys(s.identifiers).sort()) add(s.identifiers[k]);
  add(s.imo_number);
  add(s.mmsi);
  add(s.registration_number);
  // IMO numbers are often written "IMO 1234567"
  if (s.imo_number) add(s.imo_number.replace(/^\s*imo\s*/i, ''));
  return out;
}

export function subjectCountries(s: ScreenSubject): string[] {
  const out: string[] = [];
  for (const c of [s.nationality, s.country])
    if (c && !out.includes(c.toUpperCase())) out.push(c.toUpperCase());
  return out;
}

export interface Combined {
  score: number;
  features: Record<string, number>;
}

/** Combines the name score with the other features; weights multiply each contribution. */
export function combine(
  name: number,
  parts: { dob?: number; country?: number; identifier?: boolean; type?: number; weak?: boolean },
  weights: Record<string, number>,
): Combined {
  const w = (k: string): number => featureWeight(weights, k);
  const features: Record<string, number> = { name: round(name) };
  let score = name * w('name');
  if (parts.weak) {
    score += WEAK_ALIAS * w('weak_alias');
    features['weak_alias'] = WEAK_ALIAS;
  }
  if (parts.dob !== undefined) {
    score += parts.dob * w('dob');
    features['dob'] = parts.dob;
  }
  if (parts.country !== undefined) {
    score += parts.country * w('nationality');
    features['nationality'] = parts.country;
  }
  if (parts.type !== undefined && parts.type !== 0) {
    score += parts.type * w('entity_type');
    features['entity_type'] = parts.type;
  }
  if (parts.identifier) {
    // an exact identifier is near-conclusive: lift to ≥0.95 whatever the name says
    const target = FEATURES.identifier.floor + FEATURES.identifier.perName * name;
    if (target > score) score += (target - score) * Math.min(1, w('identifier'));
    features['identifier'] = 1;
  }
  return { score: round(Math.max(0, Math.min(1, score))), features };
}

export function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function subjectNames(s: ScreenSubject): string[] {
  const names = [s.name, ...(s.aliases ?? [])].filter((n) => n.trim().length > 0);
  return [...names, ...names.flatMap(alternativeReadings)];
}

/** compare(): both sides are subjects; the second plays the list entity. */
export function scoreSubjectPair(k: KindInfo, a: ScreenSubject, b: ScreenSubject): number {
  const qa: PreparedName[] = subjectNames(a).map((n) => prepareName(n, k.kind));
  const qb: PreparedName[] = subjectNames(b).map((n) => prepareName(n, k.kind));
  let best = 0;
  for (const x of qa) for (const y of qb) best = Math.max(best, nameSimilarity(x, y, k.org));
  const dob = dobFeature(a.date_of_birth, b.date_of_birth ? [b.date_of_birth] : []);
  const country = countryFeature(subjectCountries(a), subjectCountries(b));
  const ib = subjectIdentifiers(b);
  const identifier = subjectIdentifiers(a).some((v) => ib.includes(v));
  return combine(best, { dob, country, identifier }, {}).score;
}
