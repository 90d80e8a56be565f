// What OCR engines read for what, on MRZ fonts, as data: letters for digits and digits for letters by field
// type, the letters the legacy engine confuses with each other, and the swaps tried when a check digit fails.

export const TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  T: '1',
  Z: '2',
  S: '5',
  B: '8',
  G: '6',
  A: '4',
};
/** Letters the legacy engine confuses with each other on MRZ fonts (measured on the PassportEye set: TWN read
 * THN, MAC read HAC, KOWALSKA read KONALSKA, CHONG read CRONG). */
export const LETTER_CONFUSIONS: Record<string, string[]> = {
  W: ['N', 'H', 'M'],
  N: ['W', 'H', 'M'],
  H: ['W', 'N', 'M', 'R'],
  M: ['W', 'N', 'H'],
  R: ['H'],
  O: ['D', 'Q', 'U'],
  D: ['O'],
  Q: ['O'],
  U: ['O', 'V'],
  V: ['U'],
  I: ['L', 'T'],
  L: ['I'],
  T: ['I'],
  E: ['F'],
  F: ['E'],
  C: ['G'],
  G: ['C'],
};

/** Letters a digit read in a letter field may stand for: the repair by field type takes the first (TO_LETTER); a
 * country code that is then no ICAO code may take another (AU8 for AUS on a photographed page: 8 read for S). */
export const DIGIT_LETTERS: Record<string, string[]> = {
  '0': ['O', 'D', 'Q'],
  '1': ['I', 'L', 'T'],
  '2': ['Z'],
  '4': ['A'],
  '5': ['S'],
  '6': ['G'],
  '8': ['B', 'S'],
};

/** The letter a digit in a letter field is read as: the first of its DIGIT_LETTERS. */
export const TO_LETTER: Record<string, string> = Object.fromEntries(
  Object.entries(DIGIT_LETTERS).map(([digit, letters]) => [digit, letters[0] as string]),
);
/** Alternatives tried in alphanumeric fields when their check digit fails. */
export const SWAPS: Record<string, string[]> = {
  O: ['0'],
  Q: ['0'],
  D: ['0'],
  '0': ['O', 'D'],
  I: ['1'],
  L: ['1'],
  '1': ['I', 'L'],
  B: ['8'],
  '8': ['B'],
  S: ['5'],
  '5': ['S'],
  Z: ['2'],
  '2': ['Z'],
  G: ['6'],
  '6': ['G'],
};
