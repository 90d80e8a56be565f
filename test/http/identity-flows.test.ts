import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCheck, ApiFlow } from '../helpers/api-types.js';
import {
  face,
  HAS_IDENTITY_DATA,
  SPECIMEN_TD2,
  SPECIMEN_TD3,
  syntheticPassport,
} from '../helpers/identity-images.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { uploadDocument } from '../helpers/uploads.js';

// Document and selfie checks end to end through HTTP: presigned upload to the embedded S3, verification, reading on
// the identity pool (tesseract.js + face-api on a worker), the checks, the rules, erasure.

type Check = ApiCheck<{ sub_checks?: { name: string; passed: boolean | null; value: unknown }[] }> & {
  run_key?: string;
};
type Flow = ApiFlow<Check['evidence']>;

let t: TestApp;
let acme: Tenant;
let listDir: string;

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

const getFlow = (id: string) => call<Flow>(t.url, 'GET', `/v1/flows/${id}`, { token: acme.secret_key });
const OPEN = ['PENDING', 'AWAITING_INPUT', 'PROCESSING'];

async function template(slug: string, body: Record<string, unknown>) {
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    token: acme.secret_key,
    body: { slug, name: slug, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

/** An async flow on `slug`, processed once: it waits for its uploads. */
async function awaitingFlow(
  slug: string,
  applicant: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const f = await call<Flow>(t.url, 'POST', '/v1/flows', {
    token: acme.secret_key,
    body: { template_slug: slug, applicant, ...extra },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  expect(
    (await call(t.url, 'POST', `/v1/flows/${f.body.id}/process`, { token: acme.secret_key })).status,
  ).toBe(202);
  const w = await waitFor(
    () => getFlow(f.body.id),
    (r) => r.body.status !== 'PROCESSING',
  );
  expect(w.body.status).toBe('AWAITING_INPUT');
  return f.body.id;
}

/** Registers, PUTs (presigned) and completes one upload. */
const upload = (flowId: string, docType: string, bytes: Buffer, mime = 'image/jpeg') =>
  uploadDocument(t.url, acme.secret_key, flowId, { doc_type: docType, mime_type: mime }, bytes);

async function decided(flowId: string): Promise<Flow> {
  const r = await waitFor(
    () => getFlow(flowId),
    (x) => !OPEN.includes(x.body.status),
  );
  expect(OPEN).not.toContain(r.body.status);
  return r.body;
}

const checkOf = (f: Flow, type: string, applicantName?: string) =>
  f.checks.find(
    (c) => c.check_type === type && (applicantName === undefined || c.applicant_name === applicantName),
  );
const sub = (c: Check | undefined, name: string) => c?.evidence.sub_checks?.find((s) => s.name === name);

const anna = { legal_name_first: 'Anna Maria', legal_name_last: 'Eriksson', dob: '1974-08-12' };
// img2 / img4 are one person in deepface's pairs; img17 another; couple.jpg has two faces
const IMG2_FACE = { left: 560, top: 170, width: 420, height: 560 };

describe.skipIf(!HAS_IDENTITY_DATA)('identity verification flows', () => {
  beforeAll(async () => {
    // the demo list plus one listed person whose specimen passport the tests upload
    listDir = await mkdtemp(join(tmpdir(), 'vs-idlist-'));
    const demo = join(REPO_ROOT, 'ingest', 'fixtures', 'demo');
    for (const f of ['sdn', 'alt', 'add', 'sdn_comments']) {
      await writeFile(join(listDir, `idtest-${f}.csv`), await readFile(join(demo, `demo-${f}.csv`)));
    }
    const sdn = await readFile(join(demo, 'demo-sdn.csv'), 'utf8');
    await writeFile(
      join(listDir, 'idtest-sdn.csv'),
      `${sdn.trimEnd()}\n990001,"ERIKSSON, Anna Maria","individual","DEMO",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"FICTIONAL TEST ENTRY; DOB 12 Aug 1974; Gender Female."\n`,
    );
    t = await startTestApp({
      sources: [{ format: 'ofac_sdn_csv', uri: listDir }],
      env: { DOCUMENT_MAX_BYTES: '1000000' },
    });
    acme = await createTenant(t, { name: 'Acme', plan: 'self_serve' });
    await template('passport', {
      required_checks: ['aml_screen', 'document'],
      allowed_document_types: ['passport'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    });
    await template('selfie-only', { required_checks: ['selfie'] });
    await template('passport-selfie', {
      required_checks: ['aml_screen', 'document', 'selfie'],
      allowed_document_types: ['passport', 'id_card'],
      required_documents: [{ min: 1, side: 'single', types: ['passport', 'id_card'] }],
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    if (listDir) await rm(listDir, { recursive: true, force: true });
  });

  it('a document flow: awaits its passport, resumes once it is read, decides once, charges once', async () => {
    const before = await t.app.sql<
      { consumed: number }[]
    >`select consumed from tenants where id = ${acme.id}`;
    // datasets: pep only, so that this applicant's own listing (sanctions) stays out of this case
    const id = await awaitingFlow('passport', anna, { datasets: ['pep'] });
    // another /process while it waits: not charged, nothing screened again
    expect((await call(t.url, 'POST', `/v1/flows/${id}/process`, { token: acme.secret_key })).status).toBe(
      202,
    );
    const again = await waitFor(
      () => getFlow(id),
      (r) => r.body.status !== 'PROCESSING',
    );
    expect(again.body.status).toBe('AWAITING_INPUT');
    expect(again.body.checks.filter((c) => c.check_type === 'aml_screen')).toHaveLength(1);

    const docId = await upload(id, 'passport', await readFile(SPECIMEN_TD3), 'image/png');
    const f = await decided(id);
    const doc = checkOf(f, 'document');
    expect(doc?.evidence.reading).toMatchObject({
      mrz: { format: 'TD3', surname: 'ERIKSSON', given_names: 'ANNA MARIA', document_number: 'L898902C3' },
      check_digits_valid: true,
      accepted: true,
    });
    expect(sub(doc, 'mrz_found')?.passed).toBe(true);
    expect(sub(doc, 'name_matches_applicant')?.passed).toBe(true);
    expect(sub(doc, 'dob_matches_applicant')?.passed).toBe(true);
    expect(sub(doc, 'face_present')?.passed).toBe(true);
    // the ICAO specimen expired on 2012-04-15: an accepted reading of an expired document is rejected
    expect(sub(doc, 'not_expired')).toMatchObject({ passed: false, value: '2012-04-15' });
    expect(doc?.reason_codes).toContain('document_expired');
    expect(f.status).toBe('REJECTED');
    expect(f.decision_reason_codes).toContain('document_expired');
    // one aml_screen only: the document states the applicant's own name and date of birth
    expect(f.checks.filter((c) => c.check_type === 'aml_screen')).toHaveLength(1);
    expect(f.documents).toEqual([
      expect.objectContaining({
        id: docId,
        doc_type: 'passport',
        upload_status: 'verified',
        analysis_status: 'done',
      }),
    ]);
    expect(f.extracted_fields).toMatchObject({
      surname: 'ERIKSSON',
      given_names: 'ANNA MARIA',
      birth_date: '1974-08-12',
      expiry_date: '2012-04-15',
      issuing_country: 'UTO',
    });
    const events = await t.app.sql<{ type: string }[]>`
      select type from outbox_events where resource_id = ${id} and type = 'flow.decided'`;
    expect(events).toHaveLength(1);
    const after = await t.app.sql<{ consumed: number }[]>`select consumed from tenants where id = ${acme.id}`;
    expect((after[0]?.consumed ?? 0) - (before[0]?.consumed ?? 0)).toBe(1);
    // shape B (the AML rerun's answer) names where each extracted field came from
    const b = await call<{ extracted_field_sources: Record<string, string> }>(
      t.url,
      'POST',
      `/v1/flows/${id}/checks/aml_screen/rerun`,
      { token: acme.secret_key },
    );
    expect(b.status).toBe(200);
    expect(b.body.extracted_field_sources).toMatchObject({ surname: 'mrz', birth_date: 'mrz' });
  });

  it("a typed name that is not the document's: data mismatch, and the passport's listed holder is screened too", async () => {
    const id = await awaitingFlow('passport', { legal_name_first: 'John', legal_name_last: 'Smith' });
    await upload(id, 'passport', await readFile(SPECIMEN_TD3), 'image/png');
    const f = await decided(id);
    const doc = checkOf(f, 'document');
    expect(sub(doc, 'name_matches_applicant')?.passed).toBe(false);
    expect(doc?.reason_codes).toContain('document_data_mismatch');
    const typed = checkOf(f, 'aml_screen', 'John Smith');
    expect(typed?.result).toBe('clear');
    const fromDoc = checkOf(f, 'aml_screen', 'ANNA MARIA ERIKSSON');
    expect(fromDoc?.result).toBe('hit');
    expect(fromDoc?.evidence.subject_source).toBe('document');
    expect(f.decision_reason_codes).toEqual(
      expect.arrayContaining(['document_data_mismatch', 'aml_sanctions_match', 'document_expired']),
    );
  });

  it('refuses a document type the template forbids at upload, and rejects one whose MRZ says so', async () => {
    const id = await awaitingFlow('passport', anna, { datasets: ['pep'] });
    const bad = await call<{ detail: { loc: unknown[]; type: string }[] }>(
      t.url,
      'POST',
      `/v1/flows/${id}/documents`,
      { token: acme.secret_key, body: { doc_type: 'id_card' } },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'doc_type'], type: 'not_allowed' });
    // larger than DOCUMENT_MAX_BYTES: rejected from its size alone, never downloaded nor decoded
    const big = await upload(
      id,
      'passport',
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(1_100_000)]),
    );
    const rejected = await waitFor(
      () =>
        call<{ upload_status: string; rejection_reason: string | null }>(
          t.url,
          'GET',
          `/v1/flows/${id}/documents/${big}`,
          { token: acme.secret_key },
        ),
      (r) => r.body.upload_status !== 'uploaded',
    );
    expect(rejected.body).toMatchObject({ upload_status: 'rejected', rejection_reason: 'too_large' });
    expect(await t.app.sql`select 1 from document_readings where document_id = ${big}`).toHaveLength(0);
    // declared a passport, but the MRZ is a TD2 identity card (I<)
    await upload(id, 'passport', await readFile(SPECIMEN_TD2));
    const f = await decided(id);
    const doc = checkOf(f, 'document');
    expect(sub(doc, 'document_type_allowed')).toMatchObject({ passed: false });
    expect(doc?.reason_codes).toContain('document_type_not_allowed');
    expect(f.status).toBe('REJECTED');
  });

  it('an unreadable image and a corrupt file go to review, never to approval', async () => {
    const unreadable = await awaitingFlow('passport', anna, { datasets: ['pep'] });
    // a photo of a face is a fine JPEG without any MRZ
    await upload(unreadable, 'passport', await readFile(face('img17.jpg')));
    const corrupt = await awaitingFlow('passport', anna, { datasets: ['pep'] });
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(4000, 0x5a)]);
    await upload(corrupt, 'passport', bytes);
    for (const id of [unreadable, corrupt]) {
      const f = await decided(id);
      expect(f.status).toBe('NEEDS_REVIEW');
      expect(checkOf(f, 'document')?.reason_codes).toContain('document_unreadable');
      expect(sub(checkOf(f, 'document'), 'mrz_found')?.passed).toBe(false);
    }
  });

  it('refuses a selfie template flow whose applicant said no to biometrics (absent consent waits for it)', async () => {
    const r = await call<{ error: { code: string }; detail: { loc: string[] }[] }>(
      t.url,
      'POST',
      '/v1/flows',
      {
        token: acme.secret_key,
        body: { template_slug: 'passport-selfie', applicant: { ...anna, consent: { biometric: false } } },
      },
    );
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('biometric_consent_required');
    expect(r.body.detail[0]?.loc).toEqual(['body', 'applicant', 'consent', 'biometric']);
  });

  let sameFlow: Flow;
  it('document + selfie: an unexpired passport and its holder are APPROVED; another person and two faces are not', async () => {
    const withConsent = { ...anna, consent: { biometric: true } };
    // a passport page rendered now, valid for five more years, with img2's face as its portrait (the specimens of
    // ../shared/data all expired in 2012); selfies: img4 (same person), img17 (another person)
    const expiry = `${new Date().getUTCFullYear() + 5}-06-30`;
    const doc = await syntheticPassport(
      {
        surname: 'ERIKSSON',
        given_names: 'ANNA MARIA',
        birth_date: anna.dob,
        expiry_date: expiry,
        sex: 'F',
        document_number: 'X73192648',
      },
      face('img2.jpg'),
      IMG2_FACE,
    );
    const ids: string[] = [];
    for (const selfie of ['img4.jpg', 'img17.jpg']) {
      const id = await awaitingFlow('passport-selfie', withConsent, { datasets: ['pep'] });
      await upload(id, 'passport', doc);
      await upload(id, 'selfie', await readFile(face(selfie)));
      ids.push(id);
    }
    // two faces on the selfie (a selfie-only template: no document to read)
    const twoId = await awaitingFlow('selfie-only', withConsent);
    await upload(twoId, 'selfie', await readFile(face('couple.jpg')));
    ids.push(twoId);
    const [same, other, two] = await Promise.all(ids.map((id) => decided(id)));
    // the holder: every document sub-check and the selfie pass, the flow is approved
    const d1 = checkOf(same as Flow, 'document');
    expect(d1?.evidence.reading).toMatchObject({
      mrz: {
        format: 'TD3',
        surname: 'ERIKSSON',
        given_names: 'ANNA MARIA',
        document_number: 'X73192648',
        birth_date: anna.dob,
        expiry_date: expiry,
      },
      check_digits_valid: true,
      accepted: true,
    });
    expect(d1?.evidence.sub_checks?.filter((s) => s.passed !== true)).toEqual([]);
    expect(d1).toMatchObject({ result: 'clear', reason_codes: [] });
    const s1 = checkOf(same as Flow, 'selfie');
    expect(sub(s1, 'one_face')?.passed).toBe(true);
    expect(sub(s1, 'face_match')?.passed).toBe(true);
    expect(s1?.evidence.face_match_score).toBeGreaterThanOrEqual(s1?.evidence.face_match_threshold as number);
    expect(s1).toMatchObject({ result: 'clear', reason_codes: [] });
    expect(same).toMatchObject({ status: 'APPROVED', decision_reason_codes: [] });
    expect(same?.extracted_fields).toMatchObject({ expiry_date: expiry, document_number: 'X73192648' });
    const s2 = checkOf(other as Flow, 'selfie');
    expect(sub(s2, 'face_match')?.passed).toBe(false);
    expect(s2?.reason_codes).toContain('selfie_face_mismatch');
    expect(other?.status).toBe('REJECTED');
    const s3 = checkOf(two as Flow, 'selfie');
    expect(sub(s3, 'one_face')).toMatchObject({ passed: false, value: 2 });
    expect(s3?.reason_codes).toContain('selfie_multiple_faces');
    // embeddings are stored (consent given) and never returned
    const stored = await t.app
      .sql`select 1 from face_embeddings where applicant_id = ${(same as Flow).applicant_id}`;
    expect(stored.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(same)).not.toContain('embedding');
    sameFlow = same as Flow;
  });

  it('erasure of an applicant with a document and a selfie removes the objects, readings and embeddings', async () => {
    const f = sameFlow;
    expect(f).toBeDefined();
    const prefix = `tenants/${acme.id}/applicants/${f.applicant_id}/`;
    const list = () =>
      t.app.store.client
        .send(new ListObjectsV2Command({ Bucket: t.app.store.bucket, Prefix: prefix }))
        .then((r) => r.Contents ?? []);
    expect(await list()).toHaveLength(2);
    const r = await call(t.url, 'DELETE', `/v1/applicants/${f.applicant_id}`, { token: acme.secret_key });
    expect(r.status).toBe(202);
    await waitFor(
      () =>
        t.app.sql<
          { status: string }[]
        >`select status from applicant_erasures where applicant_id = ${f.applicant_id}`,
      (rows) => rows[0]?.status === 'completed',
    );
    expect(await list()).toHaveLength(0);
    expect(
      await t.app.sql`select 1 from document_readings where applicant_id = ${f.applicant_id}`,
    ).toHaveLength(0);
    expect(
      await t.app.sql`select 1 from face_embeddings where applicant_id = ${f.applicant_id}`,
    ).toHaveLength(0);
    expect(await t.app.sql`select 1 from documents where applicant_id = ${f.applicant_id}`).toHaveLength(0);
  });
});
