// What a folded token is worth to scoring, shared by preparation, alignment and the bound: particles and generic
// company words (which weigh little when unmatched), token weights, digits, patronymic endings.
import { ORG_GENERIC_WORDS } from './name-variants.js';
import { normalizeName } from './normalize.js';

/** Particles that carry little identity: they still align but weigh little when unmatched. */
export const PARTICLES = new Set([
  'al',
  'bin',
  'abu',
  'bint',
  'de',
  'da',
  'di',
  'del',
  'dela',
  'della',
  'van',
  'von',
  'der',
  'den',
  'la',
  'le',
  'du',
  'dos',
  'das',
  'na',
  'y',
  'e',
  'ait',
  'ould',
  'mac',
  'mc',
  'st',
]);

/** Unmatched generic/geographic words cost this fraction of a distinctive token in org names. */
export const GENERIC = new Set(ORG_GENERIC_WORDS.flatMap((w) => normalizeName(w, 'org').tokens));
const GENERIC_COST = 0.3;
const PARTICLE_COST = 0.3;

export function tokenWeight(t: string): number {
  return weightOf(t.length, PARTICLES.has(t));
}

/** A token's weight from its length and whether it is a particle (tokenWeight, and the bound's packed tokens). */
export function weightOf(len: number, particle: boolean): number {
  if (particle) return 0.6;
  if (len === 1) return 2;
  return Math.min(len, 10);
}

export function allDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** Endings of East Slavic patronymics (folded). */
export const PATRONYMIC_END = /(?:ovich|evich|ovych|evych|ovna|evna|ivna|ich)$/;

/** What a token left unaligned costs, as a fraction of its weight: a particle little, a generic word little in a
 * company name, any other token all of it. */
export function unmatchedCostOf(particle: boolean, generic: boolean, org: boolean): number {
  if (particle) return PARTICLE_COST;
  return org && generic ? GENERIC_COST : 1;
}
