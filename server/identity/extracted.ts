import type { AamvaFields } from '../../identity/barcode/aamva.js';
import type { DocumentReading, MrzFields } from '../../identity/document/index.js';
import type { ApplicantData } from '../checks/check-type.js';
import { subjectName } from '../checks/types/aml-screen.js';

/** MRZ fields copied into flows.extracted_fields, each with its source (shape B's extracted_field_sources): `chip`
 * for a verified chip's DG1, `mrz` for the printed MRZ read by OCR. */
const MRZ_FIELDS = [
  'document_type',
  'issuing_country',
  'document_number',
  'surname',
  'given_names',
  'nationality',
  'birth_date',
  'sex',
  'expiry_date',
  'optional_data',
] as const;

export function extractedFields(
  mrz: MrzFields,
  _applicant: ApplicantData,
  source: 'mrz' | 'chip' = 'mrz',
): { fields: Record<string, unknown>; sources: Record<string, string> } {
  const fields: Record<string, unknown> = { mrz_format: mrz.format };
  const sources: Record<string, string> = { mrz_format: source };
  for (const k of MRZ_FIELDS) {
    fields[k] = mrz[k];
    sources[k] = source;
  }
  return { fields, sources };
}

/** A licence's or card's barcode fields copied into flows.extracted_fields, each with source `barcode`. */
export function barcodeExtractedFields(a: AamvaFields): {
  fields: Record<string, unknown>;
  sources: Record<string, string>;
} {
  const fields: Record<string, unknown> = {
    document_type: a.subfile === 'DL' ? 'driving_license' : 'id_card',
    issuing_country: a.country,
    issuing_jurisdiction: a.jurisdiction,
    document_number: a.document_number,
    surname: a.family_name,
    given_names: [a.first_name, a.middle_names].filter(Boolean).join(' '),
    birth_date: a.birth_date,
    sex: a.sex,
    expiry_date: a.expiry_date,
    issue_date: a.issue_date,
    address_street: a.address.street,
    address_city: a.address.city,
    address_jurisdiction: a.address.jurisdiction,
    address_postal_code: a.address.postal_code,
    document_discriminator: a.document_discriminator,
    compliance_type: a.compliance_type,
    aamva_version: a.aamva_version,
  };
  const sources = Object.fromEntries(Object.keys(fields).map((k) => [k, 'barcode']));
  return { fields, sources };
}

/** The fields a read document yields for extracted_fields: its MRZ's, else its barcode's; null when neither. */
export function readingExtractedFields(
  r: DocumentReading | null | undefined,
  applicant: ApplicantData,
): { fields: Record<string, unknown>; sources: Record<string, string> } | null {
  if (r?.mrz) return extractedFields(r.mrz, applicant);
  if (r?.barcode?.aamva) return barcodeExtractedFields(r.barcode.aamva);
  return null;
}

/** The person the document states, as a screening subject (MRZ names are upper-case Latin transliterations). */
export function documentApplicant(
  mrz: Pick<MrzFields, 'given_names' | 'surname' | 'birth_date'>,
): ApplicantData {
  return {
    entity_type: 'individual',
    legal_name_first: mrz.given_names.trim() || null,
    legal_name_last: mrz.surname.trim() || null,
    dob: mrz.birth_date,
  };
}

const norm = (s: string | undefined) =>
  (s ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .sort()
    .join(' ');

/** Whether screening the document's identity could find something screening the applicant did not: another name
 * (beyond case, accents and order) or a date of birth the applicant did not give. */
export function differsFrom(doc: ApplicantData, applicant: ApplicantData): boolean {
  if (norm(subjectName(doc)) !== norm(subjectName(applicant))) return true;
  return !!doc.dob && doc.dob !== applicant.dob;
}
