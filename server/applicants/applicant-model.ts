import { createHmac } from 'node:crypto';
import type { ApplicantOut } from '../../schemas/applicants.js';

export interface ApplicantRow {
  id: string;
  tenant_id: string;
  seq: string;
  external_id: string | null;
  entity_type: 'individual' | 'business';
  legal_name_first: string | null;
  legal_name_middle: string | null;
  legal_name_last: string | null;
  business_name: string | null;
  dob: string | null;
  nationality: string | null;
  email_hash: string | null;
  email_hint: string | null;
  phone_hash: string | null;
  phone_hint: string | null;
  tax_id_hash: string | null;
  tax_id_hint: string | null;
  address: Record<string, string>;
  consent: Record<string, unknown> | null;
  custom_attributes: Record<string, string | number | boolean | null>;
  internal_status: string;
  risk_tier: string | null;
  erased_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ADDRESS_FIELDS = [
  'address_line1',
  'address_line2',
  'address_city',
  'address_region',
  'address_postal_code',
  'address_country',
] as const;

/** The keyed e-mail hash, identical to the one computed when a flow creates the applicant. */
export function emailHash(piiKey: string, email: string): string {
  return createHmac('sha256', piiKey).update(email.trim().toLowerCase()).digest('hex');
}

/** What an operator needs to recognise an address without the service keeping it: first character and domain. */
export function emailHint(email: string): string {
  const e = email.trim().toLowerCase();
  const at = e.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${e.slice(0, 1)}•••@${e.slice(at + 1)}`;
}

/** Phone and tax id are kept like the e-mail: a keyed hash of the normalised value (spaces, dots and dashes
 * dropped, upper case) and a hint of its first and last characters. */
const normalisedId = (v: string) => v.replace(/[\s.\-/]/g, '').toUpperCase();

export function identifierHash(piiKey: string, value: string): string {
  return createHmac('sha256', piiKey).update(normalisedId(value)).digest('hex');
}

/** `+44•••0123` for a phone, `•••789` for a tax id: enough to recognise it, not enough to use it. */
export function identifierHint(kind: 'phone' | 'tax_id', value: string): string {
  const v = normalisedId(value);
  return kind === 'phone' ? `${v.slice(0, 3)}•••${v.slice(-4)}` : `•••${v.slice(-3)}`;
}

/** The stored columns of a phone and a tax id given in a request (absent: nothing; null: cleared). */
export function identifierColumns(
  piiKey: string,
  a: { phone?: string | null; tax_id?: string | null },
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const kind of ['phone', 'tax_id'] as const) {
    const v = a[kind];
    if (v === undefined) continue;
    out[`${kind}_hash`] = v === null ? null : identifierHash(piiKey, v);
    out[`${kind}_hint`] = v === null ? null : identifierHint(kind, v);
  }
  return out;
}

export function applicantOut(r: ApplicantRow): ApplicantOut {
  const addr = r.address ?? {};
  return {
    id: r.id,
    external_id: r.external_id,
    entity_type: r.entity_type,
    legal_name_first: r.legal_name_first,
    legal_name_middle: r.legal_name_middle,
    legal_name_last: r.legal_name_last,
    business_name: r.business_name,
    dob: r.dob,
    nationality: r.nationality,
    email_hash: r.email_hash,
    email_hint: r.email_hint,
    phone_hint: r.phone_hint ?? null,
    tax_id_hint: r.tax_id_hint ?? null,
    address_line1: addr.address_line1 ?? null,
    address_line2: addr.address_line2 ?? null,
    address_city: addr.address_city ?? null,
    address_region: addr.address_region ?? null,
    address_postal_code: addr.address_postal_code ?? null,
    address_country: addr.address_country ?? null,
    consent: r.consent,
    custom_attributes: r.custom_attributes ?? {},
    internal_status: r.internal_status,
    risk_tier: r.risk_tier,
    erased_at: r.erased_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** LIKE pattern for a case-insensitive substring (search_text is lower-cased), with %, _ and \ escaped. */
export function substringPattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
