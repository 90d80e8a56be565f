import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applicantUpload,
  asApplicant,
  cookieSession,
  journeyFlow,
  journeyTemplate,
  mintLink,
  TINY_PNG,
} from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { Receiver } from '../helpers/webhook-receiver.js';

// Issue 33, what operators and tenants see of the journey: the verification.started / submitted webhooks, the
// counter of sessions reaching each step (born at 0 in a process that knows the template), and the funnel per
// template. Also: the document step reports the template's passport chip behaviour.

interface Funnel {
  since: string;
  items: {
    template_slug: string;
    links: number;
    opened: number;
    steps: Record<string, number>;
    submitted: number;
    decided: number;
  }[];
}

let t: TestApp;
let acme: Tenant;
let receiver: Receiver;

const metricLine = async (url: string, step: string) => {
  const text = (await call<string>(url, 'GET', '/metrics')).body;
  return text
    .split('\n')
    .find((l) => l.startsWith(`veriscreen_verification_steps_total{template="poa",step="${step}"}`));
};

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme' });
  receiver = await new Receiver().start();
  const hook = await call(t.url, 'POST', '/v1/webhook_endpoints', {
    token: acme.secret_key,
    body: { url: receiver.url, events: ['verification.started', 'verification.submitted'] },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  await journeyTemplate(t, acme, 'poa', {
    required_checks: ['aml_screen', 'document'],
    allowed_document_types: ['proof_of_address'],
    required_documents: [{ min: 1, side: 'single', types: ['proof_of_address'] }],
    intake_fields: ['dob'],
    passport_nfc_behavior: 'required',
  });
});
afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

describe('the journey as operators see it', () => {
  it('counts flows through links, openings, steps, submits and decisions; webhooks tell the tenant', async () => {
    const named = { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' };
    const [done, idle] = [await journeyFlow(t, acme, 'poa', named), await journeyFlow(t, acme, 'poa', named)];
    await mintLink(t, acme, (await journeyFlow(t, acme, 'poa', named)).id); // never opened
    await mintLink(t, acme, done.id); // a second link: the flow counts once
    const a = await cookieSession(t, await mintLink(t, acme, done.id));
    await cookieSession(t, await mintLink(t, acme, idle.id)).then((s) =>
      asApplicant(t, s, 'GET', '/v1/applicant_session'),
    );
    const v = await asApplicant<{ steps: { name: string; nfc?: string }[] }>(
      t,
      a,
      'GET',
      '/v1/applicant_session',
    );
    expect(v.body.steps.find((s) => s.name === 'document')?.nfc).toBe('required');
    await asApplicant(t, a, 'POST', '/v1/applicant_session/consent', {
      biometric: false,
      policy_version: 'v1',
    });
    await asApplicant(t, a, 'PUT', '/v1/applicant_session/intake', { dob: '1990-02-03' });
    await applicantUpload(
      t,
      a,
      done.id,
      { doc_type: 'proof_of_address', mime_type: 'image/png', capture: 'upload' },
      TINY_PNG,
    );
    expect((await asApplicant(t, a, 'POST', '/v1/applicant_session/submit')).status).toBe(202);
    await waitFor('the flow to be decided', async () => {
      const f = await call<{ decision: string | null }>(t.url, 'GET', `/v1/flows/${done.id}`, {
        token: acme.secret_key,
      });
      return f.body.decision ?? undefined;
    });

    const funnel = await call<Funnel>(t.url, 'GET', '/v1/verification_funnel', { token: acme.secret_key });
    expect(funnel.status).toBe(200);
    expect(funnel.body.items).toEqual([
      {
        template_id: expect.any(String),
        template_slug: 'poa',
        links: 3,
        opened: 2,
        steps: { consent: 2, intake: 1, document: 1, review: 1 },
        submitted: 1,
        decided: 1,
      },
    ]);
    const later = await call<Funnel>(
      t.url,
      'GET',
      `/v1/verification_funnel?since=${new Date(Date.now() + 60_000).toISOString()}`,
      {
        token: acme.secret_key,
      },
    );
    expect(later.body.items).toEqual([]);

    expect(await metricLine(t.url, 'consent')).toMatch(/ 2$/);
    expect(await metricLine(t.url, 'review')).toMatch(/ 1$/);
    const events = await waitFor('three verification webhooks', () =>
      receiver.got.length >= 3 ? receiver.got.map((g) => g.body) : undefined,
    );
    expect(events.map((e) => e.type).sort()).toEqual([
      'verification.started',
      'verification.started',
      'verification.submitted',
    ]);
    expect(events.find((e) => e.type === 'verification.submitted')?.data).toMatchObject({ flow_id: done.id });
  });

  it('a process that knows the template has its step counters at 0 before any applicant', async () => {
    const second = await startTestApp({ join: t });
    try {
      for (const step of ['consent', 'intake', 'document', 'review']) {
        expect(await metricLine(second.url, step), step).toMatch(/ 0$/);
      }
    } finally {
      await second.close();
    }
  });
});
