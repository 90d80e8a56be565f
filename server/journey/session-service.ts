import type { ApplicantSessionView, ConsentIn, IntakeIn } from '../../schemas/journey.js';
import {
  intakeApplicantFields,
  needsBiometricConsent,
  presenceInRow,
} from '../applicants/applicant-intake.js';
import { type ApplicantDeps, patchApplicant } from '../applicants/applicant-service.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import { fenceApplicant } from '../auth/authorize.js';
import type { ApplicantPrincipal, TenantPrincipal } from '../auth/principal.js';
import { json, transaction } from '../db/sql.js';
import { AllowanceExhausted, ConsentRequired, StateConflict } from '../domain-errors.js';
import { type FlowDeps, resumeIfInputsComplete, startProcessing } from '../flows/flow-service.js';
import type { Metrics } from '../metrics.js';
import { outboxEvent, writeEvents } from '../outbox/outbox.js';
import { reachSteps } from './journey-store.js';
import { type LinkDeps, mintHandoff } from './link-service.js';
import {
  type JourneyState,
  journeyState,
  journeySteps,
  missingForSubmit,
  reachedSteps,
  sessionView,
} from './session-view.js';

/** What an applicant session may do (docs/journey.md, "What an applicant session may do"). */
export interface JourneyDeps extends LinkDeps {
  /** Secure on the vs_applicant cookie (SESSION_COOKIE_SECURE) */
  secureCookie: boolean;
  metrics: Metrics;
  flowDeps: FlowDeps;
  applicantDeps: ApplicantDeps;
}

/** GET /v1/applicant_session, and the answer of every operation: the view; a verification session's newly reached
 * steps are recorded once (the funnel) and counted (veriscreen_verification_steps_total). */
export async function viewOf(deps: JourneyDeps, p: ApplicantPrincipal): Promise<ApplicantSessionView> {
  const state = await journeyState(deps.sql, p);
  const view = await sessionView(deps.sql, p, state);
  if (p.purpose === 'verification') {
    const fresh = await reachSteps(
      deps.sql,
      { session_id: p.session_id, tenant_id: p.tenant_id, flow_id: p.flow_id },
      reachedSteps(view.steps),
    );
    for (const step of fresh) deps.metrics.verificationSteps.inc({ template: state.template.slug, step });
  }
  return view;
}

/** The applicant may give inputs while the flow waits for them and before it submitted. */
function assertCollecting(state: JourneyState): void {
  if (!['PENDING', 'AWAITING_INPUT'].includes(state.flow_status) || state.submitted_at) {
    throw new StateConflict('flow_not_collecting', undefined, {
      status: state.flow_status,
      submitted: state.submitted_at !== null,
    });
  }
}

/** A verification session on a flow that collects: the state its operation works on. */
async function collectingState(deps: JourneyDeps, p: ApplicantPrincipal): Promise<JourneyState> {
  fenceApplicant(p, undefined, 'verification');
  const state = await journeyState(deps.sql, p);
  assertCollecting(state);
  return state;
}

/** POST /v1/applicant_session/consent: recorded on the applicant with when and through what it was given. */
export async function giveConsent(
  deps: JourneyDeps,
  p: ApplicantPrincipal,
  body: ConsentIn,
  requestId: string,
): Promise<ApplicantSessionView> {
  const state = await collectingState(deps, p);
  if (needsBiometricConsent(state.template) && !body.biometric) {
    throw new ConsentRequired(
      'This verification compares your face with your document: it needs your biometric consent',
      undefined,
      ['body', 'biometric'],
    );
  }
  const consent = { ...body, given_at: new Date().toISOString(), source: 'applicant_session' };
  await transaction(deps.sql, async (tx) => {
    await tx`
      update applicants set consent = ${json(tx, consent)}, updated_at = now()
      where id = ${state.applicant_id} and tenant_id = ${p.tenant_id}`;
    await writeAudit(tx, {
      tenant_id: p.tenant_id,
      ...actorOf(p),
      action: 'applicant.consent_given',
      resource_type: 'applicant',
      resource_id: state.applicant_id,
      request_id: requestId,
      details: { flow_id: p.flow_id, biometric: body.biometric, policy_version: body.policy_version },
    });
  });
  return viewOf(deps, p);
}

/** What intake asks of this session's applicant: the applicant fields of the template's intake, and those of them
 * still required (required and not there yet). The route validates the body against exactly these. */
