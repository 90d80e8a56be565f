import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asApplicant, bearerSession, journeyFlow, journeyTemplate, mintLink } from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// The applicant's submit starts the flow as the tenant's POST /process would; a self-serve tenant without allowance
// left is not charged and its flow stays where it was: the applicant's submit succeeds, and the tenant meets the 402
// on its own /process (server/journey/session-service.ts, startFlow).

let t: TestApp;
let broke: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  broke = await createTenant(t, { name: 'Broke Ltd', plan: 'self_serve', allowance: 0 });
  // the intake makes the flow one the applicant takes part in; given at creation, nothing is left to ask
  await journeyTemplate(t, broke, 'screen', {
    required_checks: ['aml_screen'],
    intake_fields: ['legal_name', 'dob'],
  });
});
afterAll(async () => {
  await t?.close();
});

describe('submit without allowance', () => {
  it('is accepted, leaves the flow PENDING uncharged, and the tenant gets 402 on /process', async () => {
    const flow = await journeyFlow(t, broke, 'screen', {
      legal_name_first: 'Ada',
      legal_name_last: 'Lovelace',
      dob: '1815-12-10',
    });
    expect(flow.status, JSON.stringify(flow)).toBe('PENDING');
    const a = await bearerSession(t, await mintLink(t, broke, flow.id));
    const consent = { biometric: false, policy_version: 'privacy-1' };
    expect((await asApplicant(t, a, 'POST', '/v1/applicant_session/consent', consent)).status).toBe(200);
    const submitted = await asApplicant<{ status: string }>(t, a, 'POST', '/v1/applicant_session/submit');
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const after = await call<{ status: string }>(t.url, 'GET', `/v1/flows/${flow.id}`, {
      token: broke.secret_key,
    });
    expect(after.body.status).toBe('PENDING');
    const processed = await call<{ error: { code: string } }>(t.url, 'POST', `/v1/flows/${flow.id}/process`, {
      token: broke.secret_key,
    });
    expect(processed.status).toBe(402);
    expect(processed.body.error.code).toBe('allowance_exhausted');
  });
});
