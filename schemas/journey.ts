import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';
import { ApplicantIn } from './flows.js';
import {
  DocumentCaptureMode,
  DocumentType,
  IntakeField,
  PassportNfcBehavior,
  RequiredDocument,
} from './templates.js';

/** The applicant's journey (docs/journey.md): verification links, applicant sessions and what a session sees. */

export const LINK_PURPOSES = ['verification', 'handoff'] as const;
export const LinkPurpose = StringEnum(LINK_PURPOSES, { title: 'VerificationLinkPurpose' });
export const LINK_STATUSES = ['active', 'used', 'expired', 'revoked'] as const;
export const LinkStatus = StringEnum(LINK_STATUSES, { title: 'VerificationLinkStatus' });
/** The hosted page's catalogues. */
export const JOURNEY_LOCALES = ['en', 'es', 'ar'] as const;
export const JourneyLocale = StringEnum(JOURNEY_LOCALES, {
  title: 'JourneyLocale',
  description: "the hosted page's language (absent: the browser's Accept-Language)",
});

export const VerificationLinkCreateIn = Type.Object(
  {
    redirect_url: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        maxLength: 2000,
        description:
          "where the page sends the applicant at the end; its origin must be one of the tenant's allowed_origins",
      }),
    ),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 604_800,
        default: 86_400,
        description: 'seconds the link stays usable',
      }),
    ),
    locale: Type.Optional(JourneyLocale),
  },
  { additionalProperties: false, title: 'VerificationLinkCreateIn' },
);
export type VerificationLinkCreateIn = Static<typeof VerificationLinkCreateIn>;

export const VerificationLink = Type.Object(
  {
    id: Uuid,
    flow_id: Uuid,
    purpose: LinkPurpose,
    url: Nullable(
      Type.String({
        description: 'the link: only in the answer that created it (the token is stored hashed)',
      }),
    ),
    status: LinkStatus,
    expires_at: Timestamp,
    redirect_url: Nullable(Type.String()),
    locale: Nullable(JourneyLocale),
    created_at: Timestamp,
    used_at: NullableTimestamp,
    revoked_at: NullableTimestamp,
  },
  { title: 'VerificationLink' },
);
export type VerificationLink = Static<typeof VerificationLink>;

export const VerificationLinkListOut = Type.Object(
  { items: Type.Array(VerificationLink) },
  { title: 'VerificationLinkListOut' },
);

export const VerificationLinkParams = Type.Object(
  { flow_id: Uuid, link_id: Uuid },
  { additionalProperties: false },
);

/** The link's token: 16 random bytes in base64url. */
export const LinkToken = Type.String({
  pattern: '^[A-Za-z0-9_-]{22}$',
  description: "the link's last path segment",
});
export const LinkTokenParams = Type.Object(
  { token: Type.String({ maxLength: 200 }) },
  { additionalProperties: false },
);

export const ApplicantSessionCreateIn = Type.Object(
  { token: LinkToken },
  { additionalProperties: false, title: 'ApplicantSessionCreateIn' },
);

export const ApplicantSessionCreated = Type.Object(
  {
    access_token: Type.String({ description: '`aps_…`: send as Authorization: Bearer' }),
    token_type: Type.Literal('Bearer'),
    flow_id: Uuid,
    purpose: LinkPurpose,
    expires_at: Timestamp,
    idle_timeout_seconds: Type.Integer({ description: 'the session ends when unused this long' }),
    page_url: Type.String({
      description:
        'the hosted page on this session, for an iframe of an allowed origin: `/applicant/?session=<id>#token=<access_token>` ' +
        '(the token in the fragment never reaches a server; the page keeps it in its tab and sends it as Bearer)',
    }),
  },
  { title: 'ApplicantSessionCreated' },
);

export const CAPTURES = ['api', 'hosted_camera', 'hosted_upload'] as const;
export const Capture = StringEnum(CAPTURES, {
  title: 'DocumentCapture',
  description:
    'how the image was captured: api (a tenant credential registered it: the server cannot know), hosted_camera / ' +
    "hosted_upload (an applicant session's live camera or file picker, as it said)",
});

const Step = <N extends string, T extends Record<string, TSchema>>(name: N, props: T) =>
  Type.Object(
    { name: Type.Literal(name), done: Type.Boolean(), ...props },
    { title: `${name[0]?.toUpperCase()}${name.slice(1)}Step` },
  );

