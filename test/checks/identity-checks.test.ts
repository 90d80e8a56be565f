// The document and selfie checks over readings (no OCR here: the HTTP tests read real images).
import { describe, expect, it } from 'vitest';
import { SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import type { DocumentReading, MrzFields } from '../../identity/document/index.js';
import { documentCheck, mrzDocumentType } from '../../server/checks/types/document.js';
import { selfieCheck } from '../../server/checks/types/selfie.js';
import type { IdentityInputs, ReadUpload } from '../../server/identity/identity-inputs.js';

// the ICAO specimen, not yet expired
const mrz: MrzFields = { ...SPECIMEN_TD3, expiry_date: '2030-04-15', optional_data: null };
const quality = { width: 1300, height: 900, blur: 2000, glare: 0, ok: true, reasons: [] };
const face = (x: number, embedding: number[], liveness: number | null = 0.8) => ({
  box: { x, y: 0, width: 100, height: 120 },
  score: 0.99,
  liveness,
  embedding,
});

/** A reading as the identity worker returns it (fields the checks do not use kept neutral). */
const reading = (r: Pick<DocumentReading, 'mrz' | 'check_digits_valid' | 'accepted' | 'reasons'>) =>
  ({
    ...r,
    quality,
    lines: [],
    took_ms: 1,
    corrected_lines: [],
    agreeing_readings: 1,
    rotation: 0,
  }) as DocumentReading;

function upload(
  over: Partial<ReadUpload> & { accepted?: boolean; m?: Partial<MrzFields> | null } = {},
): ReadUpload {
  const { accepted = true, m = {}, ...rest } = over;
  return {
    document_id: 'd1',
    doc_type: 'passport',
    side: 'single',
    reading:
      m === null
        ? reading({ mrz: null, check_digits_valid: false, accepted: false, reasons: ['mrz_not_found'] })
        : reading({
            mrz: { ...mrz, ...m },
            check_digits_valid: true,
            accepted,
            reasons: accepted ? [] : ['readings_disagree'],
          }),
    faces: [{ box: { x: 0, y: 0, width: 100, height: 120 }, score: 0.99, liveness: 0.8 }],
    face_count: 1,
    image_width: 1300,
    image_height: 900,
    error: null,
    embeddings: [[0, 0, 0]],
    liveness_challenge_id: null,
    pose: null,
    challenge_poses: null,
    challenge_expires_at: null,
    completed_at: null,
    ...rest,
  };
}
const inputs = (document: ReadUpload | undefined, selfie?: ReadUpload): IdentityInputs => ({
  document,
  selfie,
  challenge: undefined,
  documents: document ? [document] : [],
});
const template = { allowed_document_types: [], allowed_issuing_countries: [] };
const anna = { legal_name_first: 'Anna-Maria', legal_name_last: 'Eriksson', dob: '1974-08-12' };
const now = new Date('2026-01-01T00:00:00Z');

describe('document check', () => {
  it('is clear for an accepted, valid, consistent reading (name by the matcher: hyphen, case)', () => {
    const o = documentCheck(inputs(upload()), anna, template, now);
    expect(o.signals).toEqual([]);
    expect(o.result).toBe('clear');
  });

  it('raises the rejecting codes only from an accepted reading; an unaccepted one goes to review', () => {
    const expired = { m: { expiry_date: '2020-01-01' } };
    expect(documentCheck(inputs(upload(expired)), anna, template, now).signals).toEqual(['document_expired']);
    const unconfirmed = documentCheck(inputs(upload({ ...expired, accepted: false })), anna, template, now);
    expect(unconfirmed.signals).toEqual(['document_reading_unconfirmed']);
  });

  it('checks the MRZ document type and issuing state against the template', () => {
    const t = { allowed_document_types: ['id_card'], allowed_issuing_countries: ['D'] };
    expect(documentCheck(inputs(upload()), anna, t, now).signals.sort()).toEqual([
      'document_country_not_allowed',
      'document_type_not_allowed',
    ]);
    expect(mrzDocumentType('ID')).toBe('id_card');
    expect(mrzDocumentType('V<')).toBe('visa');
    // a visa is never an identity document, even with no allowlist
    expect(documentCheck(inputs(upload({ m: { document_type: 'V' } })), anna, template, now).signals).toEqual(
      ['document_type_not_allowed'],
    );
  });

  it('flags another name or date of birth, no MRZ and no portrait', () => {
    const other = { legal_name_first: 'John', legal_name_last: 'Smith', dob: '1974-08-12' };
    expect(documentCheck(inputs(upload()), other, template, now).signals).toEqual(['document_data_mismatch']);
    const dob = { ...anna, dob: '1975-08-12' };
    expect(documentCheck(inputs(upload()), dob, template, now).signals).toEqual(['document_data_mismatch']);
    expect(documentCheck(inputs(upload({ m: null })), anna, template, now).signals).toEqual([
      'document_unreadable',
    ]);
    const noFace = upload({ faces: [], face_count: 0, embeddings: [] });
    expect(documentCheck(inputs(noFace), anna, template, now).signals).toEqual(['document_no_face']);
    expect(documentCheck(inputs(undefined), anna, template, now).signals).toEqual(['document_unreadable']);
  });
});

describe('selfie check', () => {
  const policy = { face_match_threshold: 0.45, liveness_review_threshold: 0.25 };
  const selfie = (faces: ReturnType<typeof face>[]) =>
    upload({
      doc_type: 'selfie',
      reading: null,
      faces: faces.map(({ embedding: _e, ...f }) => f),
      face_count: faces.length,
      embeddings: faces.map((f) => f.embedding),
    });

  it('matches the selfie against the portrait with the policy threshold, and reports the score', () => {
    const same = selfieCheck(inputs(upload(), selfie([face(0, [0.1, 0, 0])])), true, policy);
    expect(same.signals).toEqual([]);
    expect(same.evidence.face_match_score).toBe(0.9);
    const other = selfieCheck(inputs(upload(), selfie([face(0, [0.7, 0, 0])])), true, policy);
    expect(other.signals).toEqual(['selfie_face_mismatch']);
  });

  it('flags several faces, a low liveness score (review only), no portrait, and no consent', () => {
    const two = selfieCheck(
      inputs(upload(), selfie([face(0, [0, 0, 0]), face(200, [0, 0, 0])])),
      true,
      policy,
    );
    expect(two.signals).toEqual(['selfie_multiple_faces']);
    const low = selfieCheck(inputs(upload(), selfie([face(0, [0, 0, 0], 0.1)])), true, policy);
    expect(low.signals).toEqual(['selfie_liveness_low']);
    const noPortrait = selfieCheck(inputs(undefined, selfie([face(0, [0, 0, 0])])), true, policy);
    expect(noPortrait.signals).toEqual(['selfie_no_document_face']);
    expect(selfieCheck(inputs(upload(), selfie([face(0, [0, 0, 0])])), false, policy).signals).toEqual([
      'biometric_consent_missing',
    ]);
  });
});
