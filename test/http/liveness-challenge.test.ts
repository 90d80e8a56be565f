// The selfie liveness challenge through HTTP: a challenge is issued, one selfie frame per pose is uploaded
// (presigned, to the embedded S3), the identity worker measures each frame's head pose and face, and the selfie
// check's `liveness_challenge` sub-check judges them. Frames: real photos of one person and views derived from them
// (test/helpers/challenge-frames.ts says how).
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_POSES } from '../../schemas/liveness.js';
import type { FrameEvidence } from '../../server/checks/types/liveness-challenge.js';
import type { ApiCheck, ApiFlow } from '../helpers/api-types.js';
import { challengeFrames, IMG4_FACE, type PoseFrames } from '../helpers/challenge-frames.js';
import { face, HAS_IDENTITY_DATA, syntheticPassport } from '../helpers/identity-images.js';
import { applicantUpload, asApplicant, bearerSession, journeyFlow, mintLink } from '../helpers/journey.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface SubCheck {
  name: string;
  passed: boolean | null;
  value: unknown;
  reason_code?: string;
}
type Check = ApiCheck<{
  sub_checks?: SubCheck[];
  liveness_challenge?: { frames: FrameEvidence[]; poses: string[] } | null;
}>;
type Flow = ApiFlow<Check['evidence']>;
interface Challenge {
  id: string;
  nonce: string;
  poses: string[];
  expires_at: string;
}
interface ErrorBody {
  error: { code: string; details?: Record<string, unknown> };
  detail?: { loc: (string | number)[]; type: string }[];
}

let t: TestApp;
let acme: Tenant;
let other: Tenant;
let frames: PoseFrames;
let passport: Buffer;

const OPEN = ['PENDING', 'AWAITING_INPUT', 'PROCESSING'];
const consenting = {
  legal_name_first: 'Anna Maria',
  legal_name_last: 'Eriksson',
  dob: '1974-08-12',
  consent: { biometric: true },
};
const getFlow = (id: string) => call<Flow>(t.url, 'GET', `/v1/flows/${id}`, { token: acme.secret_key });

