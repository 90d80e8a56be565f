import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFlow } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// Issue 33, flows that wait for the applicant: a flow can be created with no consent and no intake data when they are
// to be collected; it waits in AWAITING_INPUT with its missing inputs listed, runs no check meanwhile, and moves on
// exactly once when the last one arrives (here by PATCH /v1/applicants/{id}).

type Flow = ApiFlow;
interface Detail {
  detail: { loc: (string | number)[]; type: string }[];
  error: { code: string };
}

let t: TestApp;
let acme: Tenant;

const flowOf = (id: string) => call<Flow>(t.url, 'GET', `/v1/flows/${id}`, { token: acme.secret_key });
const createFlow = (body: Record<string, unknown>) =>
  call<Flow & Detail>(t.url, 'POST', '/v1/flows', { token: acme.secret_key, body });

async function template(slug: string, body: Record<string, unknown>) {
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    token: acme.secret_key,
    body: { slug, name: slug, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme', plan: 'self_serve', allowance: 10 });
  await template('journey', {
    required_checks: ['aml_screen', 'document', 'selfie'],
    allowed_document_types: ['passport'],
    required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    intake_fields: ['legal_name', 'dob', 'phone'],
  });
  await template('dob-only', { required_checks: ['aml_screen'], intake_fields: ['dob'] });
});
afterAll(async () => {
  await t?.close();
});

describe('flows that wait for the applicant', () => {
  it('a document + selfie flow starts with nothing but a template and lists what it waits for', async () => {
    const r = await createFlow({ template_slug: 'journey', applicant: {} });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.status).toBe('AWAITING_INPUT');
    const want = ['consent', 'legal_name', 'dob', 'phone', 'document', 'selfie'];
    expect(r.body.missing_inputs).toEqual(want);
    const got = await flowOf(r.body.id);
    expect(got.body.missing_inputs).toEqual(want);
    expect(got.body.checks).toEqual([]);
    // a /process now runs nothing: the name and date of birth the screen needs are not there
    const p = await call(t.url, 'POST', `/v1/flows/${r.body.id}/process`, { token: acme.secret_key });
    expect(p.status).toBe(202);
    const back = await waitFor('the flow to wait again', async () => {
      const f = await flowOf(r.body.id);
      return f.body.status === 'AWAITING_INPUT' ? f.body : undefined;
    });
    expect(back.checks).toEqual([]);
    expect(back.missing_inputs).toEqual(want);
  });

  it('an applicant who said no to biometrics is refused on a selfie template', async () => {
    const r = await createFlow({ template_slug: 'journey', applicant: { consent: { biometric: false } } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('biometric_consent_required');
  });

  it('a sync flow cannot wait: each missing intake field is a 422 at its field', async () => {
    const r = await createFlow({
      mode: 'sync',
      template_slug: 'dob-only',
      applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'applicant', 'dob'], type: 'missing' }),
    ]);
  });

  it('a name the screen needs is still required unless the intake collects it', async () => {
    const r = await createFlow({ template_slug: 'dob-only', applicant: {} });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]?.loc).toEqual(['body', 'applicant', 'legal_name_last']);
  });

  it('PATCH /v1/applicants provides the last intake field: the flow moves on once, charged once', async () => {
    const r = await createFlow({
      template_slug: 'dob-only',
      applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' },
    });
    expect(r.body.status).toBe('AWAITING_INPUT');
    expect(r.body.missing_inputs).toEqual(['dob']);
    const consumed = async () =>
      (await t.app.sql<{ consumed: number }[]>`select consumed from tenants where id = ${acme.id}`)[0]
        ?.consumed;
    const before = await consumed();
    // an unrelated correction leaves it waiting
    const phone = await call<{ phone_hint: string }>(
      t.url,
      'PATCH',
      `/v1/applicants/${r.body.applicant_id}`,
      {
        token: acme.secret_key,
        body: { phone: '+14155550123' },
      },
    );
    expect(phone.status).toBe(200);
    expect(phone.body.phone_hint).toBe('+14•••0123');
    expect(JSON.stringify(phone.body)).not.toContain('4155550123');
    expect((await flowOf(r.body.id)).body.status).toBe('AWAITING_INPUT');
    // two concurrent corrections that both complete it: one move, one run, one screen, one charge
    const patches = await Promise.all(
      ['1990-01-02', '1990-01-03'].map((dob) =>
        call(t.url, 'PATCH', `/v1/applicants/${r.body.applicant_id}`, {
          token: acme.secret_key,
          body: { dob },
        }),
      ),
    );
    expect(patches.map((p) => p.status)).toEqual([200, 200]);
    const done = await waitFor('the flow to be decided', async () => {
      const f = await flowOf(r.body.id);
      return ['APPROVED', 'REJECTED', 'NEEDS_REVIEW'].includes(f.body.status) ? f.body : undefined;
    });
    expect(done.status).toBe('APPROVED');
    expect(done.checks.map((c) => c.check_type)).toEqual(['aml_screen']);
    const [row] = await t.app.sql<
      { process_run: number }[]
    >`select process_run from flows where id = ${r.body.id}`;
    expect(row?.process_run).toBe(1);
    expect((await consumed()) ?? 0).toBe((before ?? 0) + 1);
    const decided = await t.app.sql`
      select 1 from outbox_events where resource_id = ${r.body.id} and type = 'flow.decided'`;
    expect(decided).toHaveLength(1);
  });
});
