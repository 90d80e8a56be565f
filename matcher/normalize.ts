// Name normalisation shared by index build and screening: both sides go through exactly the same steps so
// that aggressive folding (w→v, ou→u, …) only ever creates equalities, never asymmetries.
import anyAscii from 'any-ascii';
import { HONORIFICS, NAME_VARIANT_GROUPS } from './name-variants.js';

export type NameKind = 'person' | 'org' | 'vessel' | 'any';

export interface NormalizedName {
  /** folded, canonical tokens used for matching (legal forms, titles, stopwords removed), deduplicated */
  tokens: string[];
  /** canonical legal-form codes found at the edges of the name (llc, ltd, jsc, …) */
  legalForms: string[];
  /** written in a script that omits short vowels (Arabic, Hebrew, Thai …): compare consonant skeletons */
  abjad: boolean;
}

const ABJAD_RE = /[\u0590-\u08FF\u0E00-\u0E7F\uFB1D-\uFDFF\uFE70-\uFEFF]/;
const HAN_RE = /\p{Script=Han}+/gu;
const HANGUL_RE = /\p{Script=Hangul}+/gu;
const GREEK_RE = /\p{Script=Greek}+/gu;
const NON_ASCII_RE = /[^ -~\t\n\r]/;

// tokens repeat heavily across a list (and across queries): memoise the regex chain below
const foldCache = new Map<string, string>();
const FOLD_CACHE_MAX = 200_000;

/** Light phonetic fold of one lower-case ASCII token. Order matters: multi-letter rules first. */
export function foldToken(raw: string): string {
  const hit = foldCache.get(raw);
  if (hit !== undefined) return hit;
  const t = foldUncached(raw);
  if (foldCache.size >= FOLD_CACHE_MAX) foldCache.clear();
  foldCache.set(raw, t);
  return t;
}

function foldUncached(raw: string): string {
  let t = raw;
  if (t.length > 3) {
    // Slavic patronymics and surname endings written many ways: -ovich/-ovitch/-owitsch/-ovics/-owicz …
    t = t.replace(/([aeo])[vw][iy](?:tsch|tsj|tch|tj|tx|ch|cs|ci|cz|c|sh)$/, '$1vich');
    t = t.replace(/sk(?:iy|yy|ij|yi|ii|yj|y|i)$/, 'ski');
    t = t.replace(/off$/, 'ov').replace(/eff$/, 'ev');
  }
  t = t
    .replace(/tsch/g, 'ch')
    .replace(/tch/g, 'ch')
    .replace(/sch/g, 'sh')
    .replace(/dzh/g, 'j')
    .replace(/dj/g, 'j')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/kh/g, 'h')
    .replace(/gh/g, 'g')
    .replace(/th/g, 't')
    .replace(/ou/g, 'u')
    .replace(/oo/g, 'u')
    .replace(/w/g, 'v')
    .replace(/q/g, 'k')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c(?!h)/g, 'k')
    .replace(/x/g, 'ks');
  if (t.length > 1) t = t[0] + t.slice(1).replace(/y/g, 'i');
  t = t.replace(/([a-z])\1+/g, '$1');
  if (t.length > 3) t = t.replace(/([aeiou])h$/, '$1');
  return t;
}

/** Consonant skeleton with coarse classes (p/b/f/v, k/q/c/g, s/z): used for abjad-script comparison and
 * as a phonetic retrieval key. Input is a folded token. */
export function skeleton(folded: string): string {
  let out = '';
  let prev = '';
  for (let i = 0; i < folded.length; i++) {
    let c = folded[i]!;
    if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y' || c === 'w') continue;
    if (c === 'p' || c === 'f' || c === 'v') c = 'b';
    else if (c === 'q' || c === 'c' || c === 'g') c = 'k';
    else if (c === 'z') c = 's';
    if (c !== prev) out += c;
    prev = c;
  }
  return out;
}

// ---- variant table -------------------------------------------------------------------------------------

const VARIANTS = new Map<string, string>();
for (const group of NAME_VARIANT_GROUPS) {
  const canon = foldToken(group[0]!.replace(/ /g, ''));
  for (const v of group) {
    const f = foldToken(v.replace(/ /g, ''));
    if (!VARIANTS.has(f)) VARIANTS.set(f, canon);
  }
}

