// MRZ text handling in steps: layouts (data), check digits, OCR confusions (data) and their repair, line finding,
// parsing, and the second engine's say on names and digits.
export { checkDigit, checkResults } from './check-digits.js';
export { LETTER_CONFUSIONS } from './confusions.js';
export { hybridCandidate, restoreFiller } from './hybrid.js';
export { LAYOUTS, type Layout } from './layouts.js';
export { type Candidate, cleanLine, findCandidates, fitLength } from './lines.js';
export {
  checkNames,
  type Insertion,
  insertionIn,
  type NameCheck,
  namesConfirmed,
  substringDistance,
} from './names.js';
export { mrzDate, type Parsed, parseLines, readCandidate } from './parse.js';
export { icaoRepair, repair } from './repair.js';
