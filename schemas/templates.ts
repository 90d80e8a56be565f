import { type Static, Type } from '@sinclair/typebox';
import { CheckType } from './checks.js';
import {
  AmlDataset,
  Cursor,
  Limit,
  ListOf,
  Nullable,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  Uuid,
} from './common.js';

// Enums the spec leaves open (decided in docs/decisions/flows.md, "Template enums the spec leaves open").
export const DOCUMENT_TYPES = [
  'id_document',
  'passport',
  'id_card',
  'driving_license',
  'residence_permit',
  'proof_of_address',
] as const;
export const DocumentType = StringEnum(DOCUMENT_TYPES, { title: 'DocumentType' });
export const DOCUMENT_SIDES = ['single', 'front', 'back'] as const;
export const DocumentSide = StringEnum(DOCUMENT_SIDES, { title: 'DocumentSide' });
export const DocumentCaptureMode = StringEnum(['live_only', 'upload_only', 'live_or_upload'] as const, {
  title: 'DocumentCaptureMode',
});
export const PassportNfcBehavior = StringEnum(['disabled', 'optional', 'required'] as const, {
  title: 'PassportNFCBehavior',
});
export const INTAKE_FIELDS = [
  'legal_name',
  'business_name',
  'dob',
  'nationality',
  'address',
  'email',
  'phone',
  'tax_id',
] as const;
export const IntakeField = StringEnum(INTAKE_FIELDS, { title: 'IntakeField' });
export type IntakeField = Static<typeof IntakeField>;
export const TemplateDecision = StringEnum(['AUTO_APPROVED', 'MANUAL_REVIEW', 'REJECTED'] as const, {
  description: 'Decision when no rule matches (no check raised a reason code)',
});

export const RequiredDocument = Type.Object(
  {
    min: Type.Integer({ minimum: 1, maximum: 10 }),
    side: DocumentSide,
    types: Type.Array(DocumentType, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false, title: 'RequiredDocument' },
);
export type RequiredDocument = Static<typeof RequiredDocument>;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });
const RequiredChecks = Type.Array(CheckType, { minItems: 1, uniqueItems: true });
const DocTypes = Type.Array(DocumentType, { uniqueItems: true });
const IssuingCountries = Type.Array(
  Type.String({
    pattern: '^[A-Za-z<]{1,3}$',
    description: 'ICAO 9303 issuing-state code as in the MRZ, e.g. DEU, D, UTO',
  }),
  {
    uniqueItems: true,
    maxItems: 300,
    description: 'issuing states the document check accepts (from the MRZ); empty = any',
  },
);
const Datasets = Type.Array(AmlDataset, { minItems: 1, uniqueItems: true });
const Intake = Type.Array(IntakeField, { uniqueItems: true });
const RequiredDocs = Type.Array(RequiredDocument, { maxItems: 10 });

export const FlowTemplateCreateIn = Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }),
    name: Name,
    description: Type.Optional(Nullable(Description)),
    required_checks: RequiredChecks,
    allowed_document_types: Type.Optional(DocTypes),
    allowed_issuing_countries: Type.Optional(IssuingCountries),
    default_datasets: Type.Optional(Nullable(Datasets)),
    document_capture_mode: Type.Optional(DocumentCaptureMode),
    passport_nfc_behavior: Type.Optional(PassportNfcBehavior),
    intake_fields: Type.Optional(Intake),
    required_documents: Type.Optional(RequiredDocs),
    default_decision: Type.Optional(TemplateDecision),
  },
  { additionalProperties: false, title: 'FlowTemplateCreateIn' },
);
export type FlowTemplateCreateIn = Static<typeof FlowTemplateCreateIn>;

/** Every field optional or null; null on a non-nullable field means "leave unchanged". */
export const FlowTemplatePatchIn = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    description: Type.Optional(Nullable(Description)),
    archived: Type.Optional(Nullable(Type.Boolean())),
    required_checks: Type.Optional(Nullable(RequiredChecks)),
    allowed_document_types: Type.Optional(Nullable(DocTypes)),
    allowed_issuing_countries: Type.Optional(Nullable(IssuingCountries)),
    default_datasets: Type.Optional(Nullable(Datasets)),
    document_capture_mode: Type.Optional(Nullable(DocumentCaptureMode)),
    passport_nfc_behavior: Type.Optional(Nullable(PassportNfcBehavior)),
    intake_fields: Type.Optional(Nullable(Intake)),
    required_documents: Type.Optional(Nullable(RequiredDocs)),
    default_decision: Type.Optional(Nullable(TemplateDecision)),
  },
  { additionalProperties: false, title: 'FlowTemplatePatchIn' },
);
export type FlowTemplatePatchIn = Static<typeof FlowTemplatePatchIn>;

export const FlowTemplateOut = Type.Object(
  {
    id: Uuid,
    slug: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    archived_at: NullableTimestamp,
    required_checks: Type.Array(CheckType),
    allowed_document_types: Type.Array(DocumentType),
    allowed_issuing_countries: Type.Array(Type.String()),
    default_datasets: Nullable(Type.Array(AmlDataset)),
    document_capture_mode: DocumentCaptureMode,
    passport_nfc_behavior: PassportNfcBehavior,
    intake_fields: Type.Array(IntakeField),
    required_documents: Type.Array(RequiredDocument),
    default_decision: TemplateDecision,
    checks_only: Type.Boolean({
      description: 'true when no check needs documents or biometrics (sync-capable)',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'FlowTemplate' },
);
export type FlowTemplateOut = Static<typeof FlowTemplateOut>;

export const FlowTemplateParams = Type.Object({ flow_template_id: Uuid }, { additionalProperties: false });

export const FlowTemplateListQuery = Type.Object(
  {
    archived: Type.Optional(Type.Boolean({ description: 'true: only archived; false: only active' })),
    limit: Type.Optional(Limit),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);

export const FlowTemplateListOut = ListOf(FlowTemplateOut, 'FlowTemplateListOut');
