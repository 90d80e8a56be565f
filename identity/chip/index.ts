// ePassport chip verification (ICAO 9303 passive and Active Authentication) for the identity module. Pure: imports
// nothing from server/, fetches nothing (no AIA, CRL distribution point or OCSP), verifies every signature with
// Node's crypto (Brainpool curves included).
export { type ActiveAuthResult, verifyActiveAuthentication } from './active-auth.js';
export {
  type Certificate,
  type Crl,
  certificateSummary,
  parseCertificate,
  parseCrl,
  sha256Hex,
} from './certificates.js';
export {
  type AnchorsByCountry,
  type ChainResult,
  lazyAnchors,
  type ParsedAnchors,
  parseAnchors,
  type TrustAnchors,
} from './chain.js';
export { alpha2Of } from './countries.js';
export { checkDataGroupEnvelope, DG_TAGS, type Portrait, parsePortrait } from './data-groups.js';
export { type MasterList, readMasterList } from './master-list.js';
export { portraitJpeg } from './portrait.js';
export { parseSod, type Sod } from './sod.js';
export { ChipFormatError, readWhole } from './tlv.js';
export {
  CHIP_REASON_CODES,
  type ChipData,
  type ChipReport,
  type ChipSubCheck,
  type ChipSubCheckName,
  mrzMatchesVisual,
  verifyChip,
} from './verify.js';
