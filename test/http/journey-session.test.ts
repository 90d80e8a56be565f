import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Applicant,
  applicantUpload,
  asApplicant,
  bearerSession,
  cookieSession,
  journeyFlow,
  journeyTemplate,
  mintLink,
  TINY_PNG,
} from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 33, what an applicant session does (docs/journey.md): its redacted view, consent, intake validated by the
// applicant field rules, uploads with their capture recorded (live_only refusing files), submit, cancel, and the
// desktop → phone hand-off. The uploads are proof-of-address images (verified, not read), so that a whole journey
// runs to a decision without OCR; the passport path is the hosted page's end-to-end test.

interface Step {
  name: string;
  done: boolean;
  fields?: { name: string; required: boolean; value_present: boolean }[];
  documents?: { id: string; capture: string }[];
  [k: string]: unknown;
}
interface View {
  flow_id: string;
  purpose: string;
  status: string;
  missing: string[];
  steps: Step[];
  tenant: { display_name: string };
  redirect_url: string | null;
  handoff: { status: string } | null;
}
interface Detail {
  detail: { loc: (string | number)[]; type: string }[];
  error: { code: string; details?: Record<string, unknown> };
}

let t: TestApp;
let acme: Tenant;
const ORIGIN = 'https://app.acme.test';
const poaDoc = { doc_type: 'proof_of_address', mime_type: 'image/png' };

const view = (a: Applicant) => asApplicant<View>(t, a, 'GET', '/v1/applicant_session');
const stepOf = (v: View, name: string) => v.steps.find((s) => s.name === name);
const flowOf = (id: string) =>
  call<{ status: string; missing_inputs?: string[]; documents: { capture: string }[] }>(
    t.url,
    'GET',
    `/v1/flows/${id}`,
    { token: acme.secret_key },
  );

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme Bank', plan: 'self_serve', allowed_origins: [ORIGIN] });
  const poa = {
    required_checks: ['aml_screen', 'document'],
    allowed_document_types: ['proof_of_address'],
    required_documents: [{ min: 1, side: 'single', types: ['proof_of_address'] }],
  };
  await journeyTemplate(t, acme, 'poa', { ...poa, intake_fields: ['legal_name', 'dob', 'email', 'phone'] });
  await journeyTemplate(t, acme, 'poa-live', {
    ...poa,
    document_capture_mode: 'live_only',
    intake_fields: [],
  });
  await journeyTemplate(t, acme, 'selfie', {
    required_checks: ['selfie'],
    passport_nfc_behavior: 'required',
  });
});
afterAll(async () => {
  await t?.close();
});

