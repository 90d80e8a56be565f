import type { DocumentData } from '../../../identity/document/index.js';
import type { SubCheckResult } from '../sub-checks.js';

/** Fewer letters than this on a front's text: it was not read, and nothing is verified. */
const MIN_FRONT_LETTERS = 20;

/** Levenshtein distance, stopping early beyond `max`. */
function within(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return (prev[b.length] ?? max + 1) <= max;
}

/** The ways a front prints a date, digits only: MM/DD/YYYY (US), DD/MM/YYYY, YYYY-MM-DD. */
const dateForms = (iso: string) => {
  const [y, m, d] = iso.split('-');
  return [`${m}${d}${y}`, `${d}${m}${y}`, `${y}${m}${d}`];
};

/**
 * A card's printed front against the data read from its back (barcode or MRZ): the surname (one OCR slip allowed
 * in names of five letters or more) and the date of birth must be printed on it. Both found → passed; neither →
 * failed (the front shows another holder: document_data_mismatch); one, or a front that could not be read →
 * null, labelled unverified (never counted as a confirmation).
 */
export function frontMatches(text: string | null, d: DocumentData): SubCheckResult {
  const upper = (text ?? '').toUpperCase();
  const letters = upper.replace(/[^A-Z]/g, '').length;
  if (letters < MIN_FRONT_LETTERS) return { passed: null, value: { read: false, unverified: true } };
  // a digit inside a word is read as the letter it is confused with (ERIKSS0N)
  const words = upper
    .split(/[^A-Z0-9]+/)
    .filter((w) => w.length >= 2 && /[A-Z]/.test(w))
    .map((w) => w.replace(/[0158]/g, (c) => ({ '0': 'O', '1': 'I', '5': 'S', '8': 'B' })[c] ?? c));
  const surnameParts = d.surname
    .toUpperCase()
    .split(/[^A-Z]+/)
    .filter(Boolean);
  const surname =
    surnameParts.length > 0 &&
    surnameParts.every((p) => words.some((w) => w === p || (p.length >= 5 && within(w, p, 1))));
  const digits = upper.replace(/[^0-9]/g, '');
  const birth = !!d.birth_date && dateForms(d.birth_date).some((f) => digits.includes(f));
  const passed = surname && birth ? true : !surname && !birth ? false : null;
  return {
    passed,
    value: { read: true, surname_found: surname, birth_date_found: birth, unverified: passed !== true },
  };
}
