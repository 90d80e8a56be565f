import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { equalsFilter } from '../../server/db/list-filters.js';
import type { ApiCheck, ApiFlow } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, unknown>;
type Check = ApiCheck;
type Flow = ApiFlow;

let t: TestApp;
let acme: Tenant;
let globex: Tenant;

const listed = { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' };
const clean = { legal_name_first: 'Zephyrine', legal_name_last: 'Quorrelby-Atwater' };

beforeAll(async () => {
  t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
  acme = await createTenant(t, { name: 'Acme' });
  globex = await createTenant(t, { name: 'Globex' });
  const fatf = await call(t.url, 'PUT', '/admin/fatf_listings', {
    admin: t.adminToken,
    body: { KP: 'black', PA: 'grey' },
  });
  expect(fatf.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

const post = <T = Flow>(tenant: Tenant, path: string, body?: unknown, headers?: Record<string, string>) =>
  call<T>(t.url, 'POST', path, {
    token: tenant.secret_key,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
const get = <T = Flow>(tenant: Tenant, path: string) =>
  call<T>(t.url, 'GET', path, { token: tenant.secret_key });

/** Polls until pred holds (no timing assertion: the deadline only stops a hung test). */
async function until<T>(fn: () => Promise<T>, pred: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (pred(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function events(flowOrCheckIds: string[]): Promise<{ type: string; resource_id: string }[]> {
  return t.app.sql<{ type: string; resource_id: string }[]>`
    select type, resource_id::text from outbox_events where resource_id in ${t.app.sql(flowOrCheckIds)} order by seq`;
}

async function template(tenant: Tenant, body: Json): Promise<Json> {
  const r = await post<Json>(tenant, '/v1/flow_templates', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function processed(tenant: Tenant, flowId: string, status = 'PROCESSING'): Promise<Flow> {
  const r = await post<Json>(tenant, `/v1/flows/${flowId}/process`);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body).toEqual({ status: 'accepted', flow_id: flowId });
  return until(
    async () => (await get(tenant, `/v1/flows/${flowId}`)).body,
    (f) => f.status !== status,
  );
}

describe('state table', () => {
  it('(none) → PENDING: async create returns an undecided flow with client metadata', async () => {
    const r = await post(
      acme,
      '/v1/flows',
      { applicant: clean },
      { 'x-forwarded-for': '81.2.69.142', 'user-agent': 'vitest-agent/1.0', 'sec-ch-ua-platform': '"Linux"' },
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'PENDING', decision: null, result: 'pending', checks: [] });
    expect(r.body.client_metadata).toMatchObject({
      ip: '81.2.69.142',
      user_agent: 'vitest-agent/1.0',
      device_headers: { 'sec-ch-ua-platform': '"Linux"' },
      geolocation: { country: 'GB', source: 'geoip-lite' },
    });
    expect((r.body.client_metadata?.geolocation as Json | undefined)?.city).toEqual(expect.any(String));
    expect((await events([r.body.id])).map((e) => e.type)).toEqual(['flow.created']);
  });

  it('(none) → decided: sync checks-only runs checks inline (approved and needs-review)', async () => {
    const ok = await post(acme, '/v1/flows', { mode: 'sync', applicant: clean });
    expect(ok.body).toMatchObject({ status: 'APPROVED', decision: 'AUTO_APPROVED', result: 'approved' });
    expect(ok.body.checks.map((c) => c.check_type)).toEqual(['aml_screen']);
    expect(ok.body.completed_at).not.toBeNull();
    expect((await events([ok.body.id])).map((e) => e.type)).toEqual([
      'flow.created',
      'flow.completed',
      'flow.decided',
    ]);
    const hit = await post(acme, '/v1/flows', { mode: 'sync', applicant: listed, datasets: ['sanctions'] });
    expect(hit.body).toMatchObject({ status: 'NEEDS_REVIEW', decision: 'MANUAL_REVIEW', result: 'review' });
    expect(hit.body.decision_reason_codes).toContain('aml_sanctions_match');
  });

  it('PENDING → PROCESSING → decided on a worker, exactly one completion', async () => {
    const created = await post(acme, '/v1/flows', { applicant: listed });
    const done = await processed(acme, created.body.id);
    expect(done).toMatchObject({ status: 'NEEDS_REVIEW', decision: 'MANUAL_REVIEW' });
    expect(done.checks).toHaveLength(1);
    expect(done.checks[0]).toMatchObject({
      check_type: 'aml_screen',
      result: 'hit',
      decision: 'MANUAL_REVIEW',
    });
    const types = (await events([created.body.id])).map((e) => e.type);
    expect(types).toEqual(['flow.created', 'flow.completed', 'flow.decided']);
    const checkEvents = await events([done.checks[0]?.id as string]);
    expect(checkEvents.map((e) => e.type)).toEqual(['check.completed']);
  });

  it('process outside PENDING/AWAITING_INPUT → 422 unsupported_operation, unchanged', async () => {
    const decided = await post(acme, '/v1/flows', { mode: 'sync', applicant: clean });
    const r = await post<Json>(acme, `/v1/flows/${decided.body.id}/process`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      error: { code: 'unsupported_operation', details: { status: 'APPROVED' } },
    });
    expect((await get(acme, `/v1/flows/${decided.body.id}`)).body.status).toBe('APPROVED');
  });

  it('PROCESSING → AWAITING_INPUT when the template needs documents; sync on it → 422', async () => {
    await template(acme, {
      slug: 'kyc-docs',
      name: 'KYC with ID document',
      required_checks: ['aml_screen', 'document'],
      allowed_document_types: ['passport', 'id_card'],
      required_documents: [{ min: 1, side: 'front', types: ['passport', 'id_card'] }],
    });
    const sync = await post<Json>(acme, '/v1/flows', {
      mode: 'sync',
      template_slug: 'kyc-docs',
      applicant: clean,
    });
    expect(sync.status).toBe(422);
    expect(sync.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'mode'] })]);
    const created = await post(acme, '/v1/flows', { template_slug: 'kyc-docs', applicant: clean });
    const waiting = await processed(acme, created.body.id);
    expect(waiting).toMatchObject({ status: 'AWAITING_INPUT', decision: null });
    expect(waiting.checks.map((c) => c.check_type)).toEqual(['aml_screen']);
    // once inputs arrive it can be processed again (still missing here: back to AWAITING_INPUT)
    const again = await processed(acme, created.body.id);
    expect(again.status).toBe('AWAITING_INPUT');
  });

  it('NEEDS_REVIEW → decide: decision, reason codes, actor and time recorded', async () => {
    const flows = await Promise.all(
      [0, 1, 2].map(() => post(acme, '/v1/flows', { mode: 'sync', applicant: listed })),
    );
    const [a, b, c] = flows.map((f) => f.body.id);
    const approve = await post(acme, `/v1/flows/${a}/decide`, {
      decision: 'AUTO_APPROVED',
      reason_codes: ['false_positive'],
    });
    expect(approve.status).toBe(200);
    expect(approve.body).toMatchObject({
      status: 'APPROVED',
      decision: 'AUTO_APPROVED',
      decision_reason_codes: ['false_positive'],
      reviewed_by: expect.stringMatching(/^api_key:/),
    });
    expect(approve.body.reviewed_at).toEqual(expect.any(String));
    const reject = await post(acme, `/v1/flows/${b}/decide`, {
      decision: 'REJECTED',
      reason_codes: ['true_match'],
    });
    expect(reject.body).toMatchObject({ status: 'REJECTED', decision: 'REJECTED', result: 'denied' });
    const hold = await post(acme, `/v1/flows/${c}/decide`, { decision: 'MANUAL_REVIEW' });
    expect(hold.body).toMatchObject({ status: 'NEEDS_REVIEW', decision: 'MANUAL_REVIEW' });
    expect(hold.body.decision_reason_codes).toContain('aml_sanctions_match');
    // the review adds a second flow.decided to the flow's events (checks and alerts have their own ids)
    expect((await events([a as string])).map((e) => e.type)).toEqual([
      'flow.created',
      'flow.completed',
      'flow.decided',
      'flow.decided',
    ]);
  });

  it('decide on any other state → 422 unsupported_operation, unchanged', async () => {
    const pending = await post(acme, '/v1/flows', { applicant: clean });
    const approved = await post(acme, '/v1/flows', { mode: 'sync', applicant: clean });
    for (const f of [pending.body, approved.body]) {
      const r = await post<Json>(acme, `/v1/flows/${f.id}/decide`, { decision: 'REJECTED' });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ error: { code: 'unsupported_operation' } });
      expect((await get(acme, `/v1/flows/${f.id}`)).body.status).toBe(f.status);
    }
    const bad = await post<Json>(acme, `/v1/flows/${approved.body.id}/decide`, { decision: 'MAYBE' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'decision'] })]);
  });

  it('non-terminal rerun: new check, rules re-evaluated over the latest checks (may change)', async () => {
    const tenant = await createTenant(t, { name: 'Rerun' });
    const flow = await post(tenant, '/v1/flows', { mode: 'sync', applicant: listed });
    expect(flow.body.status).toBe('NEEDS_REVIEW');
    // the list entry is retracted from this tenant's screening (e.g. a stale source): the rerun clears the flow
    const pol = await call(t.url, 'PUT', '/v1/check_policy', {
      token: tenant.secret_key,
      body: {
        default_datasets: ['sanctions', 'pep'],
        aml_match_policy: { exclude_sources: ['us_ofac_sdn'] },
      },
    });
    expect(pol.status).toBe(200);
    const r = await post<Json>(tenant, `/v1/flows/${flow.body.id}/checks/aml_screen/rerun`);
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('decision');
    expect(r.body).not.toHaveProperty('status');
    expect(r.body).not.toHaveProperty('result');
    expect(r.body).toMatchObject({
      state: 'approved',
      outcome: 'approved',
      kind: 'checks_only',
      template_name: 'Default (AML screening only)',
      extracted_field_sources: {},
    });
    const checks = r.body.checks as Check[];
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatchObject({ check_type: 'aml_screen', result: 'clear', policy_version: 'v1' });
    const now = await get(tenant, `/v1/flows/${flow.body.id}`);
    expect(now.body).toMatchObject({
      status: 'APPROVED',
      decision: 'AUTO_APPROVED',
      decision_reason_codes: [],
    });
  });

  it('non-terminal rerun on an unprocessed flow records the check and keeps PENDING', async () => {
    const flow = await post(acme, '/v1/flows', { applicant: listed });
    const r = await post<Json>(acme, `/v1/flows/${flow.body.id}/checks/aml_screen/rerun`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'pending', outcome: 'pending' });
    expect(r.body.checks as Check[]).toHaveLength(1);
  });

  it('terminal rerun: a new check is recorded, the flow is unchanged', async () => {
    const flow = await post(acme, '/v1/flows', { mode: 'sync', applicant: listed });
    const rejected = await post(acme, `/v1/flows/${flow.body.id}/decide`, { decision: 'REJECTED' });
    expect(rejected.body.status).toBe('REJECTED');
    const r = await post<Json>(acme, `/v1/flows/${flow.body.id}/checks/aml_screen/rerun`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'rejected' });
    expect(r.body).not.toHaveProperty('outcome');
    expect(r.body.checks as Check[]).toHaveLength(2);
    const after = await get(acme, `/v1/flows/${flow.body.id}`);
    expect(after.body).toMatchObject({ status: 'REJECTED', decision: 'REJECTED' });
  });
});

