// One normalisation step: a name written in Burmese (မင်းအောင်လှိုင် = Min Aung Hlaing) read syllable by syllable
// the way Burmese names are romanised in lists. Burmese writes a name without spaces, one syllable per name part;
// a syllable is an initial consonant (with medials ျ ြ y, ွ w, ှ h), a vowel sign (none: the inherent a), and
// possibly a final consonant killed by ် (asat) whose sound depends on the vowel: -င် is in, ိန် ein, ောင် aung,
// ိုင် aing, ွန် un (the rhymes of the conventional romanisation). any-ascii reads the letters one by one
// (minanghlin), which drops the vowels the rhyme carries and joins the parts.

/** A run of Burmese letters and signs (the Myanmar block's Burmese part, without digits and punctuation). */
export const MYANMAR_RE = /[\u1000-\u103F]+/g;

/** Initial consonants and independent vowels. ဆ is written s in names (Swe, San), ရ as y (Ye, Yan). */
const INITIAL: Readonly<Record<string, string>> = {
  က: 'k',
  ခ: 'kh',
  ဂ: 'g',
  ဃ: 'g',
  င: 'ng',
  စ: 's',
  ဆ: 's',
  ဇ: 'z',
  ဈ: 'z',
  ည: 'ny',
  ဉ: 'ny',
  ဋ: 't',
  ဌ: 'ht',
  ဍ: 'd',
  ဎ: 'd',
  ဏ: 'n',
  တ: 't',
  ထ: 'ht',
  ဒ: 'd',
  ဓ: 'd',
  န: 'n',
  ပ: 'p',
  ဖ: 'ph',
  ဗ: 'b',
  ဘ: 'b',
  မ: 'm',
  ယ: 'y',
  ရ: 'y',
  လ: 'l',
  ဝ: 'w',
  သ: 'th',
  ဟ: 'h',
  ဠ: 'l',
  အ: '',
};
const INDEPENDENT_VOWEL: Readonly<Record<string, string>> = {
  ဣ: 'i',
  ဤ: 'i',
  ဥ: 'u',
  ဦ: 'oo',
  ဧ: 'e',
  ဩ: 'aw',
  ဪ: 'aw',
};
/** Final consonants (killed by ် or stacked with ္) grouped by the rhyme they make. */
const FINAL: Readonly<Record<string, string>> = {
  က: 'k',
  င: 'ng',
  စ: 'c',
  ည: 'ny',
  ဉ: 'ny',
  တ: 't',
  ဋ: 't',
  န: 'n',
  ဏ: 'n',
  ပ: 'p',
  မ: 'm',
  ယ: 'y',
};

const ASAT = '\u103A';
const DOT_BELOW = '\u1037';
const VIRAMA = '\u1039';
const MEDIAL_Y = new Set(['\u103B', '\u103C']);
const MEDIAL_W = '\u103D';
const MEDIAL_H = '\u103E';
const ANUSVARA = '\u1036';

/** Rhymes: vowel (inherent '', a, i, u, e, ai, aw = ေ+ာ, o = ိ+ု) × final class → romanisation. */
const RHYME: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '': { '': 'a', k: 'et', ng: 'in', c: 'it', ny: 'i', t: 'at', n: 'an', p: 'at', m: 'an', y: 'e' },
  i: { '': 'i', n: 'ein', m: 'ein', t: 'eik', p: 'eik', k: 'eik' },
  u: { '': 'u', n: 'on', m: 'on', t: 'ok', p: 'ok' },
  aw: { '': 'aw', ng: 'aung', k: 'auk' },
  o: { '': 'o', ng: 'aing', k: 'aik' },
  a: { '': 'a' },
  e: { '': 'e' },
  ai: { '': 'e' },
};
/** With medial w and no vowel sign, a closed syllable's vowel is u (ထွန်း Tun, ကျွတ် kyut). */
const RHYME_W: Readonly<Record<string, string>> = { n: 'un', m: 'un', t: 'ut', p: 'ut', k: 'wet', ng: 'win' };

