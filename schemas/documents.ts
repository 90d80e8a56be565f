import { type Static, Type } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';
import { LivenessPose } from './liveness.js';
import { DOCUMENT_TYPES, DocumentSide } from './templates.js';

// one vocabulary with flow templates (required_documents / allowed_document_types)
export { DOCUMENT_SIDES, DOCUMENT_TYPES, DocumentSide, DocumentType } from './templates.js';

/** What an upload may be: a document type of the templates' vocabulary, or `selfie` (a photo of the applicant's
 * face for the selfie check; side `single`). */
export const UPLOAD_DOC_TYPES = [...DOCUMENT_TYPES, 'selfie'] as const;
export const UploadDocType = StringEnum(UPLOAD_DOC_TYPES, {
  title: 'UploadDocType',
  description:
    'a DocumentType, or selfie (a photo of the face for the selfie check: side single, needs consent.biometric)',
});
export type UploadDocType = Static<typeof UploadDocType>;

/** pending → uploaded (client called complete: the upload is sealed) → verified | rejected (size and magic bytes);
 * verified → rejected when a later read finds other bytes than the verified ones (integrity_mismatch). */
export const UPLOAD_STATUSES = ['pending', 'uploaded', 'verified', 'rejected'] as const;
export const UploadStatus = StringEnum(UPLOAD_STATUSES, { title: 'UploadStatus' });
export type UploadStatus = Static<typeof UploadStatus>;

export const DOCUMENT_MIME_TYPES = ['image/jpeg', 'image/png', 'image/heic', 'application/pdf'] as const;
export const DocumentMimeType = StringEnum(DOCUMENT_MIME_TYPES, {
  title: 'DocumentMimeType',
  description: 'declared content type; the upload must match it (checked by magic bytes). Default image/jpeg',
});
export type DocumentMimeType = Static<typeof DocumentMimeType>;

/** integrity_mismatch: after verification, the stored bytes were found not to be the verified ones (SHA-256 or size) */
export const REJECTION_REASONS = [
  'object_missing',
  'empty',
  'too_large',
  'content_mismatch',
  'integrity_mismatch',
] as const;

/** What the identity worker did with a verified upload: `pending` (queued or reading), `done` (read: the
 * document/selfie check uses it), `not_applicable` (a type that is not read, e.g. proof_of_address). */
export const ANALYSIS_STATUSES = ['pending', 'done', 'not_applicable'] as const;

export const PresignedUploadOut = Type.Object(
  {
    url: Type.String(),
    method: Type.Literal('PUT'),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'headers the upload must send exactly (the content type is part of the signature)',
    }),
    expires_in: Type.Integer({ description: 'seconds the URL stays valid' }),
    max_bytes: Type.Integer({ description: 'larger uploads are rejected at verification' }),
  },
  { title: 'PresignedUploadOut' },
);

/** How an applicant session captured the image it uploads (a tenant credential's upload is recorded as `api`). */
export const CaptureIn = StringEnum(['camera', 'upload'] as const, {
  title: 'CaptureIn',
  description:
    'applicant sessions only (required there): camera = the live camera (recorded hosted_camera), upload = a ' +
    'file (hosted_upload; refused by a live_only template)',
});
/** How a document was captured, as recorded. */
export const DocumentCapture = StringEnum(['api', 'hosted_camera', 'hosted_upload'] as const, {
  title: 'DocumentCapture',
  description:
    'api: registered with a tenant credential (the server cannot know how the image was made); hosted_camera / ' +
    'hosted_upload: by an applicant session, as it said',
});
export type DocumentCapture = Static<typeof DocumentCapture>;

export const DocumentCreateIn = Type.Object(
  {
    doc_type: UploadDocType,
    mime_type: Type.Optional(Nullable(DocumentMimeType)),
    side: Type.Optional(DocumentSide),
    liveness_challenge_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'a frame of this liveness challenge (doc_type selfie; with pose)',
      }),
    ),
    pose: Type.Optional(LivenessPose),
    capture: Type.Optional(CaptureIn),
  },
  { additionalProperties: false, title: 'DocumentCreateIn' },
);
export type DocumentCreateIn = Static<typeof DocumentCreateIn>;

