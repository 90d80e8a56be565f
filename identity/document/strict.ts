// The strict check a reading must pass besides its check digits: check digits alone are not proof of a correct
// reading (O↔0, I↔1 … confusions can keep them valid). Reason codes are listed in docs/decisions.md.
import { states } from 'mrz';
import type { MrzFields } from './types.js';

/** ICAO 9303 codes: the `mrz` package's list (ISO 3166 alpha-3, D, GBD/GBN/…, RKS, EUE, UNO/UNA/UNK, XBA …
 * XXA/XXB/XXC/XXX) plus UTO, the fictional state of ICAO's specimens. */
export const ICAO_CODES: ReadonlySet<string> = new Set([...Object.keys(states), 'UTO']);

export type StrictReason =
  | 'document_type_invalid'
  | 'issuing_country_unknown'
  | 'nationality_unknown'
  | 'name_invalid'
  | 'birth_date_implausible'
  | 'expiry_date_implausible'
  | 'document_number_invalid'
  | 'document_number_ambiguous'
  | 'optional_data_invalid';

const TYPE_FIRST: Record<MrzFields['format'], RegExp> = {
  TD3: /^P[A-Z]?$/,
  TD2: /^[ACI][A-Z]?$/,
  TD1: /^[ACI][A-Z]?$/,
  MRVA: /^V[A-Z]?$/,
  MRVB: /^V[A-Z]?$/,
};

/** Checks the fields of a reading whose check digits are valid; returns the reasons it fails (empty = pass).
 * `corrected` is the MRZ text the fields came from (used for the name line's filler). */
export function strictCheck(m: MrzFields, corrected: string[], now = new Date()): StrictReason[] {
  const out: StrictReason[] = [];
  if (!TYPE_FIRST[m.format].test(m.document_type)) out.push('document_type_invalid');
  if (!ICAO_CODES.has(m.issuing_country)) out.push('issuing_country_unknown');
  if (!ICAO_CODES.has(m.nationality)) out.push('nationality_unknown');
  if (!namesOk(m, corrected)) out.push('name_invalid');
  const today = now.toISOString().slice(0, 10);
  const birth = m.birth_date;
  if (!birth || birth > today || birth < `${now.getUTCFullYear() - 125}-01-01`)
    out.push('birth_date_implausible');
  const expiry = m.expiry_date;
  if (
    !expiry ||
    (birth && expiry <= birth) ||
    expiry > `${now.getUTCFullYear() + 30}-12-31` ||
    expiry < '1970-01-01'
  ) {
    out.push('expiry_date_implausible');
  }
  const num = m.document_number;
  if (!/^[A-Z0-9]{4,}$/.test(num) || !/[0-9]/.test(num)) out.push('document_number_invalid');
  else if (/[OQ]/.test(num)) out.push('document_number_ambiguous');
  if (m.optional_data !== null && !/^[A-Z0-9<]+( [A-Z0-9<]+)?$/.test(m.optional_data)) {
    out.push('optional_data_invalid');
  }
  return out;
}

const NAME = /^[A-Z]+( [A-Z]+)*$/;

function namesOk(m: MrzFields, corrected: string[]): boolean {
  if (!NAME.test(m.surname)) return false;
  if (m.given_names !== '' && !NAME.test(m.given_names)) return false;
  // the name field: letters and single '<' separators, one '<<' between surname and given names, then only
  // filler — a stray letter inside the filler is an OCR artefact, not a name
  const line = m.format === 'TD1' ? (corrected[2] ?? '') : (corrected[0] ?? '').slice(5);
  const body = line.replace(/<+$/, '');
  if (/<<</.test(body)) return false;
  if ((body.match(/<</g) ?? []).length > 1) return false;
  return true;
}
