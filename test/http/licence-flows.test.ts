import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Licence,
  licenceBack,
  licenceFront,
  licencePayload,
  photograph,
} from '../../bench/licence-images.js';
import type { ApiCheck, ApiFlow } from '../helpers/api-types.js';
import { face, HAS_IDENTITY_DATA } from '../helpers/identity-images.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { uploadDocument } from '../helpers/uploads.js';

// Driving licences end to end through HTTP: a front (portrait, printed fields) and a back (PDF417 of an AAMVA
// payload) rendered and photographed in software at test time, uploaded with presigned PUTs, read on the identity
// pool (zxing-wasm, tesseract's LSTM engine on the front, face-api), checked and decided.

type Check = ApiCheck<{
  sub_checks?: { name: string; passed: boolean | null; value: unknown; error?: string }[];
}>;
type Flow = ApiFlow<Check['evidence']>;

let t: TestApp;
let acme: Tenant;

const OPEN = ['PENDING', 'AWAITING_INPUT', 'PROCESSING'];
const getFlow = (id: string) => call<Flow>(t.url, 'GET', `/v1/flows/${id}`, { token: acme.secret_key });
const checkOf = (f: Flow, type: string) => f.checks.find((c) => c.check_type === type);
const sub = (c: Check | undefined, name: string) => c?.evidence.sub_checks?.find((s) => s.name === name);

const IMG2_FACE = { left: 560, top: 170, width: 420, height: 560 };
const year = new Date().getUTCFullYear();
const anna: Licence = {
  issuer: '636014',
  jurisdiction: 'CA',
  version: 9,
  number: 'D7319264',
  family: 'ERIKSSON',
  first: 'ANNA',
  middle: 'MARIA',
  birth: '1974-08-12',
  expiry: `${year + 4}-08-12`,
  issued: `${year - 1}-08-12`,
  sex: 'F',
  street: '1234 MAIN ST',
  city: 'SACRAMENTO',
  postal: '958220000',
};
const applicant = {
  legal_name_first: 'Anna Maria',
  legal_name_last: 'Eriksson',
  dob: anna.birth,
  consent: { biometric: true },
};

async function flow(body: Record<string, unknown>): Promise<string> {
  const f = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { template_slug: 'licence', ...body },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  expect(
    (await call(t.url, 'POST', `/v1/flows/${f.body.id}/process`, { token: acme.secret_key })).status,
  ).toBe(202);
  return f.body.id;
}

const upload = (flowId: string, docType: string, side: string, bytes: Buffer) =>
  uploadDocument(t.url, acme.secret_key, flowId, { doc_type: docType, side, mime_type: 'image/jpeg' }, bytes);

