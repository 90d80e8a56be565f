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
  // issue 30: variants found in banks' customer files that the classes above do not make
  'form_spaced',
  'hyphen',
  'particle_glued',
  'form_inside',
  'company_typos',
  'short_company_sub',
  'middle_dropped',
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

/** A legal form at the end of a company name that clerks write without its dots, letter by letter ([pattern,
 * the letters]): `S.A. DE C.V.` → `S A DE C V`, `SRL` → `S R L`. */
const SPACED_FORMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/,? S\.? ?A\.?,? DE C\.? ?V\.?$/, 'S A DE C V'],
  [/,? SA DE CV$/, 'S A DE C V'],
  [/,? S\.? ?DE R\.? ?L\.?( DE C\.? ?V\.?)?$/, 'S DE R L DE C V'],
  [/,? S\.? ?R\.? ?L\.?$/, 'S R L'],
  [/,? S\.? ?A\.? ?L\.?$/, 'S A L'],
  [/,? S\.? ?A\.? ?R\.? ?L\.?$/, 'S A R L'],
  [/,? S\.? ?P\.? ?A\.?$/, 'S P A'],
  [/,? L\.? ?L\.? ?C\.?$/, 'L L C'],
  [/,? S\.? ?A\.?$/, 'S A'],
  [/,? C\.? ?A\.?$/, 'C A'],
  [/,? B\.? ?V\.?$/, 'B V'],
];

/** Legal-form words and common company words abbreviated or expanded anywhere in a name. */
const INSIDE_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bLIMITED LIABILITY COMPANY\b/, 'LTD LIABILITY COMPANY'],
  [/\bLIMITED LIABILITY COMPANY\b/, 'LIMITED LIABILITY CO'],
  [/\bOPEN JOINT STOCK COMPANY\b/, 'OPEN JSC'],
  [/\bCLOSED JOINT STOCK COMPANY\b/, 'CLOSED JSC'],
  [/\bPUBLIC JOINT STOCK COMPANY\b/, 'PUBLIC JSC'],
  [/\bJOINT STOCK COMPANY\b/, 'JOINT STOCK CO'],
  [/\bJOINT STOCK COMPANY\b/, 'JSC'],
  [/\bJSC\b/, 'JOINT STOCK COMPANY'],
  [/\bOJSC\b/, 'OPEN JSC'],
  [/\bCOMPANY\b/, 'CO'],
  [/\bCO\b/, 'COMPANY'],
  [/\bLIMITED\b/, 'LTD'],
  [/\bLTD\b/, 'LIMITED'],
  [/\bCORPORATION\b/, 'CORP'],
  [/\bINTERNATIONAL\b/, 'INTL'],
  [/\bINTL\b/, 'INTERNATIONAL'],
  [/\bMANUFACTURING\b/, 'MFG'],
  [/\bBROTHERS\b/, 'BROS'],
  [/\bINDUSTRIES\b/, 'INDS'],
  [/\bINDUSTRIAL\b/, 'INDL'],
  [/\bENGINEERING\b/, 'ENGG'],
  [/\bDEVELOPMENT\b/, 'DEVT'],
  [/\bTECHNOLOGY\b/, 'TECH'],
  [/\bTECHNOLOGIES\b/, 'TECH'],
  [/\bASSOCIATION\b/, 'ASSN'],
  [/\bDEPARTMENT\b/, 'DEPT'],
  [/\bNATIONAL\b/, 'NATL'],
  [/\bGOVERNMENT\b/, 'GOVT'],
  [/\bSERVICES\b/, 'SVCS'],
  [/\bHOLDINGS?\b/, 'HLDGS'],
];