interface Syllable {
  initial: string;
  medialY: boolean;
  medialW: boolean;
  medialH: boolean;
  vowel: string;
  final: string;
  /** an independent vowel letter (ဦ, ဥ) read as written */
  indep?: string;
  /** creaky tone (့): a final -င့် is written int in names (မြင့် Myint, တင့် Tint) */
  creaky: boolean;
  /** high tone (း): an open ို is written oe in names (စိုး Soe, မိုး Moe), o after a y-medial (မျိုး Myo) */
  high: boolean;
}

function syllables(run: string): Syllable[] {
  const chars = [...run];
  const out: Syllable[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    // the creaky-tone dot may be stored between a final consonant and its asat (င့်)
    const after = chars[i + 1] === DOT_BELOW ? chars[i + 2] : chars[i + 1];
    const cur = out[out.length - 1];
    const base = {
      medialY: false,
      medialW: false,
      medialH: false,
      vowel: '',
      final: '',
      creaky: false,
      high: false,
    };
    if (INITIAL[ch] !== undefined && after !== ASAT && after !== VIRAMA) {
      out.push({ ...base, initial: ch });
      continue;
    }
    if (INDEPENDENT_VOWEL[ch] !== undefined) {
      out.push({ ...base, initial: 'အ', indep: ch });
      continue;
    }
    if (cur === undefined) continue;
    if (INITIAL[ch] !== undefined) {
      // a final consonant (followed by asat or stacked under the next one)
      cur.final = FINAL[ch] ?? 'n';
      continue;
    }
    if (ch === DOT_BELOW) cur.creaky = true;
    else if (ch === '\u1038') cur.high = true;
    if (MEDIAL_Y.has(ch)) cur.medialY = true;
    else if (ch === MEDIAL_W) cur.medialW = true;
    else if (ch === MEDIAL_H) cur.medialH = true;
    else if (ch === ANUSVARA) cur.final = 'm';
    else if (ch === '\u102B' || ch === '\u102C') cur.vowel = cur.vowel === 'e' ? 'aw' : 'a';
    else if (ch === '\u102D' || ch === '\u102E') cur.vowel = 'i';
    else if (ch === '\u102F' || ch === '\u1030') cur.vowel = cur.vowel === 'i' ? 'o' : 'u';
    else if (ch === '\u1031') cur.vowel = 'e';
    else if (ch === '\u1032') cur.vowel = 'ai';
    // tone marks (့ း) and anything else: no sound of their own
  }
  return out;
}

function onsetOf(s: Syllable): string {
  let c = INITIAL[s.initial] ?? '';
  if (s.medialY) c = c === 'k' ? 'ky' : c === 'kh' ? 'ch' : c === 'g' ? 'gy' : `${c}y`;
  if (s.medialH) c = s.initial === 'ရ' || s.initial === 'ယ' ? 'sh' : `h${c}`;
  return c;
}

function syllableReading(s: Syllable): string {
  if (s.indep !== undefined) return INDEPENDENT_VOWEL[s.indep]!;
  const onset = onsetOf(s);
  const inherent = RHYME['']!;
  if (s.medialW && s.vowel === '' && s.final !== '')
    return onset + (RHYME_W[s.final] ?? `w${inherent[s.final] ?? 'a'}`);
  const w = s.medialW ? 'w' : '';
  let rhyme = RHYME[s.vowel]?.[s.final] ?? (RHYME[s.vowel]?.[''] ?? 'a') + s.final.slice(0, 1);
  if (s.creaky && s.vowel === '' && s.final === 'ng') rhyme = 'int';
  if (s.high && s.vowel === 'o' && s.final === '' && !s.medialY) rhyme = 'oe';
  return onset + w + rhyme;
}

/** A run of Burmese letters as its syllables' romanisations (မင်းအောင်လှိုင် → min aung hlaing). */
export function burmeseSyllables(run: string): string[] {
  return syllables(run)
    .map(syllableReading)
    .filter((x) => x.length > 0);
}

/** The words of a Burmese name read as name parts: a native name's syllables are its parts (one token each: Min
 * Aung Hlaing); a name of several words one of which has 5+ syllables is a transcribed foreign name (ဗလာဒီမီယာ
 * ပူတင်), each word one token. */
export function burmeseWords(runs: readonly string[]): string[] {
  const syl = runs.map(burmeseSyllables);
  const foreign = runs.length > 1 && syl.some((x) => x.length >= 5);
  return syl.map((x) => (foreign ? x.join('') : x.join(' ')));
}