export const DocumentSubmissionCreateIn = Type.Object(
  {
    submission_id: Type.String({ format: 'uuid', description: 'the flow the document belongs to (its id)' }),
    doc_type: UploadDocType,
    mime_type: Type.Optional(Nullable(DocumentMimeType)),
    side: Type.Optional(DocumentSide),
    liveness_challenge_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'a frame of this liveness challenge (doc_type selfie; with pose)',
      }),
    ),
    pose: Type.Optional(LivenessPose),
    capture: Type.Optional(CaptureIn),
  },
  { additionalProperties: false, title: 'DocumentSubmissionCreateIn' },
);
export type DocumentSubmissionCreateIn = Static<typeof DocumentSubmissionCreateIn>;

export const DocumentCreatedOut = Type.Object(
  {
    id: Uuid,
    flow_id: Uuid,
    submission_id: Type.Optional(Uuid),
    doc_type: UploadDocType,
    side: DocumentSide,
    mime_type: DocumentMimeType,
    liveness_challenge_id: Type.Optional(Nullable(Uuid)),
    pose: Type.Optional(Nullable(LivenessPose)),
    upload: PresignedUploadOut,
    upload_status: UploadStatus,
    capture: DocumentCapture,
    created_at: Timestamp,
  },
  { title: 'DocumentCreated' },
);

export const DocumentOut = Type.Object(
  {
    id: Uuid,
    flow_id: Uuid,
    doc_type: UploadDocType,
    side: DocumentSide,
    mime_type: DocumentMimeType,
    upload_status: UploadStatus,
    capture: DocumentCapture,
    rejection_reason: Nullable(StringEnum(REJECTION_REASONS)),
    size_bytes: Nullable(Type.Integer()),
    sha256: Nullable(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description:
          'SHA-256 (hex) of the verified bytes: every later read (preview, analysis) is checked against it and size_bytes',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: NullableTimestamp,
    verified_at: NullableTimestamp,
    liveness_challenge_id: Type.Optional(Nullable(Uuid)),
    pose: Type.Optional(Nullable(LivenessPose)),
    analysis_status: Type.Optional(
      Nullable(StringEnum(ANALYSIS_STATUSES, { description: 'null until the upload is verified' })),
    ),
  },
  { title: 'Document' },
);
export type DocumentOut = Static<typeof DocumentOut>;

export const DocumentListOut = Type.Object(
  { items: Type.Array(DocumentOut), next_cursor: Nullable(Type.String()) },
  { title: 'DocumentListOut' },
);

export const DocumentCompleteOut = Type.Object(
  { document_id: Uuid, upload_status: UploadStatus },
  { title: 'DocumentCompleteOut' },
);

export const DocumentQualityOut = Type.Object(
  {
    ok: Type.Boolean({ description: 'true when the image is fit to submit: no reason below' }),
    reasons: Type.Array(Type.String(), {
      description:
        "reason codes from the document and selfie checks' catalogue (document_quality_low, document_unreadable, document_no_face, selfie_no_face, selfie_multiple_faces)",
    }),
    quality_reasons: Type.Array(StringEnum(['resolution_low', 'image_blurred', 'glare_high'] as const), {
      description: 'what makes the quality low (thresholds in identity/quality-thresholds.ts)',
    }),
    blur: Type.Number({ description: 'variance of the Laplacian at 1,000 px wide; higher = sharper' }),
    glare: Type.Number({ description: 'fraction of saturated pixels inside the document' }),
    width: Type.Integer(),
    height: Type.Integer(),
    mrz_found: Nullable(
      Type.Boolean({
        description:
          'an MRZ band was found (image analysis, not read); null: not looked for (the side need not show one, or a barcode was found)',
      }),
    ),
    barcode_found: Nullable(
      Type.Boolean({
        description:
          'a PDF417 barcode was found and decoded; null: not looked for (a passport, or a side that need not show data)',
      }),
    ),
    face_found: Nullable(Type.Boolean({ description: 'null: not looked for (a card back)' })),
    faces: Nullable(
      Type.Integer({ description: 'how many faces were found; null: not looked for (a card back)' }),
    ),
    took_ms: Type.Integer(),
  },
  { title: 'DocumentQualityOut' },
);
export type DocumentQualityOut = Static<typeof DocumentQualityOut>;

export const DocumentPreviewOut = Type.Object(
  {
    url: Type.String({ description: 'pre-signed GET, usable by a browser until expires_at' }),
    method: Type.Literal('GET'),
    content_type: DocumentMimeType,
    expires_in: Type.Integer(),
    expires_at: Timestamp,
  },
  { title: 'DocumentPreviewOut' },
);

export const FlowDocumentParams = Type.Object({ flow_id: Uuid }, { additionalProperties: false });
export const DocumentParams = Type.Object(
  { flow_id: Uuid, document_id: Uuid },
  { additionalProperties: false },
);