async function template(slug: string, body: Record<string, unknown>) {
  const r = await call(t.url, 'POST', '/v1/flow_templates', {
    token: acme.secret_key,
    body: { slug, name: slug, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

/** An async flow on `slug`, processed once: it waits for its uploads. */
async function awaitingFlow(slug: string, token = acme.secret_key): Promise<string> {
  const f = await call<Flow>(t.url, 'POST', '/v1/flows', {
    token,
    body: { template_slug: slug, applicant: consenting, datasets: ['pep'] },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  expect((await call(t.url, 'POST', `/v1/flows/${f.body.id}/process`, { token })).status).toBe(202);
  await waitFor('AWAITING_INPUT', async () => {
    const r = await call<Flow>(t.url, 'GET', `/v1/flows/${f.body.id}`, { token });
    return r.body.status === 'AWAITING_INPUT' || undefined;
  });
  return f.body.id;
}

const challenge = (flowId: string, token = acme.secret_key) =>
  call<Challenge & ErrorBody>(t.url, 'POST', `/v1/flows/${flowId}/liveness_challenges`, { token });

/** Registers an upload by submission_id; the answer as it came. */
const register = (flowId: string, body: Record<string, unknown>) =>
  call<{ id: string; pose?: string; upload: { url: string; headers: Record<string, string> } } & ErrorBody>(
    t.url,
    'POST',
    '/v1/documents',
    { token: acme.secret_key, body: { submission_id: flowId, doc_type: 'selfie', ...body } },
  );

async function put(r: Awaited<ReturnType<typeof register>>, bytes: Buffer): Promise<void> {
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const res = await fetch(r.body.upload.url, { method: 'PUT', headers: r.body.upload.headers, body: bytes });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
}

async function complete(flowId: string, documentId: string): Promise<void> {
  const done = await call(t.url, 'POST', `/v1/flows/${flowId}/documents/${documentId}/complete`, {
    token: acme.secret_key,
  });
  expect(done.status).toBe(202);
}

/** Registers, uploads and completes one upload; returns its id. */
async function upload(flowId: string, body: Record<string, unknown>, bytes: Buffer): Promise<string> {
  const r = await register(flowId, body);
  await put(r, bytes);
  await complete(flowId, r.body.id);
  return r.body.id;
}

/** Uploads a frame for each pose of `c`; `pick` chooses the image for a pose (default: that pose's frame). */
async function uploadFrames(flowId: string, c: Challenge, pick = (pose: string) => frames[pose as 'front']) {
  for (const pose of c.poses) {
    await upload(flowId, { liveness_challenge_id: c.id, pose }, pick(pose));
  }
}

async function decided(flowId: string): Promise<Flow> {
  return waitFor(
    'a decision',
    async () => {
      const r = await getFlow(flowId);
      return OPEN.includes(r.body.status) ? undefined : r.body;
    },
    240_000,
    250,
  );
}

const selfieCheck = (f: Flow) => f.checks.find((c) => c.check_type === 'selfie');
const challengeSub = (f: Flow) =>
  selfieCheck(f)?.evidence.sub_checks?.find((s) => s.name === 'liveness_challenge');

describe.skipIf(!HAS_IDENTITY_DATA)('selfie liveness challenge', () => {
  beforeAll(async () => {
    t = await startTestApp({ env: { DOCUMENT_MAX_BYTES: '2000000' } });
    acme = await createTenant(t, { name: 'Acme', plan: 'self_serve' });
    other = await createTenant(t, { name: 'Other', plan: 'self_serve' });
    await template('passport-selfie', {
      required_checks: ['aml_screen', 'document', 'selfie'],
      allowed_document_types: ['passport'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    });
    await template('selfie-only', { required_checks: ['selfie'] });
    await template('passport-only', {
      required_checks: ['document'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    });
    frames = await challengeFrames();
    passport = await syntheticPassport(
      {
        surname: 'ERIKSSON',
        given_names: 'ANNA MARIA',
        birth_date: consenting.dob,
        expiry_date: `${new Date().getUTCFullYear() + 5}-06-30`,
        sex: 'F',
        document_number: 'X73192648',
      },
      face('img4.jpg'),
      IMG4_FACE,
    );
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('issues front and three distinct turns, valid five minutes', async () => {
    const id = await awaitingFlow('selfie-only');
    const r = await challenge(id);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.poses).toHaveLength(4);
    expect(r.body.poses[0]).toBe('front');
    expect(new Set(r.body.poses).size).toBe(4);
    for (const p of r.body.poses.slice(1)) expect(TURN_POSES).toContain(p);
    expect(r.body.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const ttl = Date.parse(r.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(240_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
  });

  it('a passing challenge: the flow waits for every frame, then the sub-check passes and the flow is APPROVED', async () => {
    const id = await awaitingFlow('passport-selfie');
    const c = (await challenge(id)).body;
    await upload(id, { doc_type: 'passport' }, passport);
    // every frame but the last: read, and the flow still waits (the front frame alone is not the selfie input)
    for (const pose of c.poses.slice(0, 3)) {
      await upload(id, { liveness_challenge_id: c.id, pose }, frames[pose as 'front']);
    }
    const read = await waitFor(
      'four uploads read',
      async () => {
        const r = await getFlow(id);
        return r.body.documents.filter((d) => d.analysis_status === 'done').length === 4 ? r.body : undefined;
      },
      240_000,
      250,
    );
    expect(read.status).toBe('AWAITING_INPUT');
    expect(read.documents.filter((d) => d.pose).map((d) => d.pose)).toEqual(c.poses.slice(0, 3));
    const last = c.poses[3] as 'left';
    await upload(id, { liveness_challenge_id: c.id, pose: last }, frames[last]);
    const f = await decided(id);
    expect(challengeSub(f), JSON.stringify(selfieCheck(f)?.evidence)).toMatchObject({
      passed: true,
      value: 4,
    });
    const evidence = selfieCheck(f)?.evidence.liveness_challenge;
    expect(evidence?.poses).toEqual(c.poses);
    expect(evidence?.frames.map((x) => x.pose)).toEqual(c.poses);
    for (const frame of evidence?.frames ?? []) {
      expect(frame).toMatchObject({ pose_shown: true, same_person: true, in_time: true });
      expect(typeof frame.yaw).toBe('number');
      expect(frame.similarity).toBeGreaterThan(0.44);
    }
    expect(f.status).toBe('APPROVED');
  }, 300_000);

  it('a frame in the wrong pose, or of another person: the sub-check fails and the flow goes to review, not rejected', async () => {
    const wrong = await awaitingFlow('selfie-only');
    const cw = (await challenge(wrong)).body;
    const turn = cw.poses[1] as string;
    // the frontal photo for the first turn asked
    await uploadFrames(wrong, cw, (pose) => (pose === turn ? frames.front : frames[pose as 'front']));
    const stranger = await awaitingFlow('selfie-only');
    const cs = (await challenge(stranger)).body;
    // every challenge has left or right: that turn is shown by another person (turned the right way)
    const side = cs.poses.includes('left') ? 'left' : 'right';
    const strangerFrame = await mirroredIf(side === 'right', frames.stranger_left);
    await uploadFrames(stranger, cs, (pose) => (pose === side ? strangerFrame : frames[pose as 'front']));
    const [fw, fs] = await Promise.all([decided(wrong), decided(stranger)]);

    expect(challengeSub(fw)).toMatchObject({ passed: false, reason_code: 'liveness_challenge_failed' });
    const wf = selfieCheck(fw)?.evidence.liveness_challenge?.frames.find((x) => x.pose === turn);
    expect(wf).toMatchObject({ pose_shown: false, same_person: true });
    expect(fw.status).toBe('NEEDS_REVIEW');
    expect(fw.decision_reason_codes).toContain('liveness_challenge_failed');

    expect(challengeSub(fs)).toMatchObject({ passed: false, reason_code: 'liveness_challenge_failed' });
    const sf = selfieCheck(fs)?.evidence.liveness_challenge?.frames.find((x) => x.pose === side);
    expect(sf).toMatchObject({ pose_shown: true, same_person: false });
    expect(fs.status).toBe('NEEDS_REVIEW');
    expect(fs.decision_reason_codes).toContain('liveness_challenge_failed');
  }, 300_000);

  it('an applicant session issues and answers a challenge on its own flow only, as the hosted page does; its selfie is never a plain one', async () => {
    const flow = await journeyFlow(t, acme, 'selfie-only');
    const a = await bearerSession(t, await mintLink(t, acme, flow.id));
    const consent = { biometric: true, policy_version: 'acme-2026-01' };
    expect((await asApplicant(t, a, 'POST', '/v1/applicant_session/consent', consent)).status).toBe(200);
    const other = await awaitingFlow('selfie-only');
    const foreign = await asApplicant<ErrorBody>(t, a, 'POST', `/v1/flows/${other}/liveness_challenges`);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('applicant_session_forbidden');
    // the journey's selfie is the challenge: a plain one from the applicant session is refused, on the camera or not
    for (const capture of ['camera', 'upload']) {
      const plain = await asApplicant<ErrorBody>(t, a, 'POST', '/v1/documents', {
        submission_id: flow.id,
        doc_type: 'selfie',
        capture,
      });
      expect(plain.status).toBe(422);
      expect(plain.body.detail?.map((d) => [d.loc, d.type])).toEqual([
        [['body', 'liveness_challenge_id'], 'missing'],
      ]);
    }
    const c = await asApplicant<Challenge>(t, a, 'POST', `/v1/flows/${flow.id}/liveness_challenges`);
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    for (const pose of c.body.poses) {
      const body = { doc_type: 'selfie', capture: 'camera', liveness_challenge_id: c.body.id, pose };
      await applicantUpload(t, a, flow.id, body, frames[pose as 'front']);
    }
    // the applicant submits once every frame is read (until then: 409 inputs_missing, selfie)
    await waitFor(
      'the submit accepted',
      async () =>
        (await asApplicant(t, a, 'POST', '/v1/applicant_session/submit')).status === 202 || undefined,
      240_000,
      500,
    );
    const f = await decided(flow.id);
    expect(challengeSub(f)).toMatchObject({ passed: true, value: 4 });
    // a selfie-only template has no portrait to compare with: review for that alone, nothing from the challenge
    expect(f.decision_reason_codes).toEqual(['selfie_no_document_face']);
  }, 300_000);

  it('an expired challenge: no frame is registered after expiry, and frames completed after it go to review', async () => {
    const id = await awaitingFlow('selfie-only');
    const c = (await challenge(id)).body;
    // every frame registered and uploaded in time, but completed after the challenge expired
    const registered: string[] = [];
    for (const pose of c.poses) {
      const r = await register(id, { liveness_challenge_id: c.id, pose });
      await put(r, frames[pose as 'front']);
      registered.push(r.body.id);
    }
    await t.app
      .sql`update liveness_challenges set expires_at = now() - interval '1 second' where id = ${c.id}`;
    const late = await register(id, { liveness_challenge_id: c.id, pose: 'front' });
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe('liveness_challenge_expired');
    expect(late.body.detail?.[0]?.loc).toEqual(['body', 'liveness_challenge_id']);
    for (const doc of registered) await complete(id, doc);
    const f = await decided(id);
    expect(challengeSub(f)).toMatchObject({ passed: false, reason_code: 'liveness_challenge_expired' });
    expect(selfieCheck(f)?.evidence.liveness_challenge?.frames.every((x) => !x.in_time)).toBe(true);
    expect(f.status).toBe('NEEDS_REVIEW');
    expect(f.decision_reason_codes).toContain('liveness_challenge_expired');
  }, 300_000);

  it('refuses a reused pose, a pose not asked, and challenges of other flows or tenants with clear 4xx', async () => {
    const id = await awaitingFlow('selfie-only');
    const c = (await challenge(id)).body;
    const first = await register(id, { liveness_challenge_id: c.id, pose: 'front' });
    expect(first.status).toBe(201);
    expect(first.body.pose).toBe('front');
    const again = await register(id, { liveness_challenge_id: c.id, pose: 'front' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'liveness_challenge_used', details: { pose: 'front' } });

    const notAsked = TURN_POSES.find((p) => !c.poses.includes(p));
    const bad = await register(id, { liveness_challenge_id: c.id, pose: notAsked });
    expect(bad.status).toBe(422);
    expect(bad.body.detail?.[0]).toMatchObject({ loc: ['body', 'pose'], type: 'not_allowed' });

    const otherFlow = await awaitingFlow('selfie-only');
    const elsewhere = await register(otherFlow, { liveness_challenge_id: c.id, pose: 'front' });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('liveness_challenge_unknown');
    expect(elsewhere.body.detail?.[0]?.loc).toEqual(['body', 'liveness_challenge_id']);
    // another tenant cannot issue a challenge on this flow, nor see it
    expect((await challenge(id, other.secret_key)).status).toBe(404);

    const noPose = await register(id, { liveness_challenge_id: c.id });
    expect(noPose.status).toBe(422);
    expect(noPose.body.detail?.[0]?.loc).toEqual(['body', 'pose']);
    const notSelfie = await register(id, {
      doc_type: 'passport',
      liveness_challenge_id: c.id,
      pose: 'front',
    });
    expect(notSelfie.status).toBe(422);
    expect(notSelfie.body.detail?.[0]).toMatchObject({ loc: ['body', 'doc_type'], type: 'not_allowed' });
    const badPose = await register(id, { liveness_challenge_id: c.id, pose: 'sideways' });
    expect(badPose.status).toBe(422);
    expect(badPose.body.detail?.[0]?.loc).toEqual(['body', 'pose']);
  });

  it('issues challenges only on flows with the selfie check, and only so many per flow', async () => {
    const noSelfie = await awaitingFlow('passport-only');
    const r = await challenge(noSelfie);
    expect(r.status).toBe(422);
    expect(r.body.detail?.[0]).toMatchObject({ loc: ['path', 'flow_id'], type: 'not_allowed' });
    expect((await challenge('00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const id = await awaitingFlow('selfie-only');
    for (let i = 0; i < 10; i++) expect((await challenge(id)).status).toBe(201);
    const over = await challenge(id);
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('liveness_challenge_limit');
  });
});

async function mirroredIf(mirror: boolean, image: Buffer): Promise<Buffer> {
  return mirror ? sharp(image).flop().jpeg({ quality: 92 }).toBuffer() : image;
}
