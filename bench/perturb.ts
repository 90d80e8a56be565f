// Perturbation generator for matcher recall (issue 15): real list names altered the way customers and clerks
// mistype them, one class at a time, from a fixed seed. Used by test/matcher/perturb.test.ts (pairwise) and by
// bench:matcher (screened against the full index). Our own recipe; yente's validation report is not used.

/** The perturbation classes, in the order they are reported. */
export const PERTURB_CLASSES = [
  'form_typo',
  'short_transposed',
  'form_variant',
  'reordered',
  'particle_joined',
  'name_typo',
] as const;
export type PerturbClass = (typeof PERTURB_CLASSES)[number];

export interface ListName {
  /** FtM-style schema (Person, Organization, Company, Vessel …) */
  schema: string;
  name: string;
  /** the entity the name belongs to (for screening recall) */
  entityId?: string;
}

export interface PerturbedCase extends ListName {
  cls: PerturbClass;
  /** the altered name a customer would type */
  query: string;
}

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPRSTUVY';

/** One keyboard-style edit inside a word: adjacent transposition, doubled letter, dropped letter or a
 * substituted letter; never touches the first letter of the word. */
export function typo(word: string, r: () => number, kinds = 4): string {
  if (word.length < 3) return word;
  const i = 1 + Math.floor(r() * (word.length - 2)); // 1 .. len-2
  const k = Math.floor(r() * kinds);
  if (k === 0) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  if (k === 1) return word.slice(0, i + 1) + word[i] + word.slice(i + 1);
  if (k === 2) return word.slice(0, i) + word.slice(i + 1);
  let c = LETTERS[Math.floor(r() * LETTERS.length)]!;
  if (c === word[i]!.toUpperCase()) c = c === 'A' ? 'E' : 'A';
  const sub = word[i] === word[i]!.toLowerCase() ? c.toLowerCase() : c;
  return word.slice(0, i) + sub + word.slice(i + 1);
}

const FORM_WORDS = new Set([
  'LIMITED',
  'COMPANY',
  'CORPORATION',
  'LIABILITY',
  'JOINT',
  'STOCK',
  'INCORPORATED',
  'GMBH',
  'AKTIENGESELLSCHAFT',
  'PUBLIC',
]);
/** Legal-form rewrites: [pattern at a word boundary, replacement] (abbreviate, expand, drop). */
const FORM_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bLIMITED$/, 'LTD'],
  [/\bLTD\.?$/, 'LIMITED'],
  [/\bCO\.?,? LTD\.?$/, 'COMPANY LIMITED'],
  [/\bCOMPANY LIMITED$/, 'CO LTD'],
  [/\bCOMPANY$/, 'CO'],
  [/\bCO\.?$/, 'COMPANY'],
  [/\bCORPORATION$/, 'CORP'],
  [/\bCORP\.?$/, 'CORPORATION'],
  [/\bINC\.?$/, 'INCORPORATED'],
  [/\bINCORPORATED$/, 'INC'],
  [/^(OPEN |CLOSED |PUBLIC )?JOINT STOCK COMPANY\b/, 'JSC'],
  [/^(OJSC|CJSC|PJSC|JSC)\b/, 'JOINT STOCK COMPANY'],
  [/^LIMITED LIABILITY COMPANY\b/, 'LLC'],
  [/^(LLC|OOO)\b/, 'LIMITED LIABILITY COMPANY'],
  [/,? (LLC|OOO|GMBH|LTD|LIMITED|INC|CORP|SA|AG|JSC|PLC)\.?$/, ''],
];

const PARTICLES = new Set([
  'AL',
  'EL',
  'ABU',
  'BIN',
  'BEN',
  'ABD',
  'ABDUL',
  'VAN',
  'VON',
  'DE',
  'DEL',
  'LA',
  'DI',
  'DA',
]);

const ORG_SCHEMAS = new Set(['Organization', 'Company', 'LegalEntity']);

function words(name: string): string[] {
  return name.split(/\s+/).filter(Boolean);
}

/** Generates up to `perClass` cases per class from the names, deterministically from `seed`. */
export function perturb(names: readonly ListName[], perClass: number, seed = 15): PerturbedCase[] {
  const r = rng(seed);
  // a seeded shuffle of the names, then one pass per class picking the names that class applies to
  const order = names.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const out: PerturbedCase[] = [];
  const seen = new Set<string>();
  for (const cls of PERTURB_CLASSES) {
    let n = 0;
    for (const idx of order) {
      if (n >= perClass) break;
      const ln = names[idx]!;
      const upper = ln.name.toUpperCase().replace(/\s+/g, ' ').trim();
      if (!/^[A-Z0-9 ,.'&-]+$/.test(upper)) continue; // Latin-script names only
      const q = apply(cls, ln.schema, upper, r);
      if (q === undefined || q === upper) continue;
      const key = `${cls}|${q}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...ln, cls, query: q });
      n++;
    }
  }
  return out;
}

function apply(cls: PerturbClass, schema: string, name: string, r: () => number): string | undefined {
  const ws = words(name.replace(/,/g, ' '));
  const org = ORG_SCHEMAS.has(schema);
  switch (cls) {
    case 'form_typo': {
      if (!org) return undefined;
      const at = ws.map((w, i) => (FORM_WORDS.has(w) ? i : -1)).filter((i) => i >= 0);
      if (at.length === 0 || ws.length < 2) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      ws[i] = typo(ws[i]!, r);
      return ws.join(' ');
    }
    case 'short_transposed': {
      // a single-token name of 5–8 letters: two adjacent letters swapped or one doubled
      if (ws.length !== 1 || !/^[A-Z]{5,8}$/.test(ws[0]!)) return undefined;
      return typo(ws[0]!, r, 2);
    }
    case 'form_variant': {
      if (!org) return undefined;
      const plain = ws.join(' ');
      const hits = FORM_REWRITES.filter(([re]) => re.test(plain));
      if (hits.length === 0) return undefined;
      const [re, rep] = hits[Math.floor(r() * hits.length)]!;
      const q = plain.replace(re, rep).trim();
      return words(q).length >= 1 && q !== plain ? q : undefined;
    }
    case 'reordered': {
      if (ws.length < 2 || ws.length > 4 || schema !== 'Person') return undefined;
      // the last word first (family name first or last), or two neighbours swapped
      if (r() < 0.5) return [ws[ws.length - 1]!, ...ws.slice(0, -1)].join(' ');
      const i = Math.floor(r() * (ws.length - 1));
      [ws[i], ws[i + 1]] = [ws[i + 1]!, ws[i]!];
      return ws.join(' ');
    }
    case 'particle_joined': {
      if (schema !== 'Person') return undefined;
      const at = ws.map((w, i) => (PARTICLES.has(w) && i + 1 < ws.length ? i : -1)).filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      ws.splice(i, 2, ws[i]! + ws[i + 1]!);
      return ws.join(' ');
    }
    case 'name_typo': {
      // one typo in a name word of 6+ letters of a multi-word name
      if (ws.length < 2) return undefined;
      const at = ws.map((w, i) => (w.length >= 6 && !FORM_WORDS.has(w) ? i : -1)).filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      ws[i] = typo(ws[i]!, r);
      return ws.join(' ');
    }
  }
}