async function decided(id: string): Promise<Flow> {
  const until = Date.now() + 240_000;
  for (;;) {
    const r = await getFlow(id);
    if (!OPEN.includes(r.body.status) || Date.now() > until) {
      expect(OPEN).not.toContain(r.body.status);
      return r.body;
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

/** A licence flow with its front, back and selfie uploaded. */
async function licenceFlow(
  l: Licence,
  back: Buffer,
  who: Record<string, unknown> = applicant,
  selfie = 'img4.jpg',
): Promise<string> {
  const id = await flow({ applicant: who });
  const front = await photograph(await licenceFront(l, face('img2.jpg'), IMG2_FACE), {
    rotate: -3,
    jpeg: 85,
  });
  await upload(id, 'driving_license', 'front', front);
  await upload(id, 'driving_license', 'back', back);
  await upload(id, 'selfie', 'single', await readFile(face(selfie)));
  return id;
}

describe.skipIf(!HAS_IDENTITY_DATA)('driving licences: two sides, one document', () => {
  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t, { name: 'Acme', plan: 'self_serve' });
    const r = await call(t.url, 'POST', '/v1/flow_templates', {
      token: acme.secret_key,
      body: {
        slug: 'licence',
        name: 'US driving licence',
        required_checks: ['document', 'selfie'],
        allowed_document_types: ['driving_license'],
        allowed_issuing_countries: ['USA'],
        required_documents: [
          { min: 1, side: 'front', types: ['driving_license'] },
          { min: 1, side: 'back', types: ['driving_license'] },
        ],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a photographed licence and its holder: APPROVED, the barcode fields extracted, the selfie matched to the front', async () => {
    // the back turned, in perspective, blurred and compressed, as a phone takes it
    const back = await photograph(await licenceBack(anna), {
      rotate: 6,
      perspective: 0.08,
      blur: 1,
      jpeg: 60,
      width: 900,
    });
    const f = await decided(await licenceFlow(anna, back));
    const doc = checkOf(f, 'document');
    expect(doc?.evidence.sub_checks?.filter((s) => s.passed === false)).toEqual([]);
    expect(sub(doc, 'barcode_parsed')).toMatchObject({ passed: true });
    expect(sub(doc, 'issuing_country_allowed')).toMatchObject({
      passed: true,
      value: { country: 'USA', jurisdiction: 'CA' },
    });
    expect(sub(doc, 'face_present')).toMatchObject({ passed: true });
    // the printed front agrees with the barcode, or is labelled unverified — never a confirmation it did not get
    const front = sub(doc, 'front_matches_data');
    expect([true, null]).toContain(front?.passed);
    expect(front?.value).toMatchObject({ unverified: front?.passed !== true });
    const selfie = checkOf(f, 'selfie');
    expect(sub(selfie, 'face_match')).toMatchObject({ passed: true });
    expect(f).toMatchObject({ status: 'APPROVED', decision_reason_codes: [] });
    expect(f.extracted_fields).toMatchObject({
      document_type: 'driving_license',
      document_number: anna.number,
      surname: 'ERIKSSON',
      given_names: 'ANNA MARIA',
      birth_date: anna.birth,
      expiry_date: anna.expiry,
      issuing_country: 'USA',
      issuing_jurisdiction: 'CA',
      address_city: 'SACRAMENTO',
    });
    // shape B's extracted_field_sources: every field read from the barcode says so
    const [row] = await t.app.sql<{ extracted_field_sources: Record<string, string> }[]>`
      select extracted_field_sources from flows where id = ${f.id}`;
    expect(row?.extracted_field_sources).toMatchObject({
      surname: 'barcode',
      birth_date: 'barcode',
      document_number: 'barcode',
    });
  }, 300_000);

  it('an expired licence is REJECTED; a name that is not the applicant’s goes to review', async () => {
    const expired = { ...anna, expiry: `${year - 1}-08-12`, issued: `${year - 9}-08-12` };
    const e = await licenceFlow(expired, await photograph(await licenceBack(expired), { jpeg: 80 }));
    const other = { ...applicant, legal_name_first: 'John', legal_name_last: 'Smith' };
    const m = await licenceFlow(anna, await photograph(await licenceBack(anna), { jpeg: 80 }), other);
    const [ef, mf] = await Promise.all([decided(e), decided(m)]);
    expect(sub(checkOf(ef, 'document'), 'not_expired')).toMatchObject({
      passed: false,
      value: expired.expiry,
    });
    expect(ef.status).toBe('REJECTED');
    expect(ef.decision_reason_codes).toContain('document_expired');
    expect(sub(checkOf(mf, 'document'), 'name_matches_applicant')).toMatchObject({ passed: false });
    expect(mf.status).toBe('NEEDS_REVIEW');
    expect(mf.decision_reason_codes).toContain('document_data_mismatch');
  }, 300_000);

  it('a back without a readable barcode, and a barcode that is no AAMVA payload: document_unreadable, the worker unharmed', async () => {
    // the back's barcode covered: nothing to decode
    const plain = await photograph(await licenceBack(anna, 'NOT A LICENCE'), { blur: 9 });
    const u = await licenceFlow(anna, plain);
    // a PDF417 that decodes but holds a cut, corrupt AAMVA payload
    const corrupt = `${licencePayload(anna).slice(0, 30)}\u0000\u00ff\u00fe garbage`;
    const c = await licenceFlow(anna, await photograph(await licenceBack(anna, corrupt), { jpeg: 85 }));
    const [uf, cf] = await Promise.all([decided(u), decided(c)]);
    expect(sub(checkOf(uf, 'document'), 'barcode_found')).toMatchObject({ passed: false });
    expect(uf.status).toBe('NEEDS_REVIEW');
    expect(uf.decision_reason_codes).toContain('document_unreadable');
    const parsed = sub(checkOf(cf, 'document'), 'barcode_parsed');
    expect(parsed).toMatchObject({ passed: false });
    expect(parsed?.error).toMatch(/^barcode_not_aamva/);
    expect(cf.decision_reason_codes).toContain('document_unreadable');
    // the identity worker still reads: a fresh licence flow after them is decided
    const again = await decided(await licenceFlow(anna, await photograph(await licenceBack(anna), {})));
    expect(again.status).toBe('APPROVED');
  }, 400_000);
});
