import type { ApplicantSessionView, JourneyStep } from '../../schemas/journey.js';
import type { RequiredDocument } from '../../schemas/templates.js';
import {
  intakeApplicantFields,
  missingIntake,
  needsBiometricConsent,
  presenceInRow,
  type StoredApplicantInputs,
} from '../applicants/applicant-intake.js';
import type { ApplicantPrincipal } from '../auth/principal.js';
import type { Sql } from '../db/sql.js';
import { SessionGone } from '../domain-errors.js';
import { applicantInputColumns, unmetUploads } from '../flows/flow-inputs.js';
import type { FrameRow } from '../liveness/challenge-frames.js';
import { flowSubmittedAt, latestHandoff, sessionById } from './journey-store.js';
import { linkStatus } from './link-service.js';

/**
 * What an applicant session sees (docs/journey.md, ApplicantSessionView): the steps its flow's template needs, what
 * is still missing and a status. Never checks, evidence, list data, a decision or reason codes: an applicant is not
 * told a screening outcome (tipping-off), so `done` says only that the flow is decided.
 */
export interface JourneyTemplate {
  slug: string;
  required_checks: string[];
  required_documents: RequiredDocument[];
  intake_fields: string[];
  allowed_document_types: string[];
  allowed_issuing_countries: string[];
  document_capture_mode: string;
  passport_nfc_behavior: string;
}

interface SessionDoc extends FrameRow {
  id: string;
  side: string;
  upload_status: string;
  capture: 'api' | 'hosted_camera' | 'hosted_upload';
}

export interface JourneyState {
  flow_id: string;
  applicant_id: string;
  flow_status: string;
  tenant_name: string;
  template: JourneyTemplate;
  applicant: StoredApplicantInputs & { consent: { biometric?: boolean; policy_version?: string } | null };
  docs: SessionDoc[];
  submitted_at: Date | null;
}

type Steps = ApplicantSessionView['steps'];

/** An upload counts for the applicant once completed and not rejected (the flow itself waits until it is read);
 * newest first, as the liveness frames are read. */
const counted = (docs: SessionDoc[]) =>
  docs.filter((d) => d.upload_status === 'uploaded' || d.upload_status === 'verified').reverse();

const docOut = (d: SessionDoc) => ({
  id: d.id,
  doc_type: d.doc_type,
  side: d.side,
  upload_status: d.upload_status,
  capture: d.capture,
});

/** The steps a template needs, in order: consent (always: the privacy notice), intake, document, selfie, review. */
export function stepNamesOf(
  t: Pick<JourneyTemplate, 'intake_fields' | 'required_checks' | 'required_documents'>,
): JourneyStep[] {
  return [
    'consent',
    ...(t.intake_fields.length ? (['intake'] as const) : []),
    ...(t.required_checks.includes('document') || t.required_documents.length ? (['document'] as const) : []),
    ...(t.required_checks.includes('selfie') ? (['selfie'] as const) : []),
    'review',
  ];
}

type Step = Steps[number];
/** What every step is read from: the state, what the applicant has and the uploads still unmet. */
interface Reading {
  s: JourneyState;
  has: (name: string) => boolean;
  unmet: string[];
}

const STEPS: Record<JourneyStep, (r: Reading) => Step> = {
  consent: ({ s }) => {
    const consent = s.applicant.consent;
    const bio = needsBiometricConsent(s.template);
    return {
      name: 'consent',
      done: consent !== null && (!bio || consent.biometric === true),
      biometric_required: bio,
      policy_version: consent?.policy_version ?? null,
    };
  },
  intake: ({ s, has }) => ({
    name: 'intake',
    done: missingIntake(s.template.intake_fields, has).length === 0,
    fields: intakeApplicantFields(s.template.intake_fields).map((f) => ({
      ...f,
      value_present: has(f.name),
    })),
  }),
  document: ({ s, unmet }) => ({
    name: 'document',
    done: !unmet.includes('document'),
    allowed_document_types: s.template.allowed_document_types as never,
    allowed_issuing_countries: s.template.allowed_issuing_countries,
    required_documents: s.template.required_documents,
    capture_mode: s.template.document_capture_mode as never,
    // `required`: the chip is read by the tenant's app (the page says so); verified by the chip check
    nfc: s.template.passport_nfc_behavior as never,
    documents: s.docs.filter((d) => d.doc_type !== 'selfie').map(docOut),
  }),
  selfie: ({ s, unmet }) => ({
    name: 'selfie',
    done: !unmet.includes('selfie'),
    liveness: true,
    documents: s.docs.filter((d) => d.doc_type === 'selfie').map(docOut),
  }),
  review: ({ s }) => ({ name: 'review', done: s.submitted_at !== null }),
};

/** The template's steps with what the applicant did of each. */
export function journeySteps(s: JourneyState): Steps {
  const reading = { s, has: presenceInRow(s.applicant), unmet: unmetUploads(counted(s.docs), s.template) };
  return stepNamesOf(s.template).map((name) => STEPS[name](reading));
}