function canonicalToken(folded: string): string {
  const direct = VARIANTS.get(folded);
  if (direct !== undefined) return direct;
  // patronymic built on a variant stem: volodimirovich → vladimirovich
  const m = /^(.+?)([aeo]vich|ovna|evna)$/.exec(folded);
  if (m) {
    const stem = VARIANTS.get(m[1]!);
    if (stem !== undefined) return stem + m[2]!;
  }
  return folded;
}

// ---- legal forms ---------------------------------------------------------------------------------------

const LEGAL_FORMS: ReadonlyArray<readonly [string, string]> = [
  ['llc', 'llc'],
  ['l l c', 'llc'],
  ['limited liability company', 'llc'],
  ['limited liability co', 'llc'],
  ['ooo', 'llc'],
  ['obshchestvo s ogranichennoy otvetstvennostyu', 'llc'],
  ['obshchestvo s ogranichennoi otvetstvennostiu', 'llc'],
  ['tov', 'llc'],
  ['sp z oo', 'llc'],
  ['sp z o o', 'llc'],
  ['spzoo', 'llc'],
  ['srl', 'llc'],
  ['sarl', 'llc'],
  ['societatea cu raspundere limitata', 'llc'],
  ['societe a responsabilite limitee', 'llc'],
  ['gmbh', 'gmbh'],
  ['gesellschaft mit beschrankter haftung', 'gmbh'],
  ['gesellschaft mit beschraenkter haftung', 'gmbh'],
  ['mbh', 'gmbh'],
  ['ltda', 'ltd'],
  ['limitada', 'ltd'],
  ['ltd', 'ltd'],
  ['limited', 'ltd'],
  ['private limited', 'ltd'],
  ['pvt ltd', 'ltd'],
  ['pte ltd', 'ltd'],
  ['pty ltd', 'ltd'],
  ['pvt', 'ltd'],
  ['pte', 'ltd'],
  ['pty', 'ltd'],
  ['co ltd', 'ltd'],
  ['company limited', 'ltd'],
  ['jsc', 'jsc'],
  ['ojsc', 'jsc'],
  ['cjsc', 'jsc'],
  ['pjsc', 'jsc'],
  ['oao', 'jsc'],
  ['zao', 'jsc'],
  ['pao', 'jsc'],
  ['ao', 'jsc'],
  ['jstc', 'jsc'],
  ['joint stock company', 'jsc'],
  ['open joint stock company', 'jsc'],
  ['closed joint stock company', 'jsc'],
  ['public joint stock company', 'jsc'],
  ['joint stock co', 'jsc'],
  ['aktsionernoe obshchestvo', 'jsc'],
  ['publichnoe aktsionernoe obshchestvo', 'jsc'],
  ['otkrytoe aktsionernoe obshchestvo', 'jsc'],
  ['zakrytoe aktsionernoe obshchestvo', 'jsc'],
  ['ag', 'ag'],
  ['aktiengesellschaft', 'ag'],
  ['kgaa', 'ag'],
  ['se', 'ag'],
  ['sa', 'sa'],
  ['societe anonyme', 'sa'],
  ['sociedad anonima', 'sa'],
  ['sa de cv', 'sa'],
  ['sab de cv', 'sa'],
  ['sapi de cv', 'sa'],
  ['s de rl de cv', 'sa'],
  ['de cv', 'sa'],
  ['sas', 'sa'],
  ['spa', 'sa'],
  ['sl', 'sa'],
  ['plc', 'plc'],
  ['public limited company', 'plc'],
  ['inc', 'inc'],
  ['incorporated', 'inc'],
  ['corp', 'corp'],
  ['corporation', 'corp'],
  ['co', 'co'],
  ['company', 'co'],
  ['cia', 'co'],
  ['bv', 'bv'],
  ['nv', 'bv'],
  ['bvba', 'bv'],
  ['llp', 'llp'],
  ['lp', 'llp'],
  ['limited partnership', 'llp'],
  ['limited liability partnership', 'llp'],
  ['ab', 'ab'],
  ['as', 'as'],
  ['a s', 'as'],
  ['asa', 'as'],
  ['aps', 'as'],
  ['oy', 'oy'],
  ['oyj', 'oy'],
  ['kg', 'kg'],
  ['kft', 'kft'],
  ['zrt', 'kft'],
  ['doo', 'llc'],
  ['d o o', 'llc'],
  ['sro', 'llc'],
  ['ad', 'jsc'],
  ['eood', 'llc'],
  ['ood', 'llc'],
  ['pt', 'pt'],
  ['tbk', 'pt'],
  ['bhd', 'bhd'],
  ['sdn bhd', 'bhd'],
  ['berhad', 'bhd'],
  ['kk', 'kk'],
  ['kabushiki kaisha', 'kk'],
  ['na', 'na'],
  ['fzco', 'fze'],
  ['fze', 'fze'],
  ['fzc', 'fze'],
  ['fz llc', 'fze'],
  ['wll', 'llc'],
];
/** Short forms that are also plausible name tokens (Pol Pot, Kim Sa …): only stripped from person-like
 * names when at the end and when at least two other tokens remain. */
