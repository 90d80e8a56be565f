import type { MrzFields } from '../../identity/document/index.js';
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

/** The person the document states, as a screening subject (MRZ names are upper-case Latin transliterations). */
export function documentApplicant(mrz: MrzFields): ApplicantData {
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