export const ConsentStep = Step('consent', {
  biometric_required: Type.Boolean(),
  policy_version: Nullable(Type.String({ description: 'the policy version consented to (null before)' })),
});
export const IntakeStep = Step('intake', {
  fields: Type.Array(
    Type.Object({
      name: Type.String({
        description: 'the applicant field, also the input name (legal_name_first, dob, …)',
      }),
      intake_field: IntakeField,
      required: Type.Boolean(),
      value_present: Type.Boolean(),
    }),
  ),
});
export const SessionDocument = Type.Object(
  {
    id: Uuid,
    doc_type: Type.String(),
    side: Type.String(),
    upload_status: Type.String(),
    capture: Capture,
  },
  { title: 'ApplicantSessionDocument' },
);
export const DocumentStep = Step('document', {
  allowed_document_types: Type.Array(DocumentType),
  allowed_issuing_countries: Type.Array(Type.String()),
  required_documents: Type.Array(RequiredDocument),
  capture_mode: DocumentCaptureMode,
  nfc: PassportNfcBehavior,
  documents: Type.Array(SessionDocument),
});
export const SelfieStep = Step('selfie', {
  liveness: Type.Boolean({ description: 'the selfie is taken with a liveness challenge' }),
  documents: Type.Array(SessionDocument),
});
export const ReviewStep = Step('review', {});

export const HandoffState = Type.Object(
  {
    status: StringEnum(['waiting', 'opened', 'ended'] as const, {
      description:
        'waiting: the link is not opened yet; opened: the other device has a session; ended: expired, used up or cancelled',
    }),
    expires_at: Timestamp,
  },
  { title: 'HandoffState' },
);

export const ApplicantSessionView = Type.Object(
  {
    flow_id: Uuid,
    purpose: LinkPurpose,
    locale: Nullable(JourneyLocale),
    tenant: Type.Object({ display_name: Type.String() }),
    expires_at: Timestamp,
    redirect_url: Nullable(Type.String()),
    steps: Type.Array(Type.Union([ConsentStep, IntakeStep, DocumentStep, SelfieStep, ReviewStep])),
    missing: Type.Array(Type.String(), { description: 'what the applicant still has to give before submit' }),
    status: StringEnum(['collecting', 'submitted', 'processing', 'done'] as const, {
      description: 'done: the flow is decided (whatever the decision: an applicant is not told it)',
    }),
    handoff: Nullable(HandoffState),
  },
  { title: 'ApplicantSessionView' },
);
export type ApplicantSessionView = Static<typeof ApplicantSessionView>;

export const ConsentIn = Type.Object(
  {
    biometric: Type.Boolean({ description: 'consent to face comparison (required on a selfie template)' }),
    policy_version: Type.String({ minLength: 1, maxLength: 64, description: 'the privacy notice shown' }),
  },
  { additionalProperties: false, title: 'ApplicantConsentIn' },
);
export type ConsentIn = Static<typeof ConsentIn>;

/** The applicant fields intake may carry, with the rules of ApplicantIn (one definition). */
export const INTAKE_BODY_FIELDS = [
  'legal_name_first',
  'legal_name_middle',
  'legal_name_last',
  'business_name',
  'dob',
  'nationality',
  'email',
  'phone',
  'tax_id',
  'address_line1',
  'address_line2',
  'address_city',
  'address_region',
  'address_postal_code',
  'address_country',
] as const;
export const IntakeIn = Type.Pick(ApplicantIn, INTAKE_BODY_FIELDS, {
  additionalProperties: false,
  title: 'ApplicantIntakeIn',
  description: "the template's intake fields (see the intake step's fields); others are refused",
});
export type IntakeIn = Static<typeof IntakeIn>;

export const HandoffCreated = Type.Object(
  { url: Type.String(), expires_at: Timestamp },
  { title: 'HandoffCreated' },
);

export const FunnelQuery = Type.Object(
  {
    template_id: Type.Optional(Uuid),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'flows whose first link was minted since (default: 30 days ago)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FunnelQuery = Static<typeof FunnelQuery>;

export const JOURNEY_STEPS = ['consent', 'intake', 'document', 'selfie', 'review'] as const;
export type JourneyStep = (typeof JOURNEY_STEPS)[number];

export const FunnelRow = Type.Object(
  {
    template_id: Uuid,
    template_slug: Type.String(),
    links: Type.Integer({ description: 'flows given a verification link' }),
    opened: Type.Integer({ description: '… whose link was opened' }),
    steps: Type.Record(Type.String(), Type.Integer(), {
      description: '… that reached each step, by step name',
    }),
    submitted: Type.Integer({ description: '… that the applicant submitted' }),
    decided: Type.Integer({ description: '… that are decided now' }),
  },
  { title: 'VerificationFunnelRow' },
);
export type FunnelRow = Static<typeof FunnelRow>;
export const FunnelOut = Type.Object(
  { since: Timestamp, items: Type.Array(FunnelRow) },
  { title: 'VerificationFunnel' },
);
export type FunnelOut = Static<typeof FunnelOut>;