const AMBIGUOUS_FORMS = new Set([
  'ao',
  'ad',
  'ab',
  'as',
  'sa',
  'se',
  'sl',
  'kg',
  'pt',
  'na',
  'co',
  'oy',
  'kk',
]);

interface FormEntry {
  words: string[];
  code: string;
}
const FORMS_BY_FIRST = new Map<string, FormEntry[]>();
for (const [phrase, code] of LEGAL_FORMS) {
  const words = phrase.split(' ');
  const list = FORMS_BY_FIRST.get(words[0]!) ?? [];
  list.push({ words, code });
  FORMS_BY_FIRST.set(words[0]!, list);
}
for (const list of FORMS_BY_FIRST.values()) list.sort((a, b) => b.words.length - a.words.length);

/** Every legal-form code, for callers that want to recognise them. */
export const LEGAL_FORM_CODES: ReadonlySet<string> = new Set(LEGAL_FORMS.map((f) => f[1]));

const HONORIFIC_SET = new Set(HONORIFICS);
const DROP_WORDS = new Set(['the', 'of', 'and', 'und', 'et']);
const VESSEL_PREFIXES = new Set(['mv', 'mt', 'ms', 'ss', 'fv', 'mts', 'my', 'sy', 'rv']);

// ---- numbers -------------------------------------------------------------------------------------------

const UNITS = new Map<string, number>(
  Object.entries({
    zero: 0,
    one: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    sixteen: 16,
    seventeen: 17,
    eighteen: 18,
    nineteen: 19,
  }),
);
const TENS = new Map<string, number>(
  Object.entries({
    twenty: 20,
    thirty: 30,
    forty: 40,
    fourty: 40,
    fifty: 50,
    sixty: 60,
    seventy: 70,
    eighty: 80,
    ninety: 90,
  }),
);

function numberWords(tokens: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const tens = TENS.get(t);
    if (tens !== undefined) {
      const next = tokens[i + 1];
      const unit =
        next === undefined
          ? undefined
          : (UNITS.get(next) ?? (/^[1-9]$/.test(next) ? Number(next) : undefined));
      if (unit !== undefined && unit > 0 && unit < 10) {
        out.push(String(tens + unit));
        i++;
      } else out.push(String(tens));
      continue;
    }
    const unit = UNITS.get(t);
    out.push(unit !== undefined && t !== 'one' ? String(unit) : t);
  }
  return out;
}

// ---- transliteration -----------------------------------------------------------------------------------

function splitSyllables(romanised: string): string[] {
  return romanised.match(/[A-Z][a-z]*/g) ?? [romanised];
}

/** Han and Hangul romanise to CamelCase syllables; give them name-like token boundaries. */
function transliterate(s: string): string {
  let out = s;
  if (NON_ASCII_RE.test(out)) {
    out = out.replace(HAN_RE, (run) => {
      const syl = splitSyllables(anyAscii(run));
      // 2–3 characters: family name + given name; longer runs are usually transcribed foreign names
      if (syl.length >= 2 && syl.length <= 3) return ` ${syl[0]} ${syl.slice(1).join('')} `;
      return ` ${syl.join('')} `;
    });
    out = out.replace(HANGUL_RE, (run) => {
      const syl = splitSyllables(anyAscii(run)).map((x) =>
        x.toLowerCase().replace(/eo/g, 'o').replace(/eu/g, 'u'),
      );
      return ` ${syl.join(' ')} `;
    });
    // Modern Greek digraphs: ντ = d, μπ = b, ου = u (any-ascii transliterates letter by letter)
    out = out.replace(GREEK_RE, (run) =>
      run
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .replace(/ντ/g, 'd')
        .replace(/μπ/g, 'b')
        .replace(/ου/g, 'u'),
    );
    out = anyAscii(out);
  }
  return out;
}

