// What a folded token is worth to scoring, shared by preparation, alignment and the bound: particles and generic
// company words (which weigh little when unmatched), token weights, digits, patronymic endings.
import { ORG_GENERIC_WORDS } from './name-variants.js';
import { canonicalWord, glueHeads, type NormalizedName, normalizeName } from './normalize.js';

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

/** The folded spellings of the particles (and abdul) that are written glued to the next word, each to its canonical
 * token (el → al, ben → bin): BINmansor ↔ BIN MANSOR, ELkhansa ↔ EL KHANSA. */
export const GLUE_HEADS: ReadonlyMap<string, string> = glueHeads(PARTICLES);
/** The canonical tokens among GLUE_HEADS' values. */
export const GLUE_HEAD_TOKENS: ReadonlySet<string> = new Set(GLUE_HEADS.values());

/** The first two letters of GLUE_HEADS' spellings (both ASCII), one flag per pair of character codes: a token that
 * starts with no such pair is glued to nothing, which gluedHead tells without slicing out its prefixes. */
const GLUE_FIRST_TWO = new Uint8Array(128 * 128);
for (const spelling of GLUE_HEADS.keys()) {
  const c0 = spelling.charCodeAt(0);
  const c1 = spelling.charCodeAt(1);
  if (c0 < 128 && c1 < 128) GLUE_FIRST_TWO[c0 * 128 + c1] = 1;
}

/** The canonical particle a token starts with when it is one glued to a word of 2+ letters, or undefined. */
export function gluedHead(t: string): string | undefined {
  if (t.length < 4) return undefined;
  const c0 = t.charCodeAt(0);
  const c1 = t.charCodeAt(1);
  if (c0 < 128 && c1 < 128 && GLUE_FIRST_TWO[c0 * 128 + c1] === 0) return undefined;
  for (let k = 2; k <= 5 && k + 2 <= t.length; k++) {
    const h = GLUE_HEADS.get(t.slice(0, k));
    if (h !== undefined) return h;
  }
  return undefined;
}

/** `n` with every token that starts with a glued particle split in two (abdulkarem → abdul karim), or undefined when
 * it has none: a query's extra retrieval keys, so a list name that writes the two apart is found. */
export function splitGluedTokens(n: NormalizedName): NormalizedName | undefined {
  let out: string[] | undefined;
  for (let i = 0; i < n.tokens.length; i++) {
    const t = n.tokens[i]!;
    let split: string[] | undefined;
    for (let k = 2; k <= 5 && k + 3 <= t.length; k++) {
      const h = GLUE_HEADS.get(t.slice(0, k));
      if (h !== undefined) {
        split = [h, canonicalWord(t.slice(k))];
        break;
      }
    }
    if (split === undefined) {
      out?.push(t);
      continue;
    }
    out ??= n.tokens.slice(0, i);
    out.push(...split);
  }
  return out === undefined ? undefined : { tokens: out, legalForms: n.legalForms, abjad: n.abjad };
}

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
