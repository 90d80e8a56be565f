// ePassport chips through HTTP against the real services (issue 28): a `passport_nfc_behavior: required` passport
// flow waits for its chip, gets it (with an Active Authentication answer) and is APPROVED with every chip sub-check
// passed and the selfie matched against the chip's JPEG 2000 portrait; each negative case gives its reason code and
// decision; a master list loaded through the admin API makes an untrusted chip verify; submission errors are clear
// 4xx; erasure removes the chip data.
import { readFile } from 'node:fs/promises';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCheck, ApiFlow } from '../helpers/api-types.js';
import {
  aaSign,
  encodeJ2k,
  jp2File,
  keyPair,
  makeCrl,
  makeCsca,
  makeDg1,
  makeDg2,
  makeDg14,
  makeDg15,
  makeMasterList,
  makeSigner,
  makeSod,
  type Party,
} from '../helpers/chip-fixtures.js';
import { face, HAS_IDENTITY_DATA, syntheticPassport, td3Lines } from '../helpers/identity-images.js';
import { asApplicant, bearerSession, mintLink } from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

interface Sub {
  name: string;
  passed: boolean | null;
  value: unknown;
  reason_code?: string;
}
type Check = ApiCheck<{ sub_checks?: Sub[] }>;
type Flow = ApiFlow<Check['evidence']>;

let t: TestApp;
let acme: Tenant;
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const key = () => ({ token: acme.secret_key });
const getFlow = (id: string) => call<Flow>(t.url, 'GET', `/v1/flows/${id}`, key());
const admin = <T>(method: string, path: string, body?: unknown) =>
  call<T>(t.url, method, path, { admin: t.adminToken, ...(body ? { body } : {}) });

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const OPEN = ['PENDING', 'AWAITING_INPUT', 'PROCESSING'];
const decided = async (id: string) =>
  (
    await waitFor(
      () => getFlow(id),
      (r) => !OPEN.includes(r.body.status),
    )
  ).body;
const documentCheck = (f: Flow) => f.checks.find((c) => c.check_type === 'document');
const subOf = (c: Check | undefined, name: string) => c?.evidence.sub_checks?.find((s) => s.name === name);
const chipSubs = (c: Check | undefined) =>
  (c?.evidence.sub_checks ?? []).filter((s) => s.name.startsWith('chip_'));

