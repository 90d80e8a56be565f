// The identity data a document states, whichever zone it came from: the MRZ (passports, ID cards, visas) or the
// PDF417 barcode (AAMVA licences and ID cards). What the document check compares and the flow extracts.
import type { AamvaFields } from '../barcode/aamva.js';
import type { DocumentReading, MrzFields } from './types.js';

export interface DocumentData {
  source: 'mrz' | 'barcode';
  /** the MRZ document code (P, ID, V …) or the AAMVA subfile (DL, ID) */
  code: string;
  /** ICAO alpha-3 of the issuing state (USA, CAN for AAMVA documents) */
  issuing_country: string | null;
  /** the issuing jurisdiction (a US state, a Canadian province) on AAMVA documents */
  jurisdiction: string | null;
  document_number: string | null;
  surname: string;
  given_names: string;
  /** YYYY-MM-DD */
  birth_date: string | null;
  expiry_date: string | null;
  sex: string | null;
}

export function mrzData(m: MrzFields): DocumentData {
  return {
    source: 'mrz',
    code: m.document_type,
    issuing_country: m.issuing_country,
    jurisdiction: null,
    document_number: m.document_number,
    surname: m.surname,
    given_names: m.given_names,
    birth_date: m.birth_date,
    expiry_date: m.expiry_date,
    sex: m.sex,
  };
}

export function barcodeData(a: AamvaFields): DocumentData {
  return {
    source: 'barcode',
    code: a.subfile,
    issuing_country: a.country,
    jurisdiction: a.jurisdiction,
    document_number: a.document_number,
    surname: a.family_name ?? '',
    given_names: [a.first_name, a.middle_names].filter(Boolean).join(' '),
    birth_date: a.birth_date,
    expiry_date: a.expiry_date,
    sex: a.sex,
  };
}

/** The data of a reading: its MRZ, else its barcode's AAMVA fields, else null. */
export function readingData(
  r: Pick<DocumentReading, 'mrz' | 'barcode'> | null | undefined,
): DocumentData | null {
  if (r?.mrz) return mrzData(r.mrz);
  if (r?.barcode?.aamva) return barcodeData(r.barcode.aamva);
  return null;
}