/** What the applicant still has to give before submit (consent, intake fields by name, document, selfie). */
export function missingForSubmit(s: JourneyState, steps: Steps): string[] {
  const consentDone = steps[0]?.done ?? false;
  return [
    ...(consentDone ? [] : ['consent']),
    ...missingIntake(s.template.intake_fields, presenceInRow(s.applicant)),
    ...unmetUploads(counted(s.docs), s.template),
  ];
}

/** The step the applicant is on (the first not done) and those before it: the steps the session reached. */
export function reachedSteps(steps: Steps): JourneyStep[] {
  const current = steps.findIndex((st) => !st.done);
  return steps.slice(0, current < 0 ? steps.length : current + 1).map((st) => st.name);
}

export function viewStatus(flowStatus: string, submitted: boolean): ApplicantSessionView['status'] {
  if (flowStatus === 'PROCESSING') return 'processing';
  if (['NEEDS_REVIEW', 'APPROVED', 'REJECTED', 'FAILED'].includes(flowStatus)) return 'done';
  return submitted ? 'submitted' : 'collecting';
}

/** Loads what the view is made of. */
export async function journeyState(
  sql: Sql,
  p: Pick<ApplicantPrincipal, 'tenant_id' | 'flow_id'>,
): Promise<JourneyState> {
  const [row] = await sql<
    (Omit<JourneyState, 'template' | 'applicant' | 'docs' | 'submitted_at'> &
      JourneyTemplate &
      JourneyState['applicant'])[]
  >`
    select f.id as flow_id, f.applicant_id, f.status as flow_status, tn.name as tenant_name,
           t.slug, t.required_checks, t.required_documents, t.intake_fields, t.allowed_document_types,
           t.allowed_issuing_countries, t.document_capture_mode, t.passport_nfc_behavior,
           ${applicantInputColumns(sql)}
    from flows f
    join tenants tn on tn.id = f.tenant_id
    join flow_templates t on t.id = f.flow_template_id
    join applicants a on a.id = f.applicant_id and a.tenant_id = f.tenant_id
    where f.id = ${p.flow_id} and f.tenant_id = ${p.tenant_id} and a.erased_at is null`;
  if (!row) throw new SessionGone('The flow of this session is gone');
  const [docs, submitted_at] = await Promise.all([
    sql<SessionDoc[]>`
      select d.id, d.doc_type, d.side, d.upload_status, d.capture, d.liveness_challenge_id, d.pose,
             c.poses as challenge_poses
      from documents d left join liveness_challenges c on c.id = d.liveness_challenge_id
      where d.tenant_id = ${p.tenant_id} and d.flow_id = ${p.flow_id} order by d.seq limit 200`,
    flowSubmittedAt(sql, p.flow_id),
  ]);
  const { slug, required_checks, required_documents, intake_fields, allowed_document_types } = row;
  const { allowed_issuing_countries, document_capture_mode, passport_nfc_behavior } = row;
  return {
    flow_id: row.flow_id,
    applicant_id: row.applicant_id,
    flow_status: row.flow_status,
    tenant_name: row.tenant_name,
    template: {
      slug,
      required_checks,
      required_documents,
      intake_fields,
      allowed_document_types,
      allowed_issuing_countries,
      document_capture_mode,
      passport_nfc_behavior,
    },
    applicant: row,
    docs: [...docs],
    submitted_at,
  };
}

/** The hand-off a verification session made last, as its view shows it (the desktop polls it). */
async function handoffState(sql: Sql, sessionId: string): Promise<ApplicantSessionView['handoff']> {
  const h = await latestHandoff(sql, sessionId);
  if (!h) return null;
  const state = linkStatus(h);
  const status = state === 'active' ? 'waiting' : state === 'used' && h.opened_active ? 'opened' : 'ended';
  return { status, expires_at: h.expires_at.toISOString() };
}

/** The whole view of a session, from its state. */
export async function sessionView(
  sql: Sql,
  p: ApplicantPrincipal,
  state: JourneyState,
): Promise<ApplicantSessionView> {
  const session = await sessionById(sql, p.session_id);
  const [link] = await sql<{ redirect_url: string | null; locale: string | null }[]>`
    select redirect_url, locale from verification_links where id = ${p.link_id}`;
  const steps = journeySteps(state);
  return {
    flow_id: p.flow_id,
    purpose: p.purpose,
    locale: (session?.locale ?? link?.locale ?? null) as ApplicantSessionView['locale'],
    tenant: { display_name: state.tenant_name },
    expires_at: p.expires_at.toISOString(),
    redirect_url: link?.redirect_url ?? null,
    steps,
    missing: missingForSubmit(state, steps),
    status: viewStatus(state.flow_status, state.submitted_at !== null),
    handoff: p.purpose === 'verification' ? await handoffState(sql, p.session_id) : null,
  };
}