// letters and digits mixed in one token (Ig0r Sech1n): read the digits as the letters they imitate
const LEET_RE = /^(?=.*[a-z])(?=.*[0-9])[a-z0-9]+$/;
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '9': 'g',
  '8': 'b',
};
function unLeet(t: string): string {
  return /^[0-9]+(st|nd|rd|th)$/.test(t) ? t : t.replace(/[0-9]/g, (d) => LEET[d] ?? d);
}

// ---- main entry ----------------------------------------------------------------------------------------

interface Item {
  tok: string;
  form?: string;
}

export function normalizeName(raw: string, kind: NameKind = 'any'): NormalizedName {
  let s = raw.normalize('NFKC');
  const abjad = ABJAD_RE.test(s);
  s = transliterate(s).toLowerCase();
  // dotted initialisms (A.B.C., L.L.C., G.m.b.H., U.S.) become one token; spaced initials (V. V.) stay apart
  s = s.replace(/(?<![a-z0-9])((?:[a-z]\.)+[a-z])\.?(?![a-z0-9])/g, (m) => m.replace(/\./g, ''));
  s = s.replace(/['’]s\b/g, '').replace(/['’‘`´ʼʻ"]/g, '');
  s = s.replace(/&/g, ' and ');
  s = s.replace(/[^a-z0-9]+/g, ' ').trim();
  let words = s.length ? s.split(' ') : [];
  words = numberWords(words);

  // legal forms: replace phrases by markers, then peel markers and connectives off both ends
  const items: Item[] = [];
  for (let i = 0; i < words.length; i++) {
    const cands = FORMS_BY_FIRST.get(words[i]!);
    let matched: FormEntry | undefined;
    if (cands) {
      for (const c of cands) {
        let ok = i + c.words.length <= words.length;
        for (let k = 0; ok && k < c.words.length; k++) if (words[i + k] !== c.words[k]) ok = false;
        if (ok) {
          matched = c;
          break;
        }
      }
    }
    if (matched) {
      items.push({ tok: matched.words.join(''), form: matched.code });
      i += matched.words.length - 1;
    } else items.push({ tok: words[i]! });
  }
  const personish = kind === 'person' || kind === 'any';
  const legalForms: string[] = [];
  const isEdgeForm = (it: Item, atEnd: boolean, remaining: number): boolean => {
    if (it.form === undefined) return false;
    if (kind === 'org' || kind === 'vessel') return remaining >= 1;
    if (AMBIGUOUS_FORMS.has(it.tok)) return atEnd && remaining >= 2;
    return remaining >= 1;
  };
  let lo = 0;
  let hi = items.length;
  for (let changed = true; changed && hi > lo; ) {
    changed = false;
    const last = items[hi - 1]!;
    if (isEdgeForm(last, true, hi - lo - 1)) {
      legalForms.push(last.form!);
      hi--;
      changed = true;
    } else if (hi - lo > 1 && DROP_WORDS.has(last.tok)) {
      hi--;
      changed = true;
    }
    const first = items[lo];
    if (first && hi > lo && isEdgeForm(first, false, hi - lo - 1)) {
      legalForms.push(first.form!);
      lo++;
      changed = true;
    }
  }
  let toks = items.slice(lo, hi).map((it) => (it.form !== undefined ? it.form : it.tok));
  if (personish) {
    const kept = toks.filter((t) => !HONORIFIC_SET.has(t));
    if (kept.length > 0) toks = kept;
  }
  if (kind === 'vessel' && toks.length > 1 && VESSEL_PREFIXES.has(toks[0]!)) toks = toks.slice(1);
  const kept = toks.filter((t) => !DROP_WORDS.has(t));
  if (kept.length > 0) toks = kept;

  const tokens: string[] = [];
  for (const t of toks) {
    const c = canonicalToken(foldToken(LEET_RE.test(t) ? unLeet(t) : t));
    if (c.length > 0) tokens.push(c);
  }
  return { tokens, legalForms, abjad };
}

/** Lower-case, space-separated rendering of the normalised tokens (for logs and the CLI). */
export function normalizedText(raw: string, kind: NameKind = 'any'): string {
  return normalizeName(raw, kind).tokens.join(' ');
}