describe('check policy', () => {
  it('GET shows the documented defaults as version "default"', async () => {
    const tenant = await createTenant(t, { name: 'Fresh' });
    const r = await get<Json>(tenant, '/v1/check_policy');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      policy_version: 'default',
      default_datasets: ['sanctions', 'pep'],
      blocked_countries: [],
      device_velocity_threshold: 5,
      fatf_black_handling: 'block',
      fatf_grey_handling: 'flag',
      four_eyes_required: false,
      vpn_policy: 'review',
      aml_match_policy: { algorithm: 'veriscreen-v1', review_threshold: 0.85, fail_threshold: 0.95 },
    });
  });

  it('rejects invalid policies with the field named', async () => {
    const cases: [Json, (string | number)[]][] = [
      [{}, ['body', 'default_datasets']],
      [{ default_datasets: [] }, ['body', 'default_datasets']],
      [{ default_datasets: ['gossip'] }, ['body', 'default_datasets', 0]],
      [
        { default_datasets: ['pep'], aml_match_policy: { algorithm: 'magic' } },
        ['body', 'aml_match_policy', 'algorithm'],
      ],
      [
        { default_datasets: ['pep'], aml_match_policy: { review_threshold: 0.9, fail_threshold: 0.8 } },
        ['body', 'aml_match_policy', 'fail_threshold'],
      ],
      [
        { default_datasets: ['pep'], aml_match_policy: { review_threshold: 1.5 } },
        ['body', 'aml_match_policy', 'review_threshold'],
      ],
      [
        { default_datasets: ['pep'], aml_match_policy: { dataset_thresholds: { gossip: 0.5 } } },
        ['body', 'aml_match_policy', 'dataset_thresholds'],
      ],
      [
        { default_datasets: ['pep'], aml_match_policy: { feature_weights: { shoe_size: 2 } } },
        ['body', 'aml_match_policy', 'feature_weights'],
      ],
      [{ default_datasets: ['pep'], blocked_countries: ['XX'] }, ['body', 'blocked_countries', 0]],
      [{ default_datasets: ['pep'], vpn_policy: 'maybe' }, ['body', 'vpn_policy']],
      [{ default_datasets: ['pep'], fatf_grey_handling: 'block' }, ['body', 'fatf_grey_handling']],
      [{ default_datasets: ['pep'], device_velocity_threshold: 0 }, ['body', 'device_velocity_threshold']],
    ];
    for (const [body, loc] of cases) {
      const r = await call<Json>(t.url, 'PUT', '/v1/check_policy', { token: acme.secret_key, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.detail, JSON.stringify(body)).toEqual(
        expect.arrayContaining([expect.objectContaining({ loc })]),
      );
    }
  });

  it('each PUT bumps the version; the next flow and its checks record it; other tenants unaffected', async () => {
    const tenant = await createTenant(t, { name: 'Versioned' });
    const put = (body: Json) =>
      call<Json>(t.url, 'PUT', '/v1/check_policy', { token: tenant.secret_key, body });
    const v1 = await put({
      default_datasets: ['sanctions'],
      blocked_countries: ['ru', 'IR'],
      four_eyes_required: true,
    });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      policy_version: 'v1',
      blocked_countries: ['IR', 'RU'],
      four_eyes_required: true,
    });
    const v2 = await put({ default_datasets: ['sanctions', 'pep'], vpn_policy: 'block' });
    expect(v2.body).toMatchObject({ policy_version: 'v2', vpn_policy: 'block', blocked_countries: [] });
    expect((await get<Json>(tenant, '/v1/check_policy')).body).toEqual(v2.body);
    const flow = await post(tenant, '/v1/flows', { mode: 'sync', applicant: clean });
    expect(flow.body.policy_version).toBe('v2');
    expect(flow.body.checks[0]?.policy_version).toBe('v2');
    // isolation: another tenant still has its own (default) policy
    expect((await get<Json>(globex, '/v1/check_policy')).body.policy_version).toBe('default');
  });
});

