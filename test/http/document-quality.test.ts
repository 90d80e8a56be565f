import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdf417Png } from '../../bench/licence-images.js';
import type { DocumentQualityOut } from '../../schemas/documents.js';
import { face, HAS_IDENTITY_DATA, syntheticPassport } from '../helpers/identity-images.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { uploadDocument } from '../helpers/uploads.js';

// The synchronous capture-quality verdict (docs/journey.md "Capture quality"): through HTTP, on images uploaded to
// the embedded S3 with the presigned PUT, before `complete`.

/** the answer, as its schema types it */
type Verdict = DocumentQualityOut;

let t: TestApp;
let acme: Tenant;
let other: Tenant;
let flowId: string;
let selfieFlowId: string;

const IMG2_FACE = { left: 560, top: 170, width: 420, height: 560 };

async function flowOn(slug: string, applicant: Record<string, unknown>): Promise<string> {
  const f = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { template_slug: slug, applicant },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  return f.body.id;
}

/** Registers a document and PUTs its bytes (no `complete`); returns its id. */
const uploaded = (flow: string, body: Record<string, unknown>, bytes: Buffer | null) =>
  uploadDocument(t.url, acme.secret_key, flow, { mime_type: 'image/jpeg', ...body }, bytes, false);

const quality = (flow: string, doc: string, token = acme.secret_key) =>
  call<Verdict>(t.url, 'POST', `/v1/flows/${flow}/documents/${doc}/quality`, { token });

describe.skipIf(!HAS_IDENTITY_DATA)('capture-quality verdict', () => {
  let passport: Buffer;
  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t, { name: 'Acme', plan: 'self_serve' });
    other = await createTenant(t, { name: 'Other', plan: 'self_serve' });
    for (const [slug, body] of [
      [
        'docs',
        {
          required_checks: ['document'],
          required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
        },
      ],
      ['selfie', { required_checks: ['selfie'] }],
    ] as const) {
      const r = await call(t.url, 'POST', '/v1/flow_templates', {
        token: acme.secret_key,
        body: { slug, name: slug, ...body },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const anna = { legal_name_first: 'Anna', legal_name_last: 'Eriksson' };
    flowId = await flowOn('docs', anna);
    selfieFlowId = await flowOn('selfie', { ...anna, consent: { biometric: true } });
    passport = await syntheticPassport(
      {
        surname: 'ERIKSSON',
        given_names: 'ANNA',
        birth_date: '1974-08-12',
        expiry_date: '2031-06-30',
        sex: 'F',
        document_number: 'X73192648',
      },
      face('img2.jpg'),
      IMG2_FACE,
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a sharp passport page: ok, its MRZ band and portrait found (no barcode looked for: a passport has none)', async () => {
    const doc = await uploaded(flowId, { doc_type: 'passport' }, passport);
    const r = await quality(flowId, doc);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      reasons: [],
      quality_reasons: [],
      mrz_found: true,
      barcode_found: null,
      face_found: true,
      width: 1334,
      height: 880,
    });
  }, 120_000);

  it('the same page blurred and small: retake, with the catalogue reason and what is wrong', async () => {
    const blurred = await sharp(passport).resize(400).blur(3).jpeg().toBuffer();
    const doc = await uploaded(flowId, { doc_type: 'passport' }, blurred);
    const r = await quality(flowId, doc);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.reasons).toContain('document_quality_low');
    expect(r.body.quality_reasons).toEqual(expect.arrayContaining(['image_blurred']));
    expect(r.body.blur).toBeLessThan(40);
  }, 60_000);

  it("a card's back with a PDF417: barcode found; its front must show a face", async () => {
    const payload = '@\n\x1e\rANSI 636014090002DL00410278ZC03190008DLDAQD1234562\nDCSSAMPLE\nDACALEX\r';
    const code = await pdf417Png(payload, 3);
    const back = await sharp({ create: { width: 1000, height: 640, channels: 3, background: '#f4f1ea' } })
      .composite([{ input: code, left: 60, top: 300 }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const backId = await uploaded(flowId, { doc_type: 'driving_license', side: 'back' }, back);
    const r = await quality(flowId, backId);
    // a back need not show a face: none is looked for
    expect(r.body).toMatchObject({
      ok: true,
      barcode_found: true,
      mrz_found: null,
      faces: null,
      reasons: [],
    });
    // the same image as a front: no portrait on it, and its data is not looked for
    const frontId = await uploaded(flowId, { doc_type: 'driving_license', side: 'front' }, back);
    const f = await quality(flowId, frontId);
    expect(f.body).toMatchObject({
      ok: false,
      face_found: false,
      barcode_found: null,
      mrz_found: null,
      reasons: ['document_no_face'],
    });
  }, 60_000);

  it('a selfie with two faces, and a face photo as a passport (no MRZ)', async () => {
    const couple = await uploaded(selfieFlowId, { doc_type: 'selfie' }, await readFile(face('couple.jpg')));
    const r = await quality(selfieFlowId, couple);
    expect(r.body.reasons).toContain('selfie_multiple_faces');
    expect(r.body.faces ?? 0).toBeGreaterThan(1);
    const notAPassport = await uploaded(flowId, { doc_type: 'passport' }, await readFile(face('img17.jpg')));
    const p = await quality(flowId, notAPassport);
    expect(p.body).toMatchObject({ ok: false, mrz_found: false, barcode_found: null });
    expect(p.body.reasons).toContain('document_unreadable');
  }, 60_000);

  it('a corrupt file is a verdict, not an error; nothing uploaded is a 409; another tenant gets 404', async () => {
    const corrupt = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(4000, 0x5a)]);
    const doc = await uploaded(flowId, { doc_type: 'passport' }, corrupt);
    const r = await quality(flowId, doc);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, reasons: ['document_unreadable'] });
    const empty = await uploaded(flowId, { doc_type: 'passport' }, null);
    const e = await call<{ error: { code: string; details: { reason: string } } }>(
      t.url,
      'POST',
      `/v1/flows/${flowId}/documents/${empty}/quality`,
      { token: acme.secret_key },
    );
    expect(e.status).toBe(409);
    expect(e.body.error).toMatchObject({
      code: 'document_state_conflict',
      details: { reason: 'object_missing' },
    });
    expect((await quality(flowId, doc, other.secret_key)).status).toBe(404);
  }, 60_000);
});
