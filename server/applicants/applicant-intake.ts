import type { IntakeField } from '../../schemas/templates.js';
import type { ApplicantRow } from './applicant-model.js';

/**
 * The template's `intake_fields` as applicant fields, in one place: what each intake field asks of the applicant, and
 * which inputs of the applicant a flow still lacks (consent, intake). Pure: the flow service, the applicant session
 * and the flow worker read it.
 */
export interface IntakeApplicantField {
  /** the applicant field (ApplicantIn / ApplicantPatchIn name), also the hosted page's input name */
  name: string;
  /** the template's intake field it belongs to */
  intake_field: IntakeField;
  /** the intake field counts as given once every required field of it is there */
  required: boolean;
}

const field = (intake_field: IntakeField, name: string, required = true): IntakeApplicantField => ({
  name,
  intake_field,
  required,
});

export const INTAKE_APPLICANT_FIELDS: Readonly<Record<IntakeField, readonly IntakeApplicantField[]>> = {
  legal_name: [
    field('legal_name', 'legal_name_first'),
    field('legal_name', 'legal_name_middle', false),
    field('legal_name', 'legal_name_last'),
  ],
  business_name: [field('business_name', 'business_name')],
  dob: [field('dob', 'dob')],
  nationality: [field('nationality', 'nationality')],
  address: [
    field('address', 'address_line1'),
    field('address', 'address_line2', false),
    field('address', 'address_city'),
    field('address', 'address_region', false),
    field('address', 'address_postal_code', false),
    field('address', 'address_country'),
  ],
  email: [field('email', 'email')],
  phone: [field('phone', 'phone')],
  tax_id: [field('tax_id', 'tax_id')],
};

/** The applicant fields the template's intake asks for, in the template's order. */
export function intakeApplicantFields(intake: readonly string[]): IntakeApplicantField[] {
  return intake.flatMap((f) => INTAKE_APPLICANT_FIELDS[f as IntakeField] ?? []);
}

/** Whether the applicant has each field, by applicant field name (e-mail, phone and tax id by their hashes). */
export type Presence = (name: string) => boolean;

/** Presence in a request's applicant (ApplicantIn). */
export function presenceInInput(a: Record<string, unknown>): Presence {
  return (name) => a[name] !== undefined && a[name] !== null && a[name] !== '';
}

/** The stored applicant columns presence reads. */
export type StoredApplicantInputs = Pick<
  ApplicantRow,
  | 'legal_name_first'
  | 'legal_name_middle'
  | 'legal_name_last'
  | 'business_name'
  | 'dob'
  | 'nationality'
  | 'email_hash'
  | 'phone_hash'
  | 'tax_id_hash'
> & { address: Record<string, string> | null; consent: { biometric?: boolean } | null };

/** Presence in a stored applicant row. */
export function presenceInRow(r: StoredApplicantInputs): Presence {
  const values: Record<string, unknown> = {
    ...r.address,
    legal_name_first: r.legal_name_first,
    legal_name_middle: r.legal_name_middle,
    legal_name_last: r.legal_name_last,
    business_name: r.business_name,
    dob: r.dob,
    nationality: r.nationality,
    email: r.email_hash,
    phone: r.phone_hash,
    tax_id: r.tax_id_hash,
  };
  return presenceInInput(values);
}

/** The template's intake fields the applicant lacks (a field is given when all its required applicant fields are). */
export function missingIntake(intake: readonly string[], has: Presence): string[] {
  return intake.filter((f) =>
    (INTAKE_APPLICANT_FIELDS[f as IntakeField] ?? []).some((x) => x.required && !has(x.name)),
  );
}

/** A template with the selfie check compares faces: that needs the applicant's biometric consent. */
export const needsBiometricConsent = (t: { required_checks: readonly string[] }): boolean =>
  t.required_checks.includes('selfie');

/**
 * The applicant's own inputs a flow lacks, in journey order: `consent` (biometric consent on a selfie template) and
 * each missing intake field by name. A flow lacking any of them runs no check (a screen without the name or date of
 * birth it waits for would be recorded and reused).
 */
export function missingApplicantInputs(
  template: { required_checks: readonly string[]; intake_fields: readonly string[] },
  consent: { biometric?: boolean } | null | undefined,
  has: Presence,
): string[] {
  const consentMissing = needsBiometricConsent(template) && consent?.biometric !== true;
  return [...(consentMissing ? ['consent'] : []), ...missingIntake(template.intake_fields, has)];
}

/** Missing inputs that are the applicant's own (not uploads): while one is missing, the flow runs no check. */
export const UPLOAD_INPUTS: ReadonlySet<string> = new Set(['document', 'selfie']);