export async function intakeAsked(
  deps: JourneyDeps,
  p: ApplicantPrincipal,
): Promise<{ asked: string[]; required: string[] }> {
  const state = await collectingState(deps, p);
  const fields = intakeApplicantFields(state.template.intake_fields);
  const has = presenceInRow(state.applicant);
  return {
    asked: fields.map((f) => f.name),
    required: fields.filter((f) => f.required && !has(f.name)).map((f) => f.name),
  };
}

/** PUT /v1/applicant_session/intake (a body validated by the route against intakeAsked): the fields onto the
 * applicant, as a PATCH would (which offers its waiting flows to processing). */
export async function giveIntake(
  deps: JourneyDeps,
  p: ApplicantPrincipal,
  body: IntakeIn,
  requestId: string,
): Promise<ApplicantSessionView> {
  const state = await collectingState(deps, p);
  if (Object.keys(body).length) {
    await patchApplicant(deps.applicantDeps, p, p.tenant_id, state.applicant_id, body, requestId);
  }
  return viewOf(deps, p);
}

/** POST /v1/applicant_session/submit: 409 inputs_missing while the applicant still owes something; else the
 * session is marked submitted (the flow's first submit writes verification.submitted) and the flow moves on. */
export async function submit(deps: JourneyDeps, p: ApplicantPrincipal): Promise<ApplicantSessionView> {
  fenceApplicant(p, undefined, 'verification');
  const state = await journeyState(deps.sql, p);
  if (state.submitted_at) return viewOf(deps, p);
  assertCollecting(state);
  const missing = missingForSubmit(state, journeySteps(state));
  if (missing.length) throw new StateConflict('inputs_missing', undefined, { missing });
  await markSubmitted(deps, p, state.applicant_id);
  await startFlow(deps.flowDeps, p, state.flow_status);
  return viewOf(deps, p);
}

async function markSubmitted(deps: JourneyDeps, p: ApplicantPrincipal, applicantId: string): Promise<void> {
  await transaction(deps.sql, async (tx) => {
    // one submit per flow: the flow's row lock orders two sessions (or two clicks) submitting at once
    await tx`select id from flows where id = ${p.flow_id} for update`;
    const [earlier] = await tx`
      select 1 from applicant_sessions where flow_id = ${p.flow_id} and submitted_at is not null limit 1`;
    if (earlier) return;
    await tx`update applicant_sessions set submitted_at = now() where id = ${p.session_id}`;
    await writeEvents(tx, [
      outboxEvent(p.tenant_id, 'verification.submitted', p.flow_id, {
        flow_id: p.flow_id,
        applicant_id: applicantId,
        session_id: p.session_id,
      }),
    ]);
  });
}

/** The flow moves on as after POST /process, started by the system for the tenant: a PENDING flow is processed
 * (its first run is charged), a waiting one resumes when its inputs are all read. Without allowance left the flow
 * stays as it is (the tenant gets the 402 on its own /process). */
async function startFlow(flowDeps: FlowDeps, p: ApplicantPrincipal, status: string): Promise<void> {
  if (status === 'AWAITING_INPUT') {
    await resumeIfInputsComplete(flowDeps, p.tenant_id, p.flow_id);
    return;
  }
  const system: TenantPrincipal = {
    kind: 'secret',
    tenant_id: p.tenant_id,
    key_id: 'system:applicant_session',
    plan: p.plan,
    allowed_origins: [],
  };
  try {
    await startProcessing(flowDeps, system, p.flow_id);
  } catch (err) {
    const moved = err instanceof StateConflict && err.code === 'unsupported_operation';
    if (!(moved || err instanceof AllowanceExhausted)) throw err;
  }
}

/** POST /v1/applicant_session/cancel: the session ends; the flow stays as it is. */
export async function cancel(deps: JourneyDeps, p: ApplicantPrincipal): Promise<void> {
  await deps.sql`
    update applicant_sessions set ended_at = now(), end_reason = 'cancelled'
    where id = ${p.session_id} and ended_at is null`;
}

/** POST /v1/applicant_session/handoff: a second one-time link for another device (15 minutes, upload only). */
export async function handoff(deps: JourneyDeps, p: ApplicantPrincipal, host: string | undefined) {
  await collectingState(deps, p);
  return mintHandoff(deps, { tenant_id: p.tenant_id, flow_id: p.flow_id, session_id: p.session_id }, host);
}