describe('an applicant session', () => {
  it('walks consent, intake, upload and submit to a decision it is not told', async () => {
    const f = await journeyFlow(t, acme, 'poa');
    const a = await cookieSession(t, await mintLink(t, acme, f.id, { redirect_url: `${ORIGIN}/done` }));
    const first = await view(a);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      flow_id: f.id,
      purpose: 'verification',
      status: 'collecting',
      tenant: { display_name: 'Acme Bank' },
      redirect_url: `${ORIGIN}/done`,
      missing: ['consent', 'legal_name', 'dob', 'email', 'phone', 'document'],
    });
    expect(first.body.steps.map((s) => s.name)).toEqual(['consent', 'intake', 'document', 'review']);
    expect(stepOf(first.body, 'document')).toMatchObject({ capture_mode: 'live_or_upload', nfc: 'optional' });

    // submit too early: what is missing, in one answer
    const early = await asApplicant<Detail>(t, a, 'POST', '/v1/applicant_session/submit');
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: 'inputs_missing',
      details: { missing: first.body.missing },
    });

    const consent = await asApplicant<View>(t, a, 'POST', '/v1/applicant_session/consent', {
      biometric: false,
      policy_version: 'acme-2026-01',
    });
    expect(consent.status).toBe(200);
    expect(stepOf(consent.body, 'consent')).toMatchObject({ done: true, policy_version: 'acme-2026-01' });

    // every bad field in one 422: formats, a field the template does not ask, the required ones left out
    const bad = await asApplicant<Detail>(t, a, 'PUT', '/v1/applicant_session/intake', {
      dob: '1990-13-45',
      email: 'not-an-email',
      phone: '12345',
      nationality: 'DE',
    });
    expect(bad.status).toBe(422);
    const locs = bad.body.detail.map((d) => `${d.loc.join('.')}:${d.type}`).sort();
    expect(locs).toEqual(
      [
        'body.dob:format',
        'body.email:format',
        'body.phone:pattern',
        'body.nationality:extra_forbidden',
        'body.legal_name_first:missing',
        'body.legal_name_last:missing',
      ].sort(),
    );
    const intake = await asApplicant<View>(t, a, 'PUT', '/v1/applicant_session/intake', {
      legal_name_first: 'Marigold',
      legal_name_last: 'Fennimore',
      dob: '1990-02-03',
      email: 'marigold@example.com',
      phone: '+447700900123',
    });
    expect(intake.status, JSON.stringify(intake.body)).toBe(200);
    expect(stepOf(intake.body, 'intake')?.done).toBe(true);
    expect(intake.body.missing).toEqual(['document']);
    // the tenant sees what the flow still waits for
    expect((await flowOf(f.id)).body.missing_inputs).toEqual(['document', 'submission']);

    const docId = await applicantUpload(t, a, f.id, { ...poaDoc, capture: 'upload' }, TINY_PNG);
    const uploaded = await view(a);
    expect(uploaded.body.missing).toEqual([]);
    expect(stepOf(uploaded.body, 'document')?.documents).toEqual([
      expect.objectContaining({ id: docId, capture: 'hosted_upload' }),
    ]);
    // verified, yet the flow waits for the applicant's submit (a retake is still possible)
    await waitFor('the upload to be verified', async () => {
      const fl = await flowOf(f.id);
      return fl.body.missing_inputs?.join() === 'submission' ? fl : undefined;
    });
    expect((await flowOf(f.id)).body.status).toBe('AWAITING_INPUT');

    const submitted = await asApplicant<View>(t, a, 'POST', '/v1/applicant_session/submit');
    expect(submitted.status).toBe(202);
    expect(['submitted', 'processing', 'done']).toContain(submitted.body.status);
    const done = await waitFor('the flow to be decided', async () => {
      const v = await view(a);
      return v.body.status === 'done' ? v.body : undefined;
    });
    // tipping-off: the applicant's view carries no checks, evidence, decision or reason codes
    const text = JSON.stringify(done);
    for (const word of ['check', 'evidence', 'decision', 'reason', 'APPROVED', 'REJECTED', 'NEEDS_REVIEW']) {
      expect(text).not.toContain(word);
    }
    expect((await flowOf(f.id)).body.documents[0]?.capture).toBe('hosted_upload');
    const events = await t.app.sql<{ type: string }[]>`
      select type from outbox_events where resource_id = ${f.id} and type like 'verification.%' order by created_at`;
    expect(events.map((e) => e.type)).toEqual(['verification.started', 'verification.submitted']);
    // once submitted, it collects no more
    const late = await asApplicant<Detail>(t, a, 'POST', '/v1/applicant_session/consent', {
      biometric: false,
      policy_version: 'x',
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('flow_not_collecting');
    // the applicant's erasure takes the journey's rows with it (once the flow is closed)
    const closed = await call<{ applicant_id: string; status: string }>(t.url, 'GET', `/v1/flows/${f.id}`, {
      token: acme.secret_key,
    });
    if (closed.body.status === 'NEEDS_REVIEW') {
      await call(t.url, 'POST', `/v1/flows/${f.id}/decide`, {
        token: acme.secret_key,
        body: { decision: 'AUTO_APPROVED' },
      });
    }
    const applicantId = closed.body.applicant_id;
    expect(
      (await call(t.url, 'DELETE', `/v1/applicants/${applicantId}`, { token: acme.secret_key })).status,
    ).toBe(202);
    await waitFor('the erasure', async () => {
      const [e] = await t.app.sql<{ status: string }[]>`
        select status from applicant_erasures where applicant_id = ${applicantId}`;
      return e?.status === 'completed' ? e : undefined;
    });
    for (const table of ['verification_links', 'applicant_sessions', 'applicant_session_steps']) {
      const rows = await t.app.sql`select 1 from ${t.app.sql(table)} where flow_id = ${f.id}`;
      expect(rows, table).toHaveLength(0);
    }
  });

  it('records how each document was captured; live_only refuses a hosted file upload', async () => {
    const f = await journeyFlow(t, acme, 'poa-live', { legal_name_first: 'Ada', legal_name_last: 'Quill' });
    const a = await bearerSession(t, await mintLink(t, acme, f.id));
    const post = (body: Record<string, unknown>, as: Applicant | null = a) =>
      as
        ? asApplicant<Detail & { capture: string }>(t, as, 'POST', '/v1/documents', {
            submission_id: f.id,
            ...body,
          })
        : call<Detail & { capture: string }>(t.url, 'POST', '/v1/documents', {
            token: acme.secret_key,
            body: { submission_id: f.id, ...body },
          });
    const file = await post({ ...poaDoc, capture: 'upload' });
    expect(file.status).toBe(422);
    expect(file.body.error.code).toBe('capture_mode_not_allowed');
    expect(file.body.detail[0]?.loc).toEqual(['body', 'capture']);
    const unsaid = await post(poaDoc);
    expect(unsaid.status).toBe(422);
    expect(unsaid.body.detail[0]).toMatchObject({ loc: ['body', 'capture'], type: 'missing' });
    const camera = await post({ ...poaDoc, capture: 'camera' });
    expect(camera.status, JSON.stringify(camera.body)).toBe(201);
    expect(camera.body.capture).toBe('hosted_camera');
    // the tenant's own upload: the server cannot know how it was made, so it is `api` and never refused
    const api = await post(poaDoc, null);
    expect(api.status).toBe(201);
    expect(api.body.capture).toBe('api');
    const says = await post({ ...poaDoc, capture: 'camera' }, null);
    expect(says.status).toBe(422);
    expect(says.body.detail[0]?.loc).toEqual(['body', 'capture']);
  });

  it('asks for biometric consent on a selfie template and tells the applicant to use the app for the chip', async () => {
    const f = await journeyFlow(t, acme, 'selfie');
    const a = await bearerSession(t, await mintLink(t, acme, f.id));
    const v = await view(a);
    expect(stepOf(v.body, 'consent')).toMatchObject({
      done: false,
      biometric_required: true,
      policy_version: null,
    });
    expect(stepOf(v.body, 'selfie')).toMatchObject({ done: false, liveness: true });
    const no = await asApplicant<Detail>(t, a, 'POST', '/v1/applicant_session/consent', {
      biometric: false,
      policy_version: 'v1',
    });
    expect(no.status).toBe(422);
    expect(no.body.error.code).toBe('biometric_consent_required');
    const yes = await asApplicant<View>(t, a, 'POST', '/v1/applicant_session/consent', {
      biometric: true,
      policy_version: 'v1',
    });
    expect(stepOf(yes.body, 'consent')?.done).toBe(true);
    expect((await flowOf(f.id)).body.missing_inputs).toEqual(['selfie', 'submission']);
  });

  it('cancel ends the session and clears the cookie; the flow stays open for a new link', async () => {
    const f = await journeyFlow(t, acme, 'poa');
    const a = await cookieSession(t, await mintLink(t, acme, f.id));
    const out = await asApplicant(t, a, 'POST', '/v1/applicant_session/cancel');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^vs_applicant=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect((await view(a)).status).toBe(401);
    expect((await flowOf(f.id)).body.status).toBe('AWAITING_INPUT');
    expect((await view(await cookieSession(t, await mintLink(t, acme, f.id)))).status).toBe(200);
  });

  it('a cookie write from another origin is refused (CSRF), a bearer one needs no Origin', async () => {
    const f = await journeyFlow(t, acme, 'poa');
    const a = await cookieSession(t, await mintLink(t, acme, f.id));
    const forged = await call<Detail>(t.url, 'POST', '/v1/applicant_session/consent', {
      headers: { ...a.headers, origin: 'https://evil.test' },
      body: { biometric: false, policy_version: 'v1' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('csrf_origin_mismatch');
  });
});

describe('the hand-off to a phone', () => {
  it('a second one-time link for an upload-only session whose progress the desktop sees', async () => {
    const f = await journeyFlow(t, acme, 'poa', {
      legal_name_first: 'Marigold',
      legal_name_last: 'Fennimore',
      dob: '1990-02-03',
      email: 'm@example.com',
      phone: '+447700900123',
    });
    const desktop = await cookieSession(t, await mintLink(t, acme, f.id));
    const h = await asApplicant<{ url: string; expires_at: string }>(
      t,
      desktop,
      'POST',
      '/v1/applicant_session/handoff',
    );
    expect(h.status).toBe(201);
    expect(h.body.url).toMatch(new RegExp(`^${t.url}/verify/[A-Za-z0-9_-]{22}$`));
    const left = Date.parse(h.body.expires_at) - Date.now();
    expect(left).toBeGreaterThan(14 * 60_000);
    expect(left).toBeLessThanOrEqual(15 * 60_000);
    expect((await view(desktop)).body.handoff?.status).toBe('waiting');

    const phone = await bearerSession(t, { url: h.body.url } as never);
    const pv = await view(phone);
    expect(pv.body).toMatchObject({ purpose: 'handoff', flow_id: f.id, redirect_url: null, handoff: null });
    expect((await view(desktop)).body.handoff?.status).toBe('opened');
    // upload only: no consent, intake, submit or further hand-off from the phone
    for (const [method, path] of [
      ['POST', '/v1/applicant_session/consent'],
      ['PUT', '/v1/applicant_session/intake'],
      ['POST', '/v1/applicant_session/submit'],
      ['POST', '/v1/applicant_session/handoff'],
    ] as const) {
      const body = path.endsWith('consent')
        ? { biometric: true, policy_version: 'v' }
        : path.endsWith('intake')
          ? {}
          : undefined;
      const r = await asApplicant<Detail>(t, phone, method, path, body);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('applicant_session_forbidden');
    }
    const docId = await applicantUpload(t, phone, f.id, { ...poaDoc, capture: 'camera' }, TINY_PNG);
    const seen = await view(desktop);
    expect(stepOf(seen.body, 'document')?.documents).toEqual([
      expect.objectContaining({ id: docId, capture: 'hosted_camera' }),
    ]);
    expect(stepOf(seen.body, 'document')?.done).toBe(true);
    // the desktop submits (consent is still its own)
    await asApplicant(t, desktop, 'POST', '/v1/applicant_session/consent', {
      biometric: false,
      policy_version: 'v',
    });
    expect((await asApplicant(t, desktop, 'POST', '/v1/applicant_session/submit')).status).toBe(202);
  });
});
