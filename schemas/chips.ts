// ePassport chips (issue 28): what a reader app submits for a document, Active Authentication challenges, and the
// operator's trust store of CSCA certificates and CRLs.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid } from './common.js';

/** Document types whose chip the service reads (ICAO 9303 eMRTDs: passports and ID cards). */
export const CHIP_DOC_TYPES: ReadonlySet<string> = new Set(['passport', 'id_card', 'id_document']);

/** Bytes as standard base64 (RFC 4648 §4, padding optional). */
export const Base64 = (description: string, maxLength: number) =>
  Type.String({
    pattern: '^[A-Za-z0-9+/]*={0,2}$',
    contentEncoding: 'base64',
    minLength: 4,
    maxLength,
    description,
  });

/** Data groups an app may send: 1 (MRZ) and 2 (portrait) required; 5–16 as read. DG3 (fingerprints) and DG4
 * (iris) are refused: the service never needs them. */
export const CHIP_DATA_GROUPS = [1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] as const;

export const ChipSubmissionIn = (maxB64: number) =>
  Type.Object(
    {
      sod: Base64('EF.SOD as read from the chip (tag 0x77)', maxB64),
      data_groups: Type.Record(
        Type.String({ pattern: '^(1|2|5|6|7|8|9|10|11|12|13|14|15|16)$' }),
        Base64('a data group file as read from the chip (DG1 tag 0x61, DG2 0x75, …)', maxB64),
        {
          description: 'data group number → its file, base64; "1" and "2" are required',
          minProperties: 2,
        },
      ),
      document_signer_certificate: Type.Optional(
        Nullable(Base64('the Document Signer certificate (DER), when EF.SOD does not embed it', 64 * 1024)),
      ),
      active_authentication: Type.Optional(
        Nullable(
          Type.Object(
            {
              challenge_id: Uuid,
              signature: Base64("the chip's answer to the challenge's nonce (INTERNAL AUTHENTICATE)", 2048),
            },
            { additionalProperties: false },
          ),
        ),
      ),
    },
    { additionalProperties: false, title: 'ChipSubmissionIn' },
  );
export type ChipSubmissionIn = Static<ReturnType<typeof ChipSubmissionIn>>;

export const ChipSubmissionOut = Type.Object(
  {
    document_id: Uuid,
    chip_status: Type.Literal('pending'),
    data_groups: Type.Array(Type.Integer()),
    active_authentication: Type.Boolean({ description: 'an answer to a challenge was submitted' }),
  },
  { title: 'ChipSubmissionOut' },
);

export const ChipChallengeOut = Type.Object(
  {
    id: Uuid,
    document_id: Uuid,
    nonce: Type.String({
      description: '8 random bytes, hex: the challenge to send to the chip',
      pattern: '^[0-9a-f]{16}$',
    }),
    expires_at: Timestamp,
  },
  { title: 'ChipChallengeOut' },
);

// ---- the trust store -------------------------------------------------------------------------------------

export const TrustStoreFileIn = (maxB64: number) =>
  Type.Object(
    { data: Base64('the file as obtained (DER, or PEM for certificates and CRLs), base64', maxB64) },
    { additionalProperties: false, title: 'TrustStoreFileIn' },
  );
export type TrustStoreFileIn = Static<ReturnType<typeof TrustStoreFileIn>>;

export const TrustStoreEntryKind = StringEnum(['csca', 'crl'] as const, { title: 'TrustStoreEntryKind' });

export const TrustStoreEntry = Type.Object(
  {
    id: Uuid,
    kind: TrustStoreEntryKind,
    country: Type.String({ description: 'ISO 3166-1 alpha-2 (the C of the subject, of the CRL issuer)' }),
    subject: Type.String(),
    issuer: Type.String(),
    serial_number: Nullable(Type.String()),
    not_before: Timestamp,
    not_after: NullableTimestamp,
    valid_now: Type.Boolean({
      description: 'certificates: within validity now; CRLs: nextUpdate not passed',
    }),
    fingerprint_sha256: Type.String(),
    source: StringEnum(['master_list', 'upload'] as const),
    source_details: Type.Record(Type.String(), Type.Unknown()),
    added_in_version: Type.Integer(),
    removed_in_version: Nullable(Type.Integer()),
  },
  { title: 'TrustStoreEntry' },
);
export type TrustStoreEntry = Static<typeof TrustStoreEntry>;

export const TrustStoreListQuery = Type.Object(
  {
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    kind: Type.Optional(TrustStoreEntryKind),
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'the store as of this version (default: now)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TrustStoreListOut = Type.Object(
  {
    version: Type.Integer({ description: 'the version listed (0: nothing was ever loaded)' }),
    items: Type.Array(TrustStoreEntry),
  },
  { title: 'TrustStoreList' },
);

export const TrustStoreChangeOut = Type.Object(
  {
    version: Type.Integer(),
    added: Type.Array(TrustStoreEntry),
    already_present: Type.Integer({ description: 'entries of the file the store held already' }),
    removed: Type.Array(TrustStoreEntry),
    skipped: Type.Array(Type.String(), {
      description: 'entries of a master list that are not readable certificates',
    }),
    master_list: Type.Optional(
      Type.Object({
        signer: Type.String(),
        signer_issuer: StringEnum(['trust_store', 'master_list'] as const),
        signing_time: NullableTimestamp,
      }),
    ),
  },
  { title: 'TrustStoreChange' },
);

export const TrustStoreVersionsOut = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        version: Type.Integer(),
        change: Type.String(),
        details: Type.Record(Type.String(), Type.Unknown()),
        created_at: Timestamp,
      }),
    ),
  },
  { title: 'TrustStoreVersions' },
);