async function template(slug: string, body: Record<string, unknown>) {
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    ...key(),
    body: { slug, name: slug, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

async function startFlow(slug: string, applicant: Record<string, unknown>) {
  const f = await call<Flow>(t.url, 'POST', '/v1/flows', {
    ...key(),
    body: { template_slug: slug, applicant },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  expect((await call(t.url, 'POST', `/v1/flows/${f.body.id}/process`, key())).status).toBe(202);
  return f.body.id;
}

interface Registered {
  id: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}

/** Registers a document (presigned PUT instructions). */
async function register(flowId: string, docType: string): Promise<Registered> {
  const c = await call<Registered>(t.url, 'POST', `/v1/flows/${flowId}/documents`, {
    ...key(),
    body: { doc_type: docType, mime_type: 'image/jpeg' },
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return c.body;
}

/** PUTs a registered document's bytes and completes it. */
async function send(flowId: string, doc: Registered, bytes: Buffer) {
  const put = await fetch(doc.upload.url, { method: 'PUT', headers: doc.upload.headers, body: bytes });
  await put.arrayBuffer();
  expect(put.status).toBe(200);
  const done = await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${doc.id}/complete`, key());
  expect(done.status).toBe(202);
  return doc.id;
}

const upload = async (flowId: string, docType: string, bytes: Buffer) =>
  send(flowId, await register(flowId, docType), bytes);

const chipPath = (flowId: string, docId: string) => `/v1/flows/${flowId}/documents/${docId}/chip`;

interface ChipFiles {
  sod: Uint8Array;
  dgs: Record<number, Uint8Array>;
}

const anna = { legal_name_first: 'Anna Maria', legal_name_last: 'Eriksson', dob: '1974-08-12' };
const IMG2_FACE = { left: 560, top: 170, width: 420, height: 560 };
const EXPIRY = `${new Date().getUTCFullYear() + 5}-06-30`;
const PASSPORT = {
  surname: 'ERIKSSON',
  given_names: 'ANNA MARIA',
  birth_date: anna.dob,
  expiry_date: EXPIRY,
  sex: 'F' as const,
  document_number: 'X73192648',
};

let passportImage: Buffer;
let dg2: Uint8Array;
const aa = keyPair('p256', 'http-aa');

/** Anna's chip, signed by `ds`: DG1 (her MRZ, or `mrz`), DG2 (img2's face as JPEG 2000 in a JP2 file), DG14, DG15. */
function chipOf(ds: Party, o: { mrz?: string[]; cutSignature?: number } = {}): ChipFiles {
  const dgs = {
    1: makeDg1(o.mrz ?? td3Lines(PASSPORT)),
    2: dg2,
    14: makeDg14(true),
    15: makeDg15(aa.publicKey),
  };
  const sod = makeSod(ds, dgs, {
    signingTime: new Date(Date.now() - 86_400_000),
    cutSignature: o.cutSignature ?? 0,
  });
  return { sod, dgs };
}

const body = (c: ChipFiles, extra: Record<string, unknown> = {}) => ({
  sod: b64(c.sod),
  data_groups: Object.fromEntries(Object.entries(c.dgs).map(([n, b]) => [n, b64(b)])),
  ...extra,
});

/** A challenge for the document, answered by the chip's AA key (or over `otherNonce`). */
async function answered(flowId: string, docId: string, otherNonce = false) {
  const ch = await call<{ id: string; nonce: string; expires_at: string }>(
    t.url,
    'POST',
    `${chipPath(flowId, docId)}/challenges`,
    key(),
  );
  expect(ch.status, JSON.stringify(ch.body)).toBe(201);
  expect(ch.body.nonce).toMatch(/^[0-9a-f]{16}$/);
  const nonce = otherNonce ? Buffer.from('0102030405060708', 'hex') : Buffer.from(ch.body.nonce, 'hex');
  return { challenge_id: ch.body.id, signature: b64(aaSign(aa.privateKey, nonce)) };
}

async function submit(flowId: string, docId: string, c: ChipFiles, extra: Record<string, unknown> = {}) {
  const r = await call(t.url, 'POST', chipPath(flowId, docId), { ...key(), body: body(c, extra) });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
}

/** A flow on `slug` with the passport uploaded and read (and, for nfc required, waiting for the chip). */
async function passportFlow(slug: string) {
  const id = await startFlow(slug, { ...anna, consent: { biometric: true } });
  const docId = await upload(id, 'passport', passportImage);
  return { id, docId };
}

/** A flow on `slug` whose passport's chip is submitted (answering a challenge) before its image is uploaded. */
async function chipFirstFlow(slug: string, files: ChipFiles, aaOther?: boolean) {
  const id = await startFlow(slug, { ...anna, consent: { biometric: true } });
  const doc = await register(id, 'passport');
  await submit(id, doc.id, files, { active_authentication: await answered(id, doc.id, aaOther) });
  await send(id, doc, passportImage);
  return id;
}

let csca: Party;
let ds: Party;

describe.skipIf(!HAS_IDENTITY_DATA)('ePassport chips through HTTP', () => {
  beforeAll(async () => {
    t = await startTestApp({ env: { DOCUMENT_MAX_BYTES: '1000000' } });
    acme = await createTenant(t, { name: 'Acme', plan: 'contract' });
    const passport = {
      allowed_document_types: ['passport'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    };
    await template('nfc-required', {
      ...passport,
      required_checks: ['document', 'selfie'],
      passport_nfc_behavior: 'required',
    });
    await template('nfc-optional', {
      ...passport,
      required_checks: ['document'],
      passport_nfc_behavior: 'optional',
    });
    await template('nfc-disabled', {
      ...passport,
      required_checks: ['document'],
      passport_nfc_behavior: 'disabled',
    });
    passportImage = await syntheticPassport(PASSPORT, face('img2.jpg'), IMG2_FACE);
    // the chip's portrait: the same photo as the printed one, stored as JPEG 2000 like most chips
    const { data, info } = await sharp(await readFile(face('img2.jpg')))
      .extract(IMG2_FACE)
      .resize(240, 320)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    dg2 = makeDg2(jp2File(await encodeJ2k(data, info.width, info.height)), 1, 240, 320);
    csca = makeCsca({ country: 'UT', cn: 'CSCA Utopia', kind: 'brainpoolP256r1', slot: 'http-csca' });
    ds = makeSigner(
      { country: 'UT', cn: 'DS Utopia', kind: 'brainpoolP256r1', slot: 'http-ds', serial: 77 },
      csca,
    );
    const r = await admin('POST', '/admin/trust_store/cscas', { data: b64(csca.der) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  let approved: Flow;
  it('passport_nfc_behavior required: the flow waits for the chip, gets it, and is APPROVED against the chip portrait', async () => {
    const { id, docId } = await passportFlow('nfc-required');
    await upload(id, 'selfie', await readFile(face('img4.jpg')));
    const waiting = await waitFor(
      () => getFlow(id),
      (r) =>
        r.body.status === 'AWAITING_INPUT' && JSON.stringify(r.body.missing_inputs) === '["document_chip"]',
    );
    expect(waiting.body).toMatchObject({ status: 'AWAITING_INPUT', missing_inputs: ['document_chip'] });
    await submit(id, docId, chipOf(ds), { active_authentication: await answered(id, docId) });
    const f = await decided(id);
    const doc = documentCheck(f);
    expect(chipSubs(doc).map((s) => [s.name, s.passed])).toEqual([
      ['chip_read', true],
      ['chip_data_integrity', true],
      ['chip_signature', true],
      ['chip_certificate_chain', true],
      ['chip_active_authentication', true],
      ['chip_mrz_matches_visual', true],
    ]);
    expect(doc?.evidence.sub_checks?.filter((s) => s.passed !== true)).toEqual([]);
    expect(doc?.evidence).toMatchObject({
      mrz_source: 'chip',
      chip: {
        verified: true,
        trust_store_version: 1,
        signer: { subject: expect.stringContaining('DS Utopia') },
        chip_authentication: 'present_not_verified',
        active_authentication: { passed: true },
        portrait: { face_count: 1 },
      },
    });
    const selfie = f.checks.find((c) => c.check_type === 'selfie');
    expect(selfie?.evidence).toMatchObject({ portrait_source: 'chip' });
    expect(subOf(selfie, 'face_match')?.passed).toBe(true);
    expect(f).toMatchObject({ status: 'APPROVED', decision_reason_codes: [] });
    expect(f.extracted_fields).toMatchObject({ document_number: 'X73192648', surname: 'ERIKSSON' });
    // shape B (the AML rerun's answer) names where each extracted field came from: the chip
    const b = await call<{ extracted_field_sources: Record<string, string> }>(
      t.url,
      'POST',
      `/v1/flows/${id}/checks/aml_screen/rerun`,
      key(),
    );
    expect(b.status).toBe(200);
    expect(new Set(Object.values(b.body.extracted_field_sources))).toEqual(new Set(['chip']));
    // the chip portrait, as an operator sees it
    const p = await call<{ url: string; content_type: string }>(
      t.url,
      'GET',
      `${chipPath(id, docId)}/portrait`,
      key(),
    );
    expect(p.status).toBe(200);
    const img = await fetch(p.body.url);
    expect(await sharp(Buffer.from(await img.arrayBuffer())).metadata()).toMatchObject({
      format: 'jpeg',
      width: 240,
      height: 320,
    });
    approved = f;
  }, 300_000);

  it("the tenant's app with an applicant session submits its own flow's chip, answering a challenge; another flow's chip is 403", async () => {
    const { id, docId } = await passportFlow('nfc-required');
    // the flow was started with /process: a link can be minted once it is back to collecting the applicant's input
    await waitFor(
      () => getFlow(id),
      (r) => r.body.status === 'AWAITING_INPUT',
    );
    // the app opened the verification link and exchanged it for a bearer session, as docs/journey.md says; the open
    // verification session then holds the flow for its submit
    const app = await bearerSession(t, await mintLink(t, acme, id));
    await upload(id, 'selfie', await readFile(face('img4.jpg')));
    const other = await startFlow('nfc-required', { ...anna, consent: { biometric: true } });
    const otherDoc = (await register(other, 'passport')).id;
    const as = <T>(method: string, path: string, b?: unknown) => asApplicant<T>(t, app, method, path, b);
    // another flow's document, by its own path or under this flow's: refused before anything is looked at or written
    for (const [flowId, doc] of [
      [other, otherDoc],
      [other, docId],
    ] as const) {
      for (const path of [`${chipPath(flowId, doc)}/challenges`, chipPath(flowId, doc)]) {
        const r = await as<{ error: { code: string } }>('POST', path, body(chipOf(ds)));
        expect([path, r.status, r.body.error.code]).toEqual([path, 403, 'applicant_session_forbidden']);
      }
    }
    // its own flow with another flow's document id: not found in this flow
    const stray = await as<{ error: { code: string } }>('POST', `${chipPath(id, otherDoc)}/challenges`);
    expect([stray.status, stray.body.error.code]).toEqual([404, 'not_found']);
    expect(
      await t.app.sql`select 1 from chip_challenges where flow_id = ${other}
        union all select 1 from document_chips where flow_id = ${other}`,
    ).toHaveLength(0);
    // the chip portrait is the tenant's and its operators': no applicant credential there
    expect((await as('GET', `${chipPath(id, docId)}/portrait`)).status).toBe(401);

    const ch = await as<{ id: string; nonce: string }>('POST', `${chipPath(id, docId)}/challenges`);
    expect(ch.status, JSON.stringify(ch.body)).toBe(201);
    const signature = b64(aaSign(aa.privateKey, Buffer.from(ch.body.nonce, 'hex')));
    const sent = await as<{ chip_status: string; active_authentication: boolean }>(
      'POST',
      chipPath(id, docId),
      body(chipOf(ds), { active_authentication: { challenge_id: ch.body.id, signature } }),
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body).toMatchObject({ chip_status: 'pending', active_authentication: true });
    const [audit] = await t.app.sql<{ actor_type: string }[]>`
      select actor_type from audit_log where action = 'document.chip_submitted' and resource_id = ${docId}`;
    expect(audit?.actor_type).toBe('applicant_session');
    // the session's flow waits for its submit (a verification session is open), then decides on the chip
    const submitted = await as('POST', '/v1/applicant_session/submit');
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const f = await decided(id);
    expect(chipSubs(documentCheck(f)).every((s) => s.passed === true)).toBe(true);
    expect(subOf(documentCheck(f), 'chip_active_authentication')?.passed).toBe(true);
    expect(f).toMatchObject({ status: 'APPROVED', decision_reason_codes: [] });
  }, 300_000);

  it('each negative case gives its reason code and decision', async () => {
    const other = makeCsca({ country: 'XB', cn: 'CSCA XB', kind: 'rsa', slot: 'http-xb' });
    const impostor = makeCsca({ country: 'XB', cn: 'CSCA XB', kind: 'rsa', slot: 'http-xb-impostor' });
    const expired = makeCsca({
      country: 'XC',
      cn: 'CSCA XC',
      kind: 'p256',
      slot: 'http-xc',
      notBefore: new Date(Date.now() - 4000 * 86_400_000),
      notAfter: new Date(Date.now() - 40 * 86_400_000),
    });
    const revoking = makeCsca({ country: 'XD', cn: 'CSCA XD', kind: 'rsa-pss', slot: 'http-xd' });
    for (const c of [other, expired, revoking]) {
      expect((await admin('POST', '/admin/trust_store/cscas', { data: b64(c.der) })).status).toBe(201);
    }
    const revokedDs = makeSigner(
      { country: 'XD', cn: 'DS XD', kind: 'rsa-pss', slot: 'http-xd-ds', serial: 4242 },
      revoking,
    );
    expect(
      (await admin('POST', '/admin/trust_store/crls', { data: b64(makeCrl(revoking, [4242])) })).status,
    ).toBe(201);
    const altered = chipOf(ds);
    const dg1 = Buffer.from(altered.dgs[1] as Uint8Array);
    dg1[10] = (dg1[10] ?? 0) ^ 1;
    const cases: { name: string; files: ChipFiles; aaOther?: boolean; code: string; status: string }[] = [
      {
        name: 'altered DG1',
        files: { ...altered, dgs: { ...altered.dgs, 1: dg1 } },
        code: 'document_chip_invalid',
        status: 'REJECTED',
      },
      {
        name: 'DS of another CSCA',
        files: chipOf(makeSigner({ country: 'XB', cn: 'DS XB', kind: 'rsa', slot: 'http-xb-ds' }, impostor)),
        code: 'document_chip_untrusted',
        status: 'NEEDS_REVIEW',
      },
      {
        name: 'revoked DS',
        files: chipOf(revokedDs),
        code: 'document_chip_untrusted',
        status: 'NEEDS_REVIEW',
      },
      {
        name: 'expired CSCA',
        files: chipOf(makeSigner({ country: 'XC', cn: 'DS XC', kind: 'p256', slot: 'http-xc-ds' }, expired)),
        code: 'document_chip_untrusted',
        status: 'NEEDS_REVIEW',
      },
      {
        name: 'cut signature',
        files: chipOf(ds, { cutSignature: 16 }),
        code: 'document_chip_invalid',
        status: 'REJECTED',
      },
      {
        name: 'AA answer to another nonce',
        files: chipOf(ds),
        aaOther: true,
        code: 'document_chip_not_genuine',
        status: 'REJECTED',
      },
      {
        name: 'chip and printed page disagree',
        files: chipOf(ds, { mrz: td3Lines({ ...PASSPORT, document_number: 'Y11122233' }) }),
        code: 'document_chip_mismatch',
        status: 'NEEDS_REVIEW',
      },
      {
        name: 'garbage inside a valid envelope',
        files: { sod: Buffer.concat([Buffer.from([0x77, 0x40]), Buffer.alloc(64, 7)]), dgs: chipOf(ds).dgs },
        code: 'document_chip_unreadable',
        status: 'NEEDS_REVIEW',
      },
    ];
    const flows: { c: (typeof cases)[number]; id: string }[] = [];
    for (const c of cases) flows.push({ c, id: await chipFirstFlow('nfc-optional', c.files, c.aaOther) });
    for (const { c, id } of flows) {
      const f = await decided(id);
      const doc = documentCheck(f);
      expect(doc?.reason_codes, c.name).toContain(c.code);
      expect(f.decision_reason_codes, c.name).toContain(c.code);
      expect(f.status, `${c.name}: ${JSON.stringify(f.decision_reason_codes)}`).toBe(c.status);
    }
    const chainOf = async (i: number) => {
      const chain = subOf(documentCheck(await decided(flows[i]?.id as string)), 'chip_certificate_chain');
      return (chain?.value as { failure?: string } | undefined)?.failure;
    };
    expect(await chainOf(1)).toBe('not_issued_by_csca');
    expect(await chainOf(2)).toBe('revoked');
    expect(await chainOf(3)).toBe('csca_not_valid_at_signing_time');
  }, 600_000);

  it('a master list loaded through the admin API makes a previously untrusted chip verify', async () => {
    const xm = makeCsca({ country: 'XM', cn: 'CSCA XM', kind: 'p256', slot: 'http-xm' });
    const files = chipOf(makeSigner({ country: 'XM', cn: 'DS XM', kind: 'p256', slot: 'http-xm-ds' }, xm));
    const untrusted = await decided(await chipFirstFlow('nfc-optional', files));
    expect(subOf(documentCheck(untrusted), 'chip_certificate_chain')).toMatchObject({
      passed: false,
      value: { failure: 'no_csca_for_country' },
    });
    expect(untrusted).toMatchObject({
      status: 'NEEDS_REVIEW',
      decision_reason_codes: ['document_chip_untrusted'],
    });
    const mlCa = makeCsca({ country: 'XN', cn: 'CSCA XN', kind: 'rsa', slot: 'http-xn' });
    const signer = makeSigner(
      { country: 'XN', cn: 'Master List Signer XN', kind: 'rsa', slot: 'http-mls', usage: [0] },
      mlCa,
    );
    const loaded = await admin<{ version: number }>('POST', '/admin/trust_store/master_lists', {
      data: b64(makeMasterList(signer, [xm.der, mlCa.der])),
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(201);
    const f = await decided(await chipFirstFlow('nfc-optional', files));
    expect(chipSubs(documentCheck(f)).filter((s) => s.passed === false)).toEqual([]);
    expect(documentCheck(f)?.evidence).toMatchObject({
      chip: { verified: true, trust_store_version: loaded.body.version },
    });
    expect(f).toMatchObject({ status: 'APPROVED' });
  }, 300_000);

  it('submission errors are clear 4xx: disabled NFC, a used challenge, a second submission, bad data', async () => {
    const disabled = await startFlow('nfc-disabled', anna);
    const dDoc = await call<{ id: string }>(t.url, 'POST', `/v1/flows/${disabled}/documents`, {
      ...key(),
      body: { doc_type: 'passport' },
    });
    const refused = await call<{ error: { code: string; details: { reason: string } } }>(
      t.url,
      'POST',
      chipPath(disabled, dDoc.body.id),
      { ...key(), body: body(chipOf(ds)) },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'chip_not_accepted',
      details: { reason: 'nfc_disabled' },
    });
    const id = await startFlow('nfc-optional', anna);
    const doc = await call<{ id: string }>(t.url, 'POST', `/v1/flows/${id}/documents`, {
      ...key(),
      body: { doc_type: 'passport' },
    });
    const docId = doc.body.id;
    const bad = async (b: unknown) =>
      call<{ error: { code: string }; detail?: { loc: unknown[] }[] }>(t.url, 'POST', chipPath(id, docId), {
        ...key(),
        body: b,
      });
    const garbage = await bad({ ...body(chipOf(ds)), sod: b64(Buffer.from('not a SOD at all')) });
    expect(garbage.status).toBe(422);
    expect(garbage.body.error.code).toBe('chip_data_invalid');
    expect(garbage.body.detail?.[0]?.loc).toEqual(['body', 'sod']);
    const truncated = chipOf(ds);
    const cut = await bad(body({ ...truncated, sod: truncated.sod.subarray(0, 200) }));
    expect(cut.status).toBe(422);
    const noDg2 = await bad({
      sod: b64(truncated.sod),
      data_groups: { 1: b64(truncated.dgs[1] as Uint8Array), 14: b64(truncated.dgs[14] as Uint8Array) },
    });
    expect(noDg2.status).toBe(422);
    expect(noDg2.body.detail?.[0]?.loc).toEqual(['body', 'data_groups', '2']);
    const dg3 = await bad({ ...body(truncated), data_groups: { ...body(truncated).data_groups, 3: 'AAAA' } });
    expect(dg3.status).toBe(422);
    const answer = await answered(id, docId);
    expect((await bad(body(truncated, { active_authentication: answer }))).status).toBe(202);
    const again = await bad(body(truncated));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('chip_already_submitted');
    // the challenge was used: it cannot answer for another document either
    const doc2 = await call<{ id: string }>(t.url, 'POST', `/v1/flows/${id}/documents`, {
      ...key(),
      body: { doc_type: 'passport' },
    });
    const reused = await call<{ error: { code: string } }>(t.url, 'POST', chipPath(id, doc2.body.id), {
      ...key(),
      body: body(truncated, { active_authentication: answer }),
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('chip_challenge_invalid');
  });

  it('a decided flow, one in review included, refuses chip data: 409 naming its status, nothing stored', async () => {
    // another holder's name on the flow: the passport's reading disagrees and the flow goes to review
    const id = await startFlow('nfc-optional', {
      ...anna,
      legal_name_first: 'Berit',
      legal_name_last: 'Holm',
    });
    const docId = await upload(id, 'passport', passportImage);
    expect((await decided(id)).status).toBe('NEEDS_REVIEW');
    const late = await call<{ error: { code: string; details: { status: string } } }>(
      t.url,
      'POST',
      chipPath(id, docId),
      { ...key(), body: body(chipOf(ds)) },
    );
    expect([late.status, late.body.error.code, late.body.error.details]).toEqual([
      409,
      'conflict',
      { status: 'NEEDS_REVIEW' },
    ]);
    expect(await t.app.sql`select 1 from document_chips where flow_id = ${id}`).toHaveLength(0);
  }, 120_000);

  it('erasure removes the chip data, its portrait and its embedding', async () => {
    const f = approved;
    expect(f).toBeDefined();
    const a = f.applicant_id;
    expect(
      (await t.app.sql`select 1 from document_chip_files where applicant_id = ${a}`).length,
    ).toBeGreaterThan(0);
    expect(
      (await t.app.sql`select 1 from face_embeddings where applicant_id = ${a} and source = 'chip'`).length,
    ).toBe(1);
    const r = await call(t.url, 'DELETE', `/v1/applicants/${a}`, key());
    expect(r.status).toBe(202);
    await waitFor(
      () => t.app.sql<{ status: string }[]>`select status from applicant_erasures where applicant_id = ${a}`,
      (rows) => rows[0]?.status === 'completed',
    );
    for (const table of ['document_chips', 'document_chip_files', 'chip_challenges', 'face_embeddings']) {
      expect(
        await t.app.sql`select 1 from ${t.app.sql(table)} where applicant_id = ${a}`,
        table,
      ).toHaveLength(0);
    }
    const objects = await t.app.store.client.send(
      new ListObjectsV2Command({ Bucket: t.app.store.bucket, Prefix: `tenants/${acme.id}/applicants/${a}/` }),
    );
    expect(objects.Contents ?? []).toHaveLength(0);
  });
});