describe('flow templates', () => {
  it('lists the default template, creates, gets, patches every field and archives', async () => {
    const tenant = await createTenant(t, { name: 'Templates' });
    const list = await get<{ items: Json[]; next_cursor: string | null }>(tenant, '/v1/flow_templates');
    expect(list.body.items).toEqual([
      expect.objectContaining({ slug: 'default', required_checks: ['aml_screen'], checks_only: true }),
    ]);
    const created = await template(tenant, {
      slug: 'risk',
      name: 'Risk',
      required_checks: ['aml_screen', 'country_risk'],
      default_datasets: ['sanctions'],
    });
    expect(created).toMatchObject({
      slug: 'risk',
      description: null,
      archived_at: null,
      default_decision: 'AUTO_APPROVED',
      document_capture_mode: 'live_or_upload',
      passport_nfc_behavior: 'optional',
      intake_fields: [],
      required_documents: [],
    });
    const dup = await post<Json>(tenant, '/v1/flow_templates', {
      slug: 'risk',
      name: 'x',
      required_checks: ['aml_screen'],
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: { code: 'conflict' } });
    const patch = await call<Json>(t.url, 'PATCH', `/v1/flow_templates/${created.id}`, {
      token: tenant.secret_key,
      body: {
        name: 'Risk v2',
        description: 'with IP risk',
        required_checks: ['aml_screen', 'country_risk', 'ip_risk', 'device_fingerprint'],
        allowed_document_types: ['passport'],
        default_datasets: null,
        document_capture_mode: 'live_only',
        passport_nfc_behavior: 'required',
        intake_fields: ['legal_name', 'dob'],
        default_decision: 'MANUAL_REVIEW',
      },
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(patch.body).toMatchObject({
      name: 'Risk v2',
      description: 'with IP risk',
      default_datasets: null,
      document_capture_mode: 'live_only',
      passport_nfc_behavior: 'required',
      intake_fields: ['legal_name', 'dob'],
      default_decision: 'MANUAL_REVIEW',
      checks_only: true,
    });
    // no rule matches → the template's default decision (the intake fields it now asks for are given)
    const flow = await post(tenant, '/v1/flows', {
      mode: 'sync',
      template_slug: 'risk',
      applicant: { ...clean, dob: '1980-04-02' },
    });
    expect(flow.body).toMatchObject({
      status: 'NEEDS_REVIEW',
      decision: 'MANUAL_REVIEW',
      decision_reason_codes: [],
    });
    expect(flow.body.checks.map((c) => c.check_type).sort()).toEqual([
      'aml_screen',
      'country_risk',
      'device_fingerprint',
      'ip_risk',
    ]);
    const archived = await call<Json>(t.url, 'PATCH', `/v1/flow_templates/${created.id}`, {
      token: tenant.secret_key,
      body: { archived: true },
    });
    expect(archived.body.archived_at).toEqual(expect.any(String));
    const refused = await post<Json>(tenant, '/v1/flows', {
      mode: 'sync',
      template_slug: 'risk',
      applicant: clean,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'template_slug'], type: 'archived' }),
    ]);
    const onlyArchived = await get<{ items: Json[] }>(tenant, '/v1/flow_templates?archived=true');
    expect(onlyArchived.body.items.map((i) => i.slug)).toEqual(['risk']);
    await call(t.url, 'PATCH', `/v1/flow_templates/${created.id}`, {
      token: tenant.secret_key,
      body: { archived: false },
    });
    const again = await post(tenant, '/v1/flows', {
      mode: 'sync',
      template_slug: 'risk',
      applicant: { ...clean, dob: '1980-04-02' },
    });
    expect(again.status).toBe(201);
  });

  it('validates required_checks, documents and enums', async () => {
    const bad: [Json, (string | number)[]][] = [
      [{ slug: 'a', name: 'a', required_checks: [] }, ['body', 'required_checks']],
      [{ slug: 'a', name: 'a', required_checks: ['palm_reading'] }, ['body', 'required_checks', 0]],
      [{ slug: 'a', name: 'a', required_checks: ['document'] }, ['body', 'required_documents']],
      [
        {
          slug: 'a',
          name: 'a',
          required_checks: ['aml_screen'],
          required_documents: [{ min: 1, side: 'front', types: ['passport'] }],
        },
        ['body', 'required_checks'],
      ],
      [
        {
          slug: 'a',
          name: 'a',
          required_checks: ['document'],
          allowed_document_types: ['passport'],
          required_documents: [{ min: 1, side: 'front', types: ['id_card'] }],
        },
        ['body', 'required_documents', 0, 'types', 0],
      ],
      [
        { slug: 'a', name: 'a', required_checks: ['aml_screen'], document_capture_mode: 'fax' },
        ['body', 'document_capture_mode'],
      ],
      [
        { slug: 'a', name: 'a', required_checks: ['aml_screen'], intake_fields: ['shoe_size'] },
        ['body', 'intake_fields', 0],
      ],
      [{ slug: 'A B', name: 'a', required_checks: ['aml_screen'] }, ['body', 'slug']],
    ];
    for (const [body, loc] of bad) {
      const r = await post<Json>(acme, '/v1/flow_templates', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.detail, JSON.stringify(r.body)).toEqual(
        expect.arrayContaining([expect.objectContaining({ loc })]),
      );
    }
  });

  it('is tenant-scoped: another tenant gets 404 and cannot start flows with it', async () => {
    const mine = await template(acme, { slug: 'private', name: 'Private', required_checks: ['aml_screen'] });
    expect((await get<Json>(globex, `/v1/flow_templates/${mine.id}`)).status).toBe(404);
    const patch = await call(t.url, 'PATCH', `/v1/flow_templates/${mine.id}`, {
      token: globex.secret_key,
      body: { name: 'stolen' },
    });
    expect(patch.status).toBe(404);
    const flow = await post<Json>(globex, '/v1/flows', {
      mode: 'sync',
      template_slug: 'private',
      applicant: clean,
    });
    expect(flow.status).toBe(422);
    const list = await get<{ items: Json[] }>(globex, '/v1/flow_templates');
    expect(list.body.items.map((i) => i.slug)).toEqual(['default']);
  });
});

