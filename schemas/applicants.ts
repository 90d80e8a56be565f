import { type Static, Type } from '@sinclair/typebox';
import { Cursor, Limit, ListOf, Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';
import { Phone, TaxId } from './flows.js';

export const APPLICANT_INTERNAL_STATUSES = [
  'active',
  'under_review',
  'approved',
  'rejected',
  'blocked',
  'archived',
] as const;
export const ApplicantInternalStatus = StringEnum(APPLICANT_INTERNAL_STATUSES, {
  title: 'ApplicantInternalStatus',
  description: "The tenant's own label for the applicant; set by admin authority, any value to any other",
});
export type ApplicantInternalStatus = Static<typeof ApplicantInternalStatus>;

export const RISK_TIERS = ['low', 'medium', 'high', 'prohibited'] as const;
export const RiskTier = StringEnum(RISK_TIERS, { title: 'RiskTier' });

const Iso2 = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 country code' });
const ShortText = Type.String({ minLength: 1, maxLength: 200 });
const CustomValue = Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()]);

export const ApplicantOut = Type.Object(
  {
    id: Uuid,
    external_id: Nullable(Type.String()),
    entity_type: StringEnum(['individual', 'business'] as const),
    legal_name_first: Nullable(Type.String()),
    legal_name_middle: Nullable(Type.String()),
    legal_name_last: Nullable(Type.String()),
    business_name: Nullable(Type.String()),
    dob: Nullable(Type.String()),
    nationality: Nullable(Type.String()),
    email_hash: Nullable(
      Type.String({
        description: 'HMAC-SHA256 (PII_HASH_KEY) of the lower-cased e-mail; the address is not kept',
      }),
    ),
    email_hint: Nullable(Type.String({ description: 'masked e-mail for display, e.g. j•••@example.com' })),
    phone_hint: Nullable(Type.String({ description: 'masked phone, e.g. +44•••0123' })),
    tax_id_hint: Nullable(Type.String({ description: 'masked tax id, e.g. •••789' })),
    address_line1: Nullable(Type.String()),
    address_line2: Nullable(Type.String()),
    address_city: Nullable(Type.String()),
    address_region: Nullable(Type.String()),
    address_postal_code: Nullable(Type.String()),
    address_country: Nullable(Type.String()),
    consent: Nullable(Type.Record(Type.String(), Type.Unknown())),
    custom_attributes: Type.Record(Type.String(), CustomValue),
    internal_status: Type.String(),
    risk_tier: Nullable(Type.String()),
    erased_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Applicant' },
);
export type ApplicantOut = Static<typeof ApplicantOut>;

export const ApplicantListQuery = Type.Object(
  {
    status: Type.Optional(ApplicantInternalStatus),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'case-insensitive substring of external_id, email_hash, legal_name_* or business_name; an e-mail address also matches its email_hash',
      }),
    ),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ApplicantListQuery = Static<typeof ApplicantListQuery>;

export const ApplicantListOut = ListOf(ApplicantOut, 'ApplicantListOut');

export const ApplicantParams = Type.Object({ applicant_id: Uuid }, { additionalProperties: false });

/** Every field optional; null clears a field. custom_attributes merges (a null value removes the key). */
export const ApplicantPatchIn = Type.Object(
  {
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    legal_name_first: Type.Optional(Nullable(ShortText)),
    legal_name_middle: Type.Optional(Nullable(ShortText)),
    legal_name_last: Type.Optional(Nullable(ShortText)),
    business_name: Type.Optional(Nullable(ShortText)),
    dob: Type.Optional(Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD' }))),
    nationality: Type.Optional(Nullable(Iso2)),
    email: Type.Optional(
      Nullable(
        Type.String({ format: 'email', maxLength: 254, description: 'stored as email_hash + email_hint' }),
      ),
    ),
    phone: Type.Optional(Nullable(Phone)),
    tax_id: Type.Optional(Nullable(TaxId)),
    address_line1: Type.Optional(Nullable(ShortText)),
    address_line2: Type.Optional(Nullable(ShortText)),
    address_city: Type.Optional(Nullable(ShortText)),
    address_region: Type.Optional(Nullable(ShortText)),
    address_postal_code: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 32 }))),
    address_country: Type.Optional(Nullable(Iso2)),
    custom_attributes: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), CustomValue, { maxProperties: 50 }),
    ),
    internal_status: Type.Optional(ApplicantInternalStatus),
    risk_tier: Type.Optional(Nullable(RiskTier)),
  },
  { additionalProperties: false, minProperties: 1, title: 'ApplicantPatchIn' },
);
export type ApplicantPatchIn = Static<typeof ApplicantPatchIn>;

export const ApplicantErasureOut = Type.Object(
  {
    id: Uuid,
    applicant_id: Uuid,
    status: StringEnum(['scheduled', 'completed'] as const, { title: 'ErasureStatus' }),
    erased_at: Timestamp,
    requested_at: Timestamp,
  },
  { title: 'ApplicantErasure' },
);
export type ApplicantErasureOut = Static<typeof ApplicantErasureOut>;
