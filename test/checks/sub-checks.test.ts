// The document and selfie checks' sub-checks as tables: each row run alone on a context that passes it and on one
// that fails it, and the runner's rules (a null result is not recorded, `raise: false` records without raising).
import { describe, expect, it } from 'vitest';
import { SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import { composeAamva, parseAamva } from '../../identity/barcode/aamva.js';
import type { ChipReport } from '../../identity/chip/index.js';
import { barcodeData, type DocumentReading, type MrzFields, mrzData } from '../../identity/document/index.js';
import { runSubChecks, type SubCheckDef } from '../../server/checks/sub-checks.js';
import { DOCUMENT_SUB_CHECKS, type DocumentContext } from '../../server/checks/types/document.js';
import type { FrameEvidence } from '../../server/checks/types/liveness-challenge.js';
import { SELFIE_SUB_CHECKS, type SelfieContext } from '../../server/checks/types/selfie.js';
import type { ChipUpload, ReadUpload } from '../../server/identity/identity-inputs.js';

const mrz: MrzFields = { ...SPECIMEN_TD3, expiry_date: '2030-04-15', optional_data: null };
const quality = { width: 1300, height: 900, blur: 2000, glare: 0, ok: true, reasons: [] };
const reading = {
  mrz,
  check_digits_valid: true,
  accepted: true,
  reasons: [],
  quality,
  lines: [],
  corrected_lines: [],
  agreeing_readings: 2,
  rotation: 0,
  took_ms: 1,
} as DocumentReading;
const face = { box: { x: 0, y: 0, width: 100, height: 120 }, score: 0.99, liveness: 0.8 };
const upload = (over: Partial<ReadUpload> = {}): ReadUpload => ({
  document_id: 'd1',
  doc_type: 'passport',
  side: 'single',
  reading,
  faces: [face],
  face_count: 1,
  image_width: 1300,
  image_height: 900,
  error: null,
  embeddings: [[0.1, 0.2, 0.3]],
  liveness_challenge_id: null,
  pose: null,
  challenge_poses: null,
  challenge_expires_at: null,
  completed_at: null,
  ...over,
});

const doc = (over: Partial<DocumentContext> = {}): DocumentContext => {
  const c = {
    doc: upload(),
    reading,
    mrz,
    accepted: true,
    applicant: { legal_name_first: 'Anna Maria', legal_name_last: 'Eriksson', dob: '1974-08-12' },
    template: { allowed_document_types: [], allowed_issuing_countries: [] },
    now: new Date('2026-01-01T00:00:00Z'),
    ...over,
  };
  // the data follows the MRZ unless given
  return { ...c, data: over.data !== undefined ? over.data : c.mrz ? mrzData(c.mrz) : null };
};

function row<C>(table: SubCheckDef<C>[], name: string): SubCheckDef<C> {
  const r = table.find((d) => d.name === name);
  if (!r) throw new Error(`no sub-check ${name}`);
  return r;
}

describe('document sub-checks', () => {
  it('are recorded in their order', () => {
    expect(DOCUMENT_SUB_CHECKS.map((d) => d.name)).toEqual([
      'mrz_found',
      'barcode_found',
      'barcode_parsed',
      'check_digits_valid',
      'reading_accepted',
      'not_expired',
      'document_type_allowed',
      'issuing_country_allowed',
      'name_matches_applicant',
      'dob_matches_applicant',
      'front_matches_data',
      'image_quality',
      'face_present',
      'chip_read',
      'chip_data_integrity',
      'chip_signature',
      'chip_certificate_chain',
      'chip_active_authentication',
      'chip_mrz_matches_visual',
    ]);
  });

  it('the chip rows: from the chip report, recorded only with a chip, chip_read raising document_chip_missing when required', () => {
    const names = [
      'chip_read',
      'chip_data_integrity',
      'chip_signature',
      'chip_certificate_chain',
      'chip_active_authentication',
    ] as const;
    const report = (failing: string | null) =>
      ({
        verified: failing === null,
        dg1: mrz,
        sub_checks: names.map((name) => ({
          name,
          passed: name !== failing,
          value: null,
          reason_code:
            name === 'chip_certificate_chain' ? 'document_chip_untrusted' : 'document_chip_invalid',
        })),
      }) as unknown as ChipReport;
    const chip = (r: ChipReport | null, printed: MrzFields | null = mrz): ChipUpload => ({
      document_id: 'd1',
      report: r,
      verified: !!r?.verified,
      trust_store_version: 1,
      portrait_key: null,
      face_count: 1,
      error: r ? null : 'verification_failed: x',
      embeddings: [],
      printed,
    });
    const chipRows = DOCUMENT_SUB_CHECKS.filter((d) => d.name.startsWith('chip_'));
    expect(runSubChecks(chipRows, doc()).subs).toEqual([]);
    const ok = runSubChecks(chipRows, doc({ chip: chip(report(null)) }));
    expect(ok.subs.map((x) => [x.name, x.passed])).toEqual(
      [...names, 'chip_mrz_matches_visual'].map((n) => [n, true]),
    );
    expect(ok.signals).toEqual([]);
    expect(runSubChecks(chipRows, doc({ chip: chip(report('chip_certificate_chain')) })).signals).toEqual([
      'document_chip_untrusted',
    ]);
    expect(
      runSubChecks(chipRows, doc({ chip: chip(report(null), { ...mrz, document_number: 'X1' }) })).signals,
    ).toEqual(['document_chip_mismatch']);
    expect(runSubChecks(chipRows, doc({ chip: chip(null) })).signals).toEqual(['document_chip_unreadable']);
    const required = doc({
      template: {
        allowed_document_types: [],
        allowed_issuing_countries: [],
        passport_nfc_behavior: 'required',
      },
    });
    expect(runSubChecks(chipRows, required)).toMatchObject({
      subs: [{ name: 'chip_read', passed: false }],
      signals: ['document_chip_missing'],
    });
  });

  const expired = { ...mrz, expiry_date: '2020-01-01' };
  const unaccepted = { ...reading, accepted: false, reasons: ['readings_disagree'] };
  it.each([
    ['mrz_found', doc(), doc({ mrz: null }), true],
    ['check_digits_valid', doc(), doc({ reading: { ...reading, check_digits_valid: false } }), true],
    ['reading_accepted', doc(), doc({ reading: unaccepted, accepted: false }), true],
    ['not_expired', doc(), doc({ mrz: expired }), true],
    ['not_expired', doc(), doc({ mrz: expired, accepted: false }), false],
    ['document_type_allowed', doc(), doc({ mrz: { ...mrz, document_type: 'V' } }), true],
    [
      'issuing_country_allowed',
      doc(),
      doc({ template: { allowed_document_types: [], allowed_issuing_countries: ['DEU'] } }),
      true,
    ],
    [
      'name_matches_applicant',
      doc(),
      doc({ applicant: { legal_name_first: 'John', legal_name_last: 'Smith' } }),
      true,
    ],
    [
      'dob_matches_applicant',
      doc(),
      doc({ applicant: { legal_name_last: 'Eriksson', dob: '1970-01-01' } }),
      true,
    ],
    ['image_quality', doc(), doc({ reading: { ...reading, quality: { ...quality, ok: false } } }), true],
    ['face_present', doc(), doc({ doc: upload({ face_count: 0, faces: [] }) }), true],
  ] as const)('%s passes, then fails (raises: %s)', (name, good, bad, raises) => {
    const def = row(DOCUMENT_SUB_CHECKS, name);
    expect(runSubChecks([def], good)).toMatchObject({ signals: [], subs: [{ name, passed: true }] });
    const failed = runSubChecks([def], bad);
    expect(failed.subs).toMatchObject([{ name, passed: false, reason_code: def.reason_code }]);
    expect(failed.signals).toEqual(raises ? [def.reason_code] : []);
  });

  it('the MRZ sub-checks are not recorded without an MRZ; an undecodable file names its error', () => {
    const none = runSubChecks(
      DOCUMENT_SUB_CHECKS,
      doc({ mrz: null, reading: null, doc: upload({ error: 'x' }) }),
    );
    expect(none.subs.map((s) => s.name)).toEqual(['mrz_found', 'face_present']);
    expect(none.subs[0]).toMatchObject({ error: 'x' });
    expect(none.signals).toEqual(['document_unreadable']);
  });
});

describe('licence sub-checks (barcode on the back, portrait and printed text on the front)', () => {
  const aamva = parseAamva(
    composeAamva({
      issuer: '636014',
      version: 9,
      elements: [
        ['DAQ', 'D1234567'],
        ['DCS', 'ERIKSSON'],
        ['DAC', 'ANNA'],
        ['DAD', 'MARIA'],
        ['DBB', '08121974'],
        ['DBA', '08122031'],
        ['DCG', 'USA'],
      ],
    }),
  );
  if (!aamva.ok) throw new Error(aamva.error);
  const barcode = { format: 'PDF417' as const, aamva: aamva.fields, missing: [], error: null };
  const back = { ...reading, mrz: null, barcode, check_digits_valid: false };
  const licence = (over: Partial<DocumentContext> = {}) =>
    doc({
      doc: upload({ doc_type: 'driving_license', side: 'back', reading: back, face_count: 0, faces: [] }),
      reading: back,
      mrz: null,
      data: barcodeData(aamva.fields),
      portrait: upload({ doc_type: 'driving_license', side: 'front' }),
      ...over,
    });
  const front = (text: string) =>
    upload({ side: 'front', reading: { ...reading, mrz: null, front_text: text } });
  const printed = 'CA DRIVER LICENSE DL D1234567 LN ERIKSSON FN ANNA MARIA DOB 08/12/1974 EXP 08/12/2031';

  it('a read licence passes every row that applies; the MRZ rows do not apply', () => {
    const r = runSubChecks(DOCUMENT_SUB_CHECKS, licence({ front: front(printed) }));
    expect(r.signals).toEqual([]);
    expect(r.subs.map((x) => x.name)).not.toContain('mrz_found');
    expect(r.subs.find((x) => x.name === 'issuing_country_allowed')?.value).toEqual({
      country: 'USA',
      jurisdiction: 'CA',
    });
    expect(r.subs.find((x) => x.name === 'face_present')).toMatchObject({ passed: true, value: 1 });
  });

  it.each([
    ['barcode_found', licence({ reading: { ...back, barcode: null }, data: null })],
    [
      'barcode_parsed',
      licence({
        reading: {
          ...back,
          barcode: { format: 'PDF417', aamva: null, missing: [], error: 'barcode_not_aamva: x' },
        },
        data: null,
      }),
    ],
  ] as const)('%s fails: document_unreadable', (name, ctx) => {
    const r = runSubChecks(DOCUMENT_SUB_CHECKS, ctx);
    expect(r.subs.find((x) => x.name === name)).toMatchObject({ passed: false });
    expect(r.signals).toEqual(['document_unreadable']);
  });

  it.each([
    ['the front printing the same holder', printed, true],
    ['a front read with one slip in the surname', printed.replace('ERIKSSON', 'ERIKSS0N'), true],
    ['another holder printed on the front', 'CA DRIVER LICENSE LN JOHNSON FN PETER DOB 01/02/1960', false],
    ['only the surname found', printed.replace('08/12/1974', ''), null],
    ['an unreadable front', '~~ ..', null],
  ])('front against the barcode: %s → %s', (_what, text, passed) => {
    const r = runSubChecks(DOCUMENT_SUB_CHECKS, licence({ front: front(text) }));
    expect(r.subs.find((x) => x.name === 'front_matches_data')).toMatchObject({
      passed,
      value: expect.objectContaining({ unverified: passed !== true }),
    });
    expect(r.signals).toEqual(passed === false ? ['document_data_mismatch'] : []);
  });
});

const selfie = (over: Partial<SelfieContext> = {}): SelfieContext => ({
  inputs: {
    document: upload(),
    selfie: upload({ doc_type: 'selfie' }),
    challenge: undefined,
    documents: [upload()],
  },
  consent: true,
  policy: { face_match_threshold: 0.44, liveness_review_threshold: 0.4 },
  selfie: upload({ doc_type: 'selfie' }),
  challenge: null,
  ...over,
});

/** A judged liveness challenge whose every frame passes, with `frame` changed in its `left` frame. */
const judged = (frame: Partial<FrameEvidence> = {}, front_matches_document: boolean | null = true) => ({
  challenge_id: 'c1',
  poses: ['front', 'left', 'up', 'right'],
  expires_at: '2026-01-01T00:05:00.000Z',
  frames: ['front', 'left', 'up', 'right'].map((pose) => ({
    pose,
    document_id: `d-${pose}`,
    face_count: 1,
    yaw: 0,
    pitch: 0,
    pose_shown: true,
    similarity: 0.8,
    same_person: true,
    in_time: true,
    ...(pose === 'left' ? frame : {}),
  })),
  front_matches_document,
});

describe('selfie sub-checks', () => {
  const two = upload({ doc_type: 'selfie', face_count: 2, faces: [face, face], embeddings: [[0], [1]] });
  const other = upload({ doc_type: 'selfie', embeddings: [[0.9, 0.9, 0.9]] });
  it.each([
    ['biometric_consent', selfie(), selfie({ consent: false }), 'biometric_consent_missing'],
    ['one_face', selfie(), selfie({ selfie: upload({ face_count: 0, faces: [] }) }), 'selfie_no_face'],
    ['one_face', selfie(), selfie({ selfie: two }), 'selfie_multiple_faces'],
    ['one_face', selfie(), selfie({ selfie: undefined }), 'selfie_no_face'],
    [
      'document_portrait',
      selfie(),
      selfie({
        inputs: {
          document: upload({ faces: [], face_count: 0 }),
          selfie: undefined,
          challenge: undefined,
          documents: [],
        },
      }),
      'selfie_no_document_face',
    ],
    ['face_match', selfie(), selfie({ selfie: other }), 'selfie_face_mismatch'],
    [
      'liveness_advisory',
      selfie(),
      selfie({ selfie: upload({ faces: [{ ...face, liveness: 0.1 }] }) }),
      'selfie_liveness_low',
    ],
    [
      'liveness_challenge',
      selfie({ challenge: judged() }),
      selfie({ challenge: judged({ pose_shown: false }) }),
      'liveness_challenge_failed',
    ],
    [
      'liveness_challenge',
      selfie({ challenge: judged() }),
      selfie({ challenge: judged({ same_person: false }) }),
      'liveness_challenge_failed',
    ],
    [
      'liveness_challenge',
      selfie({ challenge: judged() }),
      selfie({ challenge: judged({}, false) }),
      'liveness_challenge_failed',
    ],
    [
      'liveness_challenge',
      selfie({ challenge: judged({}, null) }),
      selfie({ challenge: judged({ in_time: false }) }),
      'liveness_challenge_expired',
    ],
  ] as const)('%s passes, then fails with %s', (name, good, bad, code) => {
    const def = row(SELFIE_SUB_CHECKS, name);
    expect(runSubChecks([def], good)).toMatchObject({ signals: [], subs: [{ name, passed: true }] });
    expect(runSubChecks([def], bad)).toMatchObject({
      signals: [code],
      subs: [{ name, passed: false, reason_code: code }],
    });
  });

  it('a selfie without a liveness challenge records the challenge as not evaluated, raising nothing', () => {
    expect(runSubChecks([row(SELFIE_SUB_CHECKS, 'liveness_challenge')], selfie())).toEqual({
      signals: [],
      subs: [
        { name: 'liveness_challenge', passed: null, value: null, reason_code: 'liveness_challenge_failed' },
      ],
    });
  });

  it('without consent nothing but the consent is recorded', () => {
    expect(runSubChecks(SELFIE_SUB_CHECKS, selfie({ consent: false })).subs.map((s) => s.name)).toEqual([
      'biometric_consent',
    ]);
  });
});