const DOTTED = /[.,]/g;

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
    case 'form_spaced': {
      // the legal form at the end written without dots, letter by letter; the rest as written
      if (!org) return undefined;
      const hits = SPACED_FORMS.filter(([re]) => re.test(name));
      if (hits.length === 0) return undefined;
      const [re, spaced] = hits[0]!;
      const rest = name.replace(re, '').replace(DOTTED, ' ').trim();
      return words(rest).length >= 1 ? `${words(rest).join(' ')} ${spaced}` : undefined;
    }
    case 'hyphen': {
      // a hyphen written as a space or left out (the words joined), or a space written as a hyphen
      if (ws.length < 2) return undefined;
      const hy = ws.map((w, i) => (/^[A-Z0-9]+-[A-Z0-9]+$/.test(w) ? i : -1)).filter((i) => i >= 0);
      if (hy.length > 0 && r() < 0.6) {
        const i = hy[Math.floor(r() * hy.length)]!;
        ws[i] = ws[i]!.replace('-', r() < 0.5 ? '' : ' ');
        return ws.join(' ');
      }
      const i = Math.floor(r() * (ws.length - 1));
      ws.splice(i, 2, ws[i]! + (r() < 0.5 ? '-' : '') + ws[i + 1]!);
      return ws.join(' ');
    }
    case 'particle_glued': {
      // the given names first, as customer files write them (SURNAME, Given → Given SURNAME), and a particle
      // glued to the next word the way it is typed: BIN MANSOR → BINmansor
      if (schema !== 'Person') return undefined;
      const parts = name.split(',').map((x) => x.trim());
      const ordered = parts.length === 2 ? words(`${parts[1]} ${parts[0]}`) : ws;
      const at = ordered
        .map((w, i) => (PARTICLES.has(w) && i + 1 < ordered.length && ordered[i + 1]!.length >= 3 ? i : -1))
        .filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      const next = ordered[i + 1]!;
      const glued = r() < 0.5 ? ordered[i]! + next.toLowerCase() : ordered[i]! + next;
      ordered.splice(i, 2, glued);
      return ordered.join(' ');
    }
    case 'form_inside': {
      // a legal form or common company word abbreviated or expanded anywhere, and one typo in another word of a
      // long company name
      if (!org || ws.length < 4) return undefined;
      const plain = ws.join(' ');
      const hits = INSIDE_REWRITES.filter(([re]) => re.test(plain));
      if (hits.length === 0) return undefined;
      const [re, rep] = hits[Math.floor(r() * hits.length)]!;
      const out = words(plain.replace(re, rep));
      const changed = new Set(words(rep));
      const at = out
        .map((w, i) => (w.length >= 5 && !changed.has(w) && !FORM_WORDS.has(w) ? i : -1))
        .filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      out[i] = typo(out[i]!, r);
      return out.join(' ');
    }
    case 'company_typos': {
      // token-level typos in a long company name: one in a word of 4+ letters per three words
      if (!org || ws.length < 3) return undefined;
      const at = ws.map((w, i) => (w.length >= 4 && !FORM_WORDS.has(w) ? i : -1)).filter((i) => i >= 0);
      const n = Math.min(at.length, Math.floor(ws.length / 3));
      if (n === 0) return undefined;
      for (let k = 0; k < n; k++) {
        const j = Math.floor(r() * at.length);
        const i = at.splice(j, 1)[0]!;
        ws[i] = typo(ws[i]!, r);
      }
      return ws.join(' ');
    }
    case 'short_company_sub': {
      // one letter changed (not the first) in a company name of one or two words of 4+ letters
      if (!org) return undefined;
      const nameWords = ws.filter(
        (w) => !FORM_WORDS.has(w) && !/^(LLC|LTD|JSC|SA|AG|INC|CO|CORP|PLC|OOO)\.?$/.test(w),
      );
      if (nameWords.length < 1 || nameWords.length > 2) return undefined;
      const at = ws
        .map((w, i) => (/^[A-Z]{5,}$/.test(w) && nameWords.includes(w) ? i : -1))
        .filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = at[Math.floor(r() * at.length)]!;
      ws[i] = substitute(ws[i]!, r);
      return ws.join(' ');
    }
    case 'middle_dropped': {
      // a middle name left out of a four-part person name
      if (schema !== 'Person') return undefined;
      const parts = name.split(',').map((x) => x.trim());
      const ordered = parts.length === 2 ? words(`${parts[1]} ${parts[0]}`) : ws;
      if (ordered.length !== 4) return undefined;
      const i = 1 + Math.floor(r() * 2);
      if (PARTICLES.has(ordered[i]!)) return undefined;
      ordered.splice(i, 1);
      return ordered.join(' ');
    }
  }
}

/** One letter (not the first) replaced by another letter. */
function substitute(word: string, r: () => number): string {
  const i = 1 + Math.floor(r() * (word.length - 1));
  let c = LETTERS[Math.floor(r() * LETTERS.length)]!;
  if (c === word[i]) c = c === 'A' ? 'E' : 'A';
  return word.slice(0, i) + c + word.slice(i + 1);
}
