// Unicode-range script detector for names → ISO 15924 code. Counts letters per script and returns the
// dominant one; names mixing Han with kana are Japanese ('Jpan'), kana alone is 'Kana'.

interface Range {
  from: number;
  to: number;
  script: string;
}

// Ordered by code point; binary searched.
const RANGES: readonly Range[] = [
  { from: 0x0041, to: 0x005a, script: 'Latn' },
  { from: 0x0061, to: 0x007a, script: 'Latn' },
  { from: 0x00c0, to: 0x024f, script: 'Latn' },
  { from: 0x0250, to: 0x02af, script: 'Latn' },
  { from: 0x0370, to: 0x03ff, script: 'Grek' },
  { from: 0x0400, to: 0x052f, script: 'Cyrl' },
  { from: 0x0530, to: 0x058f, script: 'Armn' },
  { from: 0x0590, to: 0x05ff, script: 'Hebr' },
  { from: 0x0600, to: 0x06ff, script: 'Arab' },
  { from: 0x0700, to: 0x074f, script: 'Syrc' },
  { from: 0x0750, to: 0x077f, script: 'Arab' },
  { from: 0x0780, to: 0x07bf, script: 'Thaa' },
  { from: 0x08a0, to: 0x08ff, script: 'Arab' },
  { from: 0x0900, to: 0x097f, script: 'Deva' },
  { from: 0x0980, to: 0x09ff, script: 'Beng' },
  { from: 0x0a00, to: 0x0a7f, script: 'Guru' },
  { from: 0x0a80, to: 0x0aff, script: 'Gujr' },
  { from: 0x0b00, to: 0x0b7f, script: 'Orya' },
  { from: 0x0b80, to: 0x0bff, script: 'Taml' },
  { from: 0x0c00, to: 0x0c7f, script: 'Telu' },
  { from: 0x0c80, to: 0x0cff, script: 'Knda' },
  { from: 0x0d00, to: 0x0d7f, script: 'Mlym' },
  { from: 0x0d80, to: 0x0dff, script: 'Sinh' },
  { from: 0x0e00, to: 0x0e7f, script: 'Thai' },
  { from: 0x0e80, to: 0x0eff, script: 'Laoo' },
  { from: 0x0f00, to: 0x0fff, script: 'Tibt' },
  { from: 0x1000, to: 0x109f, script: 'Mymr' },
  { from: 0x10a0, to: 0x10ff, script: 'Geor' },
  { from: 0x1100, to: 0x11ff, script: 'Hang' },
  { from: 0x1200, to: 0x139f, script: 'Ethi' },
  { from: 0x1780, to: 0x17ff, script: 'Khmr' },
  { from: 0x1800, to: 0x18af, script: 'Mong' },
  { from: 0x1c80, to: 0x1c8f, script: 'Cyrl' },
  { from: 0x1c90, to: 0x1cbf, script: 'Geor' },
  { from: 0x1e00, to: 0x1eff, script: 'Latn' },
  { from: 0x1f00, to: 0x1fff, script: 'Grek' },
  { from: 0x2c00, to: 0x2c5f, script: 'Glag' },
  { from: 0x2c60, to: 0x2c7f, script: 'Latn' },
  { from: 0x2d00, to: 0x2d2f, script: 'Geor' },
  { from: 0x2de0, to: 0x2dff, script: 'Cyrl' },
  { from: 0x2e80, to: 0x2fdf, script: 'Hani' },
  { from: 0x3005, to: 0x3007, script: 'Hani' },
  { from: 0x3040, to: 0x309f, script: 'Hira' },
  { from: 0x30a0, to: 0x30ff, script: 'Kana' },
  { from: 0x3130, to: 0x318f, script: 'Hang' },
  { from: 0x31f0, to: 0x31ff, script: 'Kana' },
  { from: 0x3400, to: 0x4dbf, script: 'Hani' },
  { from: 0x4e00, to: 0x9fff, script: 'Hani' },
  { from: 0xa640, to: 0xa69f, script: 'Cyrl' },
  { from: 0xa720, to: 0xa7ff, script: 'Latn' },
  { from: 0xac00, to: 0xd7af, script: 'Hang' },
  { from: 0xf900, to: 0xfaff, script: 'Hani' },
  { from: 0xfb00, to: 0xfb06, script: 'Latn' },
  { from: 0xfb1d, to: 0xfb4f, script: 'Hebr' },
  { from: 0xfb50, to: 0xfdff, script: 'Arab' },
  { from: 0xfe70, to: 0xfeff, script: 'Arab' },
  { from: 0xff21, to: 0xff3a, script: 'Latn' },
  { from: 0xff41, to: 0xff5a, script: 'Latn' },
  { from: 0xff66, to: 0xff9f, script: 'Kana' },
  { from: 0xffa0, to: 0xffdc, script: 'Hang' },
  { from: 0x20000, to: 0x3134f, script: 'Hani' },
];

function scriptOf(cp: number): string | undefined {
  let lo = 0;
  let hi = RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = RANGES[mid]!;
    if (cp < r.from) hi = mid - 1;
    else if (cp > r.to) lo = mid + 1;
    else return r.script;
  }
  return undefined;
}

const NON_ASCII = /[^ -~\t\r\n]/; // anything beyond printable ASCII
const ASCII_LETTER = /[A-Za-z]/;

/** ISO 15924 code of the dominant script of the letters in `value`; undefined if it has no letters we know. */
export function detectScript(value: string): string | undefined {
  // Most list names are plain ASCII.
  if (!NON_ASCII.test(value)) return ASCII_LETTER.test(value) ? 'Latn' : undefined;
  const counts = new Map<string, number>();
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x41) continue;
    const s = scriptOf(cp);
    if (s !== undefined) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const kana = (counts.get('Hira') ?? 0) + (counts.get('Kana') ?? 0);
  if (kana > 0) {
    // Japanese: kanji mixed with kana, or kana of both kinds.
    if (counts.has('Hani') || (counts.has('Hira') && counts.has('Kana'))) return 'Jpan';
    return counts.has('Hira') ? 'Hira' : 'Kana';
  }
  if (counts.has('Hang') && counts.has('Hani')) return 'Kore';
  let best: string | undefined;
  let bestN = 0;
  for (const [s, n] of counts) {
    // Non-Latin wins ties and small Latin admixtures (e.g. "ООО ABC" is still Cyrillic when Cyrillic dominates).
    if (n > bestN || (n === bestN && best === 'Latn')) {
      best = s;
      bestN = n;
    }
  }
  return best;
}