describe('check types and rules', () => {
  let risk: Tenant;
  beforeAll(async () => {
    risk = await createTenant(t, { name: 'Risky' });
    await template(risk, {
      slug: 'geo',
      name: 'Geo',
      required_checks: ['country_risk', 'ip_risk', 'device_fingerprint'],
    });
  });
  const geo = (applicant: Json, headers?: Record<string, string>, extra: Json = {}) =>
    post(risk, '/v1/flows', { mode: 'sync', template_slug: 'geo', applicant, ...extra }, headers);
  const putPolicy = (body: Json) =>
    call<Json>(t.url, 'PUT', '/v1/check_policy', {
      token: risk.secret_key,
      body: { default_datasets: ['sanctions'], ...body },
    });

  it('country_risk: FATF black → REJECTED (block), grey → review (flag) or ignored', async () => {
    const black = await geo({ ...clean, nationality: 'KP' });
    expect(black.body).toMatchObject({ status: 'REJECTED', decision_reason_codes: ['fatf_black'] });
    const cr = black.body.checks.find((c) => c.check_type === 'country_risk');
    expect(cr?.evidence).toMatchObject({
      countries: [{ source: 'nationality', country: 'KP', fatf: 'black' }],
    });
    expect(cr?.dataset_versions[0]).toMatch(/^fatf:\d+$/);
    const grey = await geo({ ...clean, address_country: 'PA' });
    expect(grey.body).toMatchObject({ status: 'NEEDS_REVIEW', decision_reason_codes: ['fatf_grey'] });
    await putPolicy({ fatf_grey_handling: 'ignore', fatf_black_handling: 'flag' });
    expect((await geo({ ...clean, address_country: 'PA' })).body.status).toBe('APPROVED');
    const flagged = await geo({ ...clean, nationality: 'KP' });
    expect(flagged.body).toMatchObject({ status: 'NEEDS_REVIEW', decision_reason_codes: ['fatf_black'] });
  });

  it('country_risk: blocked_countries over address, nationality and IP country', async () => {
    await putPolicy({ blocked_countries: ['GB'] });
    const byIp = await geo(clean, { 'x-forwarded-for': '81.2.69.142' });
    expect(byIp.body).toMatchObject({ status: 'REJECTED', decision_reason_codes: ['blocked_country'] });
    const cr = byIp.body.checks.find((c) => c.check_type === 'country_risk');
    expect(cr?.evidence.countries).toEqual([
      expect.objectContaining({ source: 'ip', country: 'GB', blocked: true }),
    ]);
    expect((await geo({ ...clean, address_country: 'gb' })).body.status).toBe('REJECTED');
    expect((await geo({ ...clean, address_country: 'FR' })).body.status).toBe('APPROVED');
  });

  it('ip_risk: the trusted header signal under each vpn_policy; absent → not_applicable', async () => {
    await putPolicy({});
    const none = await geo(clean);
    expect(none.body.checks.find((c) => c.check_type === 'ip_risk')?.result).toBe('not_applicable');
    const vpn = await geo(clean, { 'veriscreen-ip-risk': 'vpn' });
    expect(vpn.body).toMatchObject({ status: 'NEEDS_REVIEW', decision_reason_codes: ['vpn_detected'] });
    await putPolicy({ vpn_policy: 'block' });
    expect((await geo(clean, { 'veriscreen-ip-risk': 'hosting,tor' })).body).toMatchObject({
      status: 'REJECTED',
      decision_reason_codes: ['hosting_ip', 'tor_detected'],
    });
    await putPolicy({ vpn_policy: 'allow' });
    const allowed = await geo(clean, { 'veriscreen-ip-risk': 'vpn' });
    expect(allowed.body.status).toBe('APPROVED');
    expect(allowed.body.checks.find((c) => c.check_type === 'ip_risk')?.result).toBe('hit');
  });

  it('device_fingerprint: velocity over the Redis window against device_velocity_threshold', async () => {
    await putPolicy({ device_velocity_threshold: 2 });
    const device = { visitor_id: `visitor-${Date.now()}`, confidence: 0.98 };
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await geo(clean, undefined, { device })).body.status);
    expect(statuses).toEqual(['APPROVED', 'APPROVED', 'NEEDS_REVIEW']);
    const third = await geo(clean, undefined, { device });
    const dev = third.body.checks.find((c) => c.check_type === 'device_fingerprint');
    expect(dev).toMatchObject({ result: 'hit', reason_codes: ['device_velocity'] });
    expect(dev?.evidence).toMatchObject({ flows_in_window: 4, threshold: 2 });
    expect(JSON.stringify(dev?.evidence)).not.toContain(device.visitor_id);
  });

  it('an AML hit raises one alert per matched entity with four_eyes_required from policy', async () => {
    const tenant = await createTenant(t, { name: 'Alerts' });
    await call(t.url, 'PUT', '/v1/check_policy', {
      token: tenant.secret_key,
      body: { default_datasets: ['sanctions'], four_eyes_required: true },
    });
    const flow = await post(tenant, '/v1/flows', {
      mode: 'sync',
      applicant: { ...listed, external_id: 'cust-77' },
    });
    const check = flow.body.checks[0] as Check;
    const hits = (
      check.evidence.matches as { entity_id: string; score: number; evidence: { threshold: number } }[]
    ).filter((m) => m.score >= m.evidence.threshold);
    expect(check.alert_count).toBe(hits.length);
    const alerts = await t.app.sql<{ id: string; source_entity_id: string }[]>`
      select id, source_entity_id from alerts where check_id = ${check.id}`;
    expect(alerts.map((a) => a.source_entity_id).sort()).toEqual(hits.map((h) => h.entity_id).sort());
    const got = await get<Json>(tenant, `/v1/alerts/${alerts[0]?.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      check_id: check.id,
      state: 'open',
      subject_ref: 'cust-77',
      four_eyes_required: true,
      assigned_to: null,
      disposition_evidence: [],
      check: { id: check.id, status: 'completed', decision: 'MANUAL_REVIEW' },
      applicant: { external_id: 'cust-77' },
    });
    expect((await get(acme, `/v1/alerts/${alerts[0]?.id}`)).status).toBe(404);
    const alertEvents = await events(alerts.map((a) => a.id));
    expect(alertEvents.map((e) => e.type)).toEqual(alerts.map(() => 'alert.created'));
  });
});

describe('checks listing', () => {
  it('filters by every spec field, combined, newest first', async () => {
    const tenant = await createTenant(t, { name: 'Filters' });
    await template(tenant, { slug: 'two', name: 'Two', required_checks: ['aml_screen', 'ip_risk'] });
    const a = await post(tenant, '/v1/flows', {
      mode: 'sync',
      template_slug: 'two',
      applicant: { ...listed, external_id: 'ref-a' },
      datasets: ['sanctions'],
    });
    const b = await post(tenant, '/v1/flows', {
      mode: 'sync',
      applicant: { ...clean, external_id: 'ref-b' },
      datasets: ['pep'],
    });
    const list = async (q: string) =>
      (await get<{ items: Check[] & { flow_id: string }[] }>(tenant, `/v1/checks?${q}`)).body
        .items as unknown as (Check & {
        flow_id: string;
        reference: string;
      })[];
    expect((await list('')).map((c) => c.flow_id)).toEqual([b.body.id, a.body.id, a.body.id]);
    expect((await list('check_type=ip_risk')).map((c) => c.flow_id)).toEqual([a.body.id]);
    expect((await list('status=completed')).length).toBe(3);
    expect((await list('result=hit')).map((c) => c.reference)).toEqual(['ref-a']);
    expect((await list('result=not_applicable&check_type=ip_risk')).length).toBe(1);
    expect((await list('decision=MANUAL_REVIEW')).map((c) => c.check_type)).toEqual(['aml_screen']);
    expect((await list('dataset=pep')).map((c) => c.flow_id)).toEqual([b.body.id]);
    expect((await list('dataset=sanctions&check_type=aml_screen')).map((c) => c.flow_id)).toEqual([
      a.body.id,
    ]);
    expect((await list('reference=ref-b')).map((c) => c.flow_id)).toEqual([b.body.id]);
    expect((await list(`applicant_id=${a.body.applicant_id}&check_type=aml_screen`)).length).toBe(1);
    expect((await list(`flow_id=${a.body.id}&result=clear`)).length).toBe(0);
    expect((await list('search=demov')).map((c) => c.flow_id)).toEqual([a.body.id, a.body.id]);
    expect((await list('search=REF-B')).map((c) => c.flow_id)).toEqual([b.body.id]);
    expect((await list('search=100%25')).length).toBe(0);
    expect((await list('input_ref=nothing')).length).toBe(0);
    expect((await list('use_case=lookback')).length).toBe(0);
    const bad = await get<Json>(tenant, '/v1/checks?result=maybe&dataset=gossip');
    expect(bad.status).toBe(422);
    expect((bad.body.detail as Json[]).map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'result'],
        ['query', 'dataset'],
      ]),
    );
  });

  it('uses an index for the filtered listing (no sequential scan of checks)', async () => {
    await t.app.sql`analyze checks`;
    const plan = await t.app.sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx.unsafe(
        `explain select * from checks where tenant_id = '${acme.id}' and decision = 'MANUAL_REVIEW' order by seq desc limit 51`,
      );
    });
    expect(JSON.stringify(plan)).toMatch(/Index/);
  });

  it('a filter on a rare value uses its partial list index in a generic plan too (migration 020)', async () => {
    const cases = [
      ['checks', 'status', 'failed', 'checks_tenant_status'],
      ['checks', 'result', 'hit', 'checks_tenant_result'],
      ['checks', 'decision', 'REJECTED', 'checks_tenant_decision'],
      ['checks', 'check_type', 'ip_risk', 'checks_type'],
      ['flows', 'status', 'NEEDS_REVIEW', 'flows_tenant_status'],
      ['flows', 'decision', 'MANUAL_REVIEW', 'flows_tenant_decision'],
      ['flows', 'type', 'kyb', 'flows_tenant_type'],
      ['applicants', 'internal_status', 'under_review', 'applicants_tenant_status_seq'],
      ['audit_log', 'action', 'decideFlow', 'audit_log_tenant_action'],
    ] as const;
    await t.app.sql.begin(async (tx) => {
      // a prepared statement planned once for any value: the predicate must be provable from the text alone
      await tx`set local plan_cache_mode = force_generic_plan`;
      await tx`set local enable_seqscan = off`;
      for (const [table, column, value, index] of cases) {
        const filter = equalsFilter(tx, table, column as never, value);
        const { string } = await tx`
          select * from ${tx(table)} where tenant_id = ${acme.id} ${filter} order by seq desc limit 51`.describe();
        await tx.unsafe(`prepare list_${index} as ${string}`);
        const plan = await tx.unsafe(`explain execute list_${index}('${acme.id}', '${value}')`);
        expect(JSON.stringify(plan), index).toMatch(new RegExp(`Index (Only )?Scan (using|on) ${index}\\s`));
      }
      // the alert list names its table `al` (migration 023)
      const { string } = await tx`
        select al.* from alerts al where al.tenant_id = ${acme.id} ${equalsFilter(tx, 'alerts', 'state', 'escalated', 'al')}
        order by al.seq desc limit 51`.describe();
      await tx.unsafe(`prepare list_alerts_state as ${string}`);
      const plan = await tx.unsafe(`explain execute list_alerts_state('${acme.id}', 'escalated')`);
      expect(JSON.stringify(plan)).toMatch(/Index (Only )?Scan (using|on) alerts_tenant_state_seq\s/);
      const [def] = await tx<
        { d: string }[]
      >`select pg_get_indexdef('alerts_tenant_state_seq'::regclass) as d`;
      expect(def?.d).toMatch(/WHERE \(state <> 'open'::text\)/);
    });
  });

  it("a flow's wide jsonb values are TOAST-compressed with lz4, not pglz (migration 091)", async () => {
    const rows = await t.app.sql<{ col: string; c: string }[]>`
      select attrelid::regclass::text || '.' || attname as col, attcompression as c from pg_attribute
      where (attrelid, attname) in (('checks'::regclass, 'evidence'), ('alerts'::regclass, 'evidence'),
        ('outbox_sets'::regclass, 'events'), ('outbox_rows'::regclass, 'payload'))
      order by 1`;
    expect(rows).toEqual([
      { col: 'alerts.evidence', c: 'l' },
      { col: 'checks.evidence', c: 'l' },
      { col: 'outbox_rows.payload', c: 'l' },
      { col: 'outbox_sets.events', c: 'l' },
    ]);
  });
});

describe('flows and audit listing', () => {
  /** Every item of a listing, page by page (`limit=1`: a cursor between every two rows). */
  async function pages<T>(tenant: Tenant, path: string, query: string): Promise<T[]> {
    const items: T[] = [];
    let after: string | null = null;
    for (;;) {
      const r: { status: number; body: { items: T[]; next_cursor: string | null } } = await call(
        t.url,
        'GET',
        `${path}?limit=1${query ? `&${query}` : ''}${after ? `&after=${after}` : ''}`,
        { token: tenant.secret_key },
      );
      expect(r.status, `${path}?${query}`).toBe(200);
      items.push(...r.body.items);
      after = r.body.next_cursor;
      if (!after) return items;
    }
  }

  it('a status, decision, type or action filter, on a common or a rare value, across pages, returns exactly the rows that have it', async () => {
    const tenant = await createTenant(t, { name: 'List filters' });
    const made: Flow[] = [];
    for (const applicant of [
      listed,
      clean,
      { ...clean, legal_name_first: 'Ottoline' },
      { entity_type: 'business', business_name: 'Quorrelby Atwater Holdings' },
      { ...listed, external_id: 'second-listed' },
    ]) {
      const r = await post(tenant, '/v1/flows', { mode: 'sync', applicant });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      made.push(r.body);
    }
    const review = made.filter((f) => f.status === 'NEEDS_REVIEW');
    expect(review.length).toBe(2);
    expect((await post(tenant, `/v1/flows/${review[0]!.id}/decide`, { decision: 'REJECTED' })).status).toBe(
      200,
    );

    const flows = await pages<Flow>(tenant, '/v1/flows', '');
    expect(flows.map((f) => f.id).sort()).toEqual(made.map((f) => f.id).sort());
    const values = (k: 'status' | 'decision' | 'type') => [
      ...new Set(flows.map((f) => f[k]).filter((v) => typeof v === 'string')),
    ];
    // the common values (APPROVED, AUTO_APPROVED, kyc) and rare ones (NEEDS_REVIEW, REJECTED, MANUAL_REVIEW, kyb)
    expect(values('status')).toEqual(expect.arrayContaining(['APPROVED', 'NEEDS_REVIEW', 'REJECTED']));
    expect(values('type')).toEqual(expect.arrayContaining(['kyc', 'kyb']));
    for (const k of ['status', 'decision', 'type'] as const) {
      for (const v of values(k)) {
        const got = await pages<Flow>(tenant, '/v1/flows', `${k}=${v}`);
        expect(
          got.map((f) => f.id),
          `${k}=${v}`,
        ).toEqual(flows.filter((f) => f[k] === v).map((f) => f.id));
      }
    }
    const both = await pages<Flow>(tenant, '/v1/flows', 'status=APPROVED&type=kyb');
    expect(both.map((f) => f.id)).toEqual(
      flows.filter((f) => f.status === 'APPROVED' && f.type === 'kyb').map((f) => f.id),
    );

    const audit = await pages<{ id: string; action: string }>(tenant, '/v1/audit_events', '');
    const actions = [...new Set(audit.map((a) => a.action))];
    expect(actions).toEqual(expect.arrayContaining(['createFlow', 'decideFlow']));
    for (const action of actions) {
      const got = await pages<{ id: string }>(tenant, '/v1/audit_events', `action=${action}`);
      expect(
        got.map((a) => a.id),
        action,
      ).toEqual(audit.filter((a) => a.action === action).map((a) => a.id));
    }
  });
});

describe('tenant isolation for flows', () => {
  it('process, decide, rerun and get of another tenant’s flow → 404; lists exclude it', async () => {
    const mine = await post(acme, '/v1/flows', { mode: 'sync', applicant: listed });
    for (const path of ['process', 'checks/aml_screen/rerun']) {
      expect((await post<Json>(globex, `/v1/flows/${mine.body.id}/${path}`)).status).toBe(404);
    }
    expect(
      (await post<Json>(globex, `/v1/flows/${mine.body.id}/decide`, { decision: 'REJECTED' })).status,
    ).toBe(404);
    expect((await get(globex, `/v1/flows/${mine.body.id}`)).status).toBe(404);
    const flows = await get<{ items: Flow[] }>(globex, '/v1/flows?limit=200');
    expect(flows.body.items.map((f) => f.id)).not.toContain(mine.body.id);
    const checks = await get<{ items: Check[] }>(globex, `/v1/checks?search=demovsky`);
    expect(checks.body.items).toEqual([]);
    expect((await get(acme, `/v1/flows/${mine.body.id}`)).body.status).toBe('NEEDS_REVIEW');
  });
});
