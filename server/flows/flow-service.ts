import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { Redis } from 'ioredis';
import { mrzData, readingData } from '../../identity/document/index.js';
import type { AmlDataset } from '../../schemas/common.js';
import type {
  FlowCreateIn,
  FlowDecideIn,
  FlowDecision,
  FlowOut,
  FlowOutB,
  FlowStatus,
} from '../../schemas/flows.js';
import {
  intakeApplicantFields,
  missingApplicantInputs,
  needsBiometricConsent,
  presenceInInput,
  presenceInRow,
  type StoredApplicantInputs,
} from '../applicants/applicant-intake.js';
import { ADDRESS_FIELDS, emailHash, identifierColumns } from '../applicants/applicant-model.js';
import type { TenantPrincipal } from '../auth/principal.js';
import { type Bus, ExpectedRetry } from '../bus/jetstream.js';
import type { CheckRow } from '../checks/check-model.js';
import type { ApplicantData, CheckInput, CheckOutcome, CheckRunDeps } from '../checks/check-type.js';
import {
  buildCheck,
  type CheckRecord,
  checkEvents,
  type RecordContext,
  recordChecks,
  rememberAlerts,
  runChecks,
} from '../checks/recorder.js';
import { checkType, isChecksOnly, runsWithoutUploads } from '../checks/registry.js';
import { decideFlow } from '../checks/rules.js';
import { subjectName } from '../checks/types/aml-screen.js';
import { newId } from '../db/ids.js';
import { type Sql, type Tx, transaction } from '../db/sql.js';
import { flowDocuments } from '../documents/document-service.js';
import {
  AllowanceExhausted,
  ConsentRequired,
  NotFound,
  NotPermitted,
  StateConflict,
} from '../domain-errors.js';
import { invalid, ValidationError } from '../errors.js';
import type { FatfState } from '../fatf/fatf-store.js';
import { traceFlow, traceNow } from '../flow-trace.js';
import {
  differsFrom,
  documentApplicant,
  extractedFields,
  readingExtractedFields,
} from '../identity/extracted.js';
import { identityInputs, verifiedChipMrz } from '../identity/identity-inputs.js';
import type { Metrics } from '../metrics.js';
import { type OutboxRow, outboxEvent, writeEvents } from '../outbox/outbox.js';
import { type CheckPolicy, checkPolicyFor } from '../policy/check-policy.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import { poolScreener } from '../screening/pool-screener.js';
import { templateAndPolicy, templateById } from '../templates/template-store.js';
import { consumeAllowance, refundAllowance } from '../tenants/allowance.js';
import { type ClientMetadata, type ClientRequest, captureClientMetadata } from './client-metadata.js';
import { missingInputs, unmetUploads } from './flow-inputs.js';
import { type FlowRow, flowOut, flowOutB } from './flow-model.js';
import { assertCan, statusForDecision } from './flow-states.js';
import {
  type ApplicantInsert,
  type AuditInsert,
  completeRun,
  type FlowGraph,
  failRun,
  findFlow,
  flowApplicant,
  flowChecks,
  insertFlowGraph,
  insertFlowGraphIn,
  moveToAwaitingInput,
  moveToProcessing,
  processingChecks,
  recordReview,
  redecide,
  tenantPlan,
} from './flow-store.js';

export interface FlowDeps {
  sql: Sql;
  pool: MatcherPool;
  metrics: Metrics;
  redis: Redis;
  bus: Bus;
  fatf: () => FatfState;
  /** key for the keyed email hash (applicants keep email_hash, not the address) */
  piiKey: string;
  trustedProxies: BlockList;
  /** FLOW_WRITE_MAX_QUEUE: the bound of the flows waiting to be written (server/flows/flow-store.ts) */
  writeMaxQueue?: number;
}

/** The use case of every flow's screenings: a flow verifies an applicant being taken on, so the policy's
 * `use_case_thresholds.onboarding` applies to it, as a batch's `use_case` does to its records
 * (docs/decisions/checks.md, "Flows are onboarding"). */
export const FLOW_USE_CASE = 'onboarding';

const checkDeps = (d: FlowDeps): CheckRunDeps => ({
  screen: poolScreener(d.pool, d.metrics),
  redis: d.redis,
  fatf: d.fatf,
});

/** Where a new flow's allowance unit and rows are written: the pool (the rows by group commit; a unit whose flow is
 * not stored is given back by hand) or the caller's transaction (a flow under an Idempotency-Key: the unit, the rows
 * and the key record commit or roll back together, nothing to give back). */
type FlowWrite = { db: Sql; tx: false } | { db: Tx; tx: true };

/** A sync flow's unit was consumed before its checks ran: it is given back when the flow cannot be stored (best
 * effort: when the database is down the refund fails too). */
async function refundIfUnstored<T>(
  write: FlowWrite,
  tenant: { tenant_id: string; plan: string },
  charged: boolean,
  storing: Promise<T>,
): Promise<T> {
  try {
    return await storing;
  } catch (err) {
    if (charged && !write.tx && tenant.plan === 'self_serve')
      await refundAllowance(write.db, tenant.tenant_id).catch(() => {});
    throw err;
  }
}

/** Runs checks with one allowance unit: refunded when infrastructure fails, so a failed screen costs nothing. */
async function metered<T>(
  write: FlowWrite,
  tenant: { tenant_id: string; plan: string },
  fn: () => Promise<T>,
): Promise<T> {
  const meteredTenant = tenant.plan === 'self_serve';
  if (meteredTenant) await consumeAllowance(write.db, tenant.tenant_id);
  try {
    return await fn();
  } catch (err) {
    if (meteredTenant && !write.tx) await refundAllowance(write.db, tenant.tenant_id);
    throw err;
  }
}

function flowEvents(
  f: { tenant_id: string; id: string; applicant_id: string },
  d: {
    status: FlowStatus;
    decision: FlowDecision | null;
    reason_codes: string[];
    reviewed_by?: string;
  },
  types: ('flow.created' | 'flow.completed' | 'flow.decided')[],
): OutboxRow[] {
  return types.map((t) =>
    outboxEvent(f.tenant_id, t, f.id, {
      flow_id: f.id,
      applicant_id: f.applicant_id,
      status: d.status,
      decision: d.decision,
      decision_reason_codes: d.reason_codes,
      ...(d.reviewed_by ? { reviewed_by: d.reviewed_by } : {}),
    }),
  );
}

type Template = Awaited<ReturnType<typeof templateAndPolicy>>['template'];

/**
 * POST /v1/flows, in phases: admit (who may create what), the applicant row, the sync checks (screened and recorded
 * by the screening recorder), the decision and events, then the whole graph in one statement.
 */
export async function createFlow(
  deps: FlowDeps,
  tenant: TenantPrincipal,
  input: FlowCreateIn,
  client: ClientRequest,
  actor?: { actor_type: string; actor_id: string | null },
  /** the transaction of the request's Idempotency-Key record, when it has one */
  tx?: Tx,
): Promise<{ flow: FlowOut; redacted: { id: string; reason_codes: string[]; result: string } }> {
  const { sql } = deps;
  const started = traceNow();
  const write: FlowWrite = tx ? { db: tx, tx: true } : { db: sql, tx: false };
  const { template, policy } = await templateAndPolicy(
    sql,
    tenant.tenant_id,
    input.template_slug ?? 'default',
  );
  const { mode, datasets, name, missing } = admitFlow(tenant, input, client, template, policy);
  const a = input.applicant;
  const applicantId = newId();
  const flowId = newId();
  traceFlow(flowId, 'started', started);
  const reference = a.external_id ?? null;
  const meta = await captureClientMetadata(client, deps.trustedProxies);

  // sync: every check runs now, on one allowance unit; the false-positive memory reads only, and what it decides is
  // written in the flow's one statement
  const records: CheckRecord[] = [];
  if (mode === 'sync') {
    const input_: CheckInput = {
      tenant_id: tenant.tenant_id,
      flow_id: flowId,
      applicant: a,
      client_metadata: meta,
      device: input.device,
      mode,
      datasets,
      policy,
      use_case: FLOW_USE_CASE,
    };
    const outcomes = await metered(write, tenant, () =>
      runChecks(checkDeps(deps), template.required_checks, input_),
    );
    traceFlow(flowId, 'screened');
    const ctx: RecordContext = {
      tenant_id: tenant.tenant_id,
      policy,
      mode,
      flow_id: flowId,
      applicant_id: applicantId,
      applicant_name: name ?? null,
      reference,
      subject_ref: reference ?? applicantId,
      use_case: FLOW_USE_CASE,
    };
    records.push(...outcomes.map((o) => buildCheck(o, ctx)));
    // the applicant is new: when it is the subject (no external_id), no earlier alert can name it
    await rememberAlerts(sql, records, new Set([applicantId]));
  }

  const decided =
    mode === 'sync'
      ? decideFlow(
          records.map((r) => r.check),
          template.default_decision,
        )
      : null;
  // an async flow whose applicant inputs (consent, intake) are to be collected waits for them from the start
  const status = decided
    ? statusForDecision(decided.decision)
    : missing.length
      ? 'AWAITING_INPUT'
      : 'PENDING';
  const f = { tenant_id: tenant.tenant_id, id: flowId, applicant_id: applicantId };
  const d = { status, decision: decided?.decision ?? null, reason_codes: decided?.reason_codes ?? [] };
  const graph: FlowGraph = {
    applicant: applicantRow(deps.piiKey, tenant.tenant_id, applicantId, a),
    flow: {
      id: flowId,
      tenant_id: tenant.tenant_id,
      applicant_id: applicantId,
      flow_template_id: template.id,
      template_slug: template.slug,
      type: input.type ?? (a.entity_type === 'business' ? 'kyb' : 'kyc'),
      status,
      decision: d.decision,
      decision_reason_codes: d.reason_codes,
      execution_mode: mode,
      datasets,
      client_metadata: meta,
      policy_version: policy.policy_version,
      completed_at: decided ? new Date() : null,
    },
    checks: records,
    events: [
      ...flowEvents(f, d, ['flow.created']),
      ...checkEvents(records),
      ...(decided ? flowEvents(f, d, ['flow.completed', 'flow.decided']) : []),
    ],
    ...(actor ? { audit: createdAudit(tenant.tenant_id, flowId, client, actor) } : {}),
  };
  traceFlow(flowId, 'queued');
  const storing = write.tx
    ? insertFlowGraphIn(write.db, graph)
    : insertFlowGraph(sql, graph, deps.writeMaxQueue);
  const { flow, checks } = await refundIfUnstored(write, tenant, mode === 'sync', storing);
  traceFlow(flowId, 'stored');
  // a new flow has no uploads yet
  const out = flowOut(
    flow,
    checks,
    [],
    mode === 'async' ? [...missing, ...unmetUploads([], template)] : undefined,
  );
  return {
    flow: out,
    redacted: { id: out.id, reason_codes: out.decision_reason_codes, result: out.result ?? 'pending' },
  };
}

/** Who may create what: publishable keys only checks-only sync flows from an allowed origin, on the template's and
 * policy's datasets; sync mode only for checks-only templates; a name when the template screens it. */
function admitFlow(
  tenant: TenantPrincipal,
  input: FlowCreateIn,
  client: ClientRequest,
  template: Template,
  policy: CheckPolicy,
): { mode: 'sync' | 'async'; datasets: AmlDataset[]; name: string | undefined; missing: string[] } {
  const mode = input.mode ?? 'async';
  const checksOnly = isChecksOnly(template);
  if (tenant.kind === 'publishable') {
    if (mode !== 'sync' || !checksOnly) {
      throw new NotPermitted('forbidden', 'A publishable key may only create checks-only flows in sync mode');
    }
    const origin = client.headers.origin;
    if (!origin || !tenant.allowed_origins.includes(origin)) throw new NotPermitted('origin_not_allowed');
    // a browser must not choose what it is screened against: its flows use the template's and policy's datasets
    if (input.datasets !== undefined) {
      throw invalid(
        ['body', 'datasets'],
        "A publishable key cannot choose datasets: its flows are screened against the template's and check policy's",
        'forbidden',
      );
    }
  }
  if (mode === 'sync' && !checksOnly) {
    throw invalid(
      ['body', 'mode'],
      'mode sync is only valid for checks-only templates (no document or biometric checks)',
    );
  }
  const a = input.applicant;
  const missing = admitApplicantInputs(template, a, mode);
  const name = subjectName(a);
  if (template.required_checks.includes('aml_screen') && !name && !intakeCollectsName(template, a)) {
    throw invalid(
      ['body', 'applicant', a.entity_type === 'business' ? 'business_name' : 'legal_name_last'],
      'A name is required to screen the applicant (legal_name_first/legal_name_last, or business_name for a business)',
      'missing',
    );
  }
  const datasets = (input.datasets ?? template.default_datasets ?? policy.default_datasets) as AmlDataset[];
  return { mode, datasets, name, missing };
}

/** The applicant inputs a new flow lacks (consent, intake fields): an async flow waits for them (the applicant's
 * session or PATCH /v1/applicants provides them); a sync flow cannot wait, so each is a 422. A consent that says no
 * to biometrics is refused: the selfie check could never run. */
function admitApplicantInputs(template: Template, a: FlowCreateIn['applicant'], mode: string): string[] {
  if (needsBiometricConsent(template) && a.consent?.biometric === false) {
    // the selfie check compares faces: biometric processing needs the applicant's explicit consent
    throw new ConsentRequired(undefined, { template_slug: template.slug });
  }
  const missing = missingApplicantInputs(template, a.consent, presenceInInput(a));
  if (mode === 'sync' && missing.length) {
    const issues = intakeApplicantFields(missing)
      .filter((f) => f.required && a[f.name as keyof typeof a] === undefined)
      .map((f) => ({
        loc: ['body', 'applicant', f.name],
        msg: `Required by the template's intake_fields (${f.intake_field})`,
        type: 'missing',
      }));
    throw new ValidationError(issues);
  }
  return missing;
}

/** Whether the template's intake collects the name the AML screen needs (so a flow may start without it). */
function intakeCollectsName(template: Template, a: FlowCreateIn['applicant']): boolean {
  return template.intake_fields.includes(a.entity_type === 'business' ? 'business_name' : 'legal_name');
}

/** The applicant row of a new flow: the e-mail only as a keyed hash, the address as one document. */
function applicantRow(
  piiKey: string,
  tenantId: string,
  id: string,
  a: FlowCreateIn['applicant'],
): ApplicantInsert {
  const address = Object.fromEntries(ADDRESS_FIELDS.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
  return {
    id,
    tenant_id: tenantId,
    external_id: a.external_id ?? null,
    entity_type: a.entity_type ?? 'individual',
    legal_name_first: a.legal_name_first ?? null,
    legal_name_middle: a.legal_name_middle ?? null,
    legal_name_last: a.legal_name_last ?? null,
    business_name: a.business_name ?? null,
    dob: a.dob ?? null,
    nationality: a.nationality?.toUpperCase() ?? null,
    email_hash: a.email ? emailHash(piiKey, a.email) : null,
    // absent (not null) when not given: the graph statement's JSON rows stay as small as before
    phone_hash: undefined,
    phone_hint: undefined,
    tax_id_hash: undefined,
    tax_id_hint: undefined,
    ...identifierColumns(piiKey, a),
    address,
    consent: a.consent ?? null,
    custom_attributes: a.custom_attributes ?? {},
  };
}

/** The audit row an operator's flow creation writes with the flow (in the same statement). */
function createdAudit(
  tenantId: string,
  flowId: string,
  client: ClientRequest,
  actor: { actor_type: string; actor_id: string | null },
): AuditInsert {
  return {
    id: newId(),
    tenant_id: tenantId,
    actor_type: actor.actor_type,
    actor_id: actor.actor_id,
    action: 'createFlow',
    resource_type: 'flows',
    resource_id: flowId,
    request_id: client.request_id,
    details: { method: 'POST', route: '/v1/flows', status: 201, created_id: flowId },
  };
}

async function loadFlow(sql: Sql, tenantId: string, flowId: string, lock = false): Promise<FlowRow> {
  const flow = await findFlow(sql, tenantId, flowId, lock);
  if (!flow) throw new NotFound('Flow');
  return flow;
}

export async function getFlow(sql: Sql, tenantId: string, flowId: string): Promise<FlowOut> {
  const flow = await loadFlow(sql, tenantId, flowId);
  const [checks, documents, missing] = await Promise.all([
    flowChecks(sql, tenantId, flowId),
    flowDocuments(sql, tenantId, flowId),
    flowMissingInputs(sql, flow),
  ]);
  return flowOut(flow, checks, documents, missing);
}

/** The missing inputs of a flow that waits (PENDING, AWAITING_INPUT); absent on any other. */
async function flowMissingInputs(sql: Sql, flow: FlowRow): Promise<string[] | undefined> {
  if (!['PENDING', 'AWAITING_INPUT'].includes(flow.status) || !flow.flow_template_id) return undefined;
  const template = await templateById(sql, flow.tenant_id, flow.flow_template_id);
  return template ? missingInputs(sql, flow, template) : [];
}

export interface FlowJob {
  tenant_id: string;
  flow_id: string;
  run: number;
}

export const flowJobId = (j: FlowJob) => `flow_process-${j.flow_id}-${j.run}`;

/**
 * POST /process: PENDING | AWAITING_INPUT → PROCESSING and the job, atomically; the allowance unit is consumed on
 * the first move out of PENDING only (a flow resumed after its uploads, or a repeated /process while it awaits
 * input, is not charged again). The job is published inside the transaction: if publishing fails nothing changed;
 * if the commit fails after publishing, the worker finds the run was never committed and drops the job (see
 * handleFlowJob).
 */
export async function startProcessing(
  deps: FlowDeps,
  tenant: TenantPrincipal,
  flowId: string,
): Promise<void> {
  await transaction(deps.sql, async (tx) => {
    const flow = await loadFlow(tx, tenant.tenant_id, flowId, true);
    assertCan(flow.status, 'process', 'PROCESSING');
    // charged on the flow's first run (a flow created AWAITING_INPUT has none yet)
    if (tenant.plan === 'self_serve' && flow.process_run === 0) await consumeAllowance(tx, tenant.tenant_id);
    const run = flow.process_run + 1;
    await moveToProcessing(tx, tenant.tenant_id, flowId, flow.status, run);
    const job: FlowJob = { tenant_id: tenant.tenant_id, flow_id: flowId, run };
    await deps.bus.publishJob('flow_process', job, flowJobId(job));
  });
}

/** How a check of an existing flow is recorded: the subject across flows is the tenant's external_id, else the
 * flow's applicant. */
function flowCheckContext(
  flow: FlowRow,
  applicant: ApplicantData,
  policy: CheckPolicy,
  mode: 'sync' | 'async',
  run_key: string,
): RecordContext {
  return {
    tenant_id: flow.tenant_id,
    policy,
    mode,
    flow_id: flow.id,
    applicant_id: flow.applicant_id,
    applicant_name: subjectName(applicant) ?? null,
    reference: applicant.external_id ?? null,
    subject_ref: applicant.external_id ?? flow.applicant_id,
    run_key,
    use_case: FLOW_USE_CASE,
  };
}

/** Moves a flow waiting in AWAITING_INPUT whose inputs are all there back to processing (the system's POST
 * /process: no charge, see startProcessing). Returns whether it did; a concurrent move (another upload, a client's
 * /process) makes it a no-op. */
export async function resumeIfInputsComplete(
  deps: FlowDeps,
  tenantId: string,
  flowId: string,
): Promise<boolean> {
  const { sql } = deps;
  const f = await findFlow(sql, tenantId, flowId);
  if (f?.status !== 'AWAITING_INPUT' || !f.flow_template_id) return false;
  const template = await templateById(sql, tenantId, f.flow_template_id);
  if (!template || (await missingInputs(sql, f, template)).length) return false;
  const plan = await tenantPlan(sql, tenantId);
  if (!plan) return false;
  try {
    await startProcessing(
      deps,
      { kind: 'secret', tenant_id: tenantId, key_id: 'system:documents', plan, allowed_origins: [] },
      flowId,
    );
    return true;
  } catch (err) {
    // moved meanwhile; or a self-serve tenant without allowance: the flow waits for its own POST /process
    if (err instanceof AllowanceExhausted) return false;
    if (err instanceof StateConflict && err.code === 'unsupported_operation') return false;
    throw err;
  }
}

type ApplicantRow = ApplicantData & StoredApplicantInputs;

async function applicantData(sql: Sql, tenantId: string, applicantId: string): Promise<ApplicantRow> {
  const a = await flowApplicant(sql, tenantId, applicantId);
  if (!a) throw new Error(`applicant ${applicantId} not found`);
  return a;
}

export interface JobFaults {
  /** called after each check is recorded (tests: simulate a crash mid-processing) */
  afterCheck?(checkType: string): void | Promise<void>;
}

/** The slot of a processing check: its run_key without the `p<run>:` prefix (`aml_screen`, `document`,
 * `aml_screen:document`, ...). */
const slotOf = (runKey: string | null) => (runKey ?? '').slice((runKey ?? '').indexOf(':') + 1);

/**
 * The flow_process worker. Idempotent under redelivery and across runs: each check has the run_key
 * `p<run>:<slot>`, and a slot recorded by any earlier run or delivery of the flow is reused, not run again — so a
 * flow resumed after its uploads (or a repeated /process while it awaits input) is neither screened nor charged
 * twice. The final move out of PROCESSING is guarded by `status = 'PROCESSING' and process_run = <run>`, so it
 * happens once. With every input there, the upload check types (document, selfie) run over what the identity
 * worker read, the identity the document states is screened as well (aml_screen in slot `aml_screen:document`),
 * and the rules decide on all of it together.
 */
export async function handleFlowJob(deps: FlowDeps, job: FlowJob, faults: JobFaults = {}): Promise<void> {
  const { sql } = deps;
  const flow = await findFlow(sql, job.tenant_id, job.flow_id);
  if (!flow) return;
  // published inside a transaction that has not committed (yet, or ever): retry, and give up quietly
  if (flow.process_run < job.run) throw new RunNotCommitted(job);
  if (flow.process_run > job.run || flow.status !== 'PROCESSING') return;
  const template = flow.flow_template_id
    ? await templateById(sql, job.tenant_id, flow.flow_template_id)
    : undefined;
  if (!template) throw new Error(`flow ${flow.id} has no template`);
  const policy = await checkPolicyFor(sql, job.tenant_id);
  const applicant = await applicantData(sql, job.tenant_id, flow.applicant_id);
  const name = subjectName(applicant) ?? null;
  const input: CheckInput = {
    tenant_id: job.tenant_id,
    flow_id: flow.id,
    applicant,
    client_metadata: flow.client_metadata as Partial<ClientMetadata>,
    mode: 'async',
    datasets: flow.datasets,
    policy,
    use_case: FLOW_USE_CASE,
  };
  const prefix = `p${job.run}:`;
  const earlier = new Map((await processingChecks(sql, flow.id)).map((c) => [slotOf(c.run_key), c]));
  const recorded: CheckRow[] = [];
  const once = async (slot: string, subject: string | null, run: () => Promise<CheckOutcome>) => {
    let row = earlier.get(slot);
    if (!row) {
      const rec = buildCheck(await run(), {
        ...flowCheckContext(flow, applicant, policy, 'async', `${prefix}${slot}`),
        applicant_name: subject,
      });
      [row] = (await recordChecks(sql, [rec])).rows;
      await faults.afterCheck?.(slot);
    }
    if (row) recorded.push(row);
  };
  const single = async (type: string, i: CheckInput) => {
    const [o] = await runChecks(checkDeps(deps), [type], i);
    if (!o) throw new Error(`${type} gave no outcome`);
    return o;
  };
  // the applicant's own inputs first: nothing is screened without the name or date of birth it waits for
  if (missingApplicantInputs(template, applicant.consent, presenceInRow(applicant)).length) {
    return awaitInputs(deps, job, policy.policy_version);
  }
  for (const type of template.required_checks.filter(runsWithoutUploads)) {
    await once(type, name, () => single(type, input));
  }
  if ((await missingInputs(sql, flow, template)).length) return awaitInputs(deps, job, policy.policy_version);
  let extracted: { fields: Record<string, unknown>; sources: Record<string, string> } | undefined;
  const uploadTypes = template.required_checks.filter((c) => !runsWithoutUploads(c));
  if (uploadTypes.length) {
    const identity = await identityInputs(sql, job.tenant_id, flow.id);
    const withUploads: CheckInput = {
      ...input,
      uploads: {
        identity,
        template: {
          allowed_document_types: template.allowed_document_types,
          allowed_issuing_countries: template.allowed_issuing_countries,
          passport_nfc_behavior: template.passport_nfc_behavior,
        },
        biometric_consent: applicant.consent?.biometric === true,
      },
    };
    for (const type of uploadTypes) {
      const def = checkType(type);
      if (def) await once(type, name, () => def.run(checkDeps(deps), withUploads));
    }
    // a verified chip's DG1 first: issued by the state and unaltered, it outranks the printed MRZ or a barcode
    const chipMrz = verifiedChipMrz(identity);
    const reading = identity.document?.reading;
    const data = chipMrz ? mrzData(chipMrz) : readingData(reading);
    if (data) {
      extracted = chipMrz
        ? extractedFields(chipMrz, applicant, 'chip')
        : (readingExtractedFields(reading, applicant) ?? undefined);
      const docApplicant = documentApplicant(data);
      const docName = subjectName(docApplicant) ?? null;
      if (
        template.required_checks.includes('aml_screen') &&
        docName &&
        differsFrom(docApplicant, applicant)
      ) {
        await once('aml_screen:document', docName, async () => {
          const o = await single('aml_screen', { ...input, applicant: docApplicant });
          return { ...o, evidence: { ...o.evidence, subject_source: 'document' } };
        });
      }
    }
  }
  await transaction(sql, async (tx) => {
    const decided = decideFlow(recorded, template.default_decision);
    const status = statusForDecision(decided.decision);
    const moved = await completeRun(
      tx,
      flow.id,
      job.run,
      { status, ...decided, policy_version: policy.policy_version },
      extracted,
    );
    if (moved) {
      const events = flowEvents(
        flow,
        { status, decision: decided.decision, reason_codes: decided.reason_codes },
        ['flow.completed', 'flow.decided'],
      );
      await writeEvents(tx, events);
    }
  });
}

/** PROCESSING → AWAITING_INPUT for this run; then a second look at the inputs: one provided while this run was
 * deciding saw PROCESSING and left the flow alone, so that a flow never stays in AWAITING_INPUT with its inputs
 * there. */
async function awaitInputs(deps: FlowDeps, job: FlowJob, policyVersion: string): Promise<void> {
  await moveToAwaitingInput(deps.sql, job.flow_id, job.run, policyVersion);
  await resumeIfInputsComplete(deps, job.tenant_id, job.flow_id);
}

/** The flow_process job was published inside the transaction that starts the run, so a worker often takes it
 * before that commits: an expected retry (logged at debug), dropped quietly when the run never commits. */
export class RunNotCommitted extends ExpectedRetry {
  constructor(job: FlowJob) {
    super(`flow ${job.flow_id} run ${job.run} is not committed (yet)`);
  }
}

/** After the last delivery: a run that never committed is dropped; a real failure moves the flow to FAILED and
 * refunds the unit (infrastructure failures never cost a customer a check). */
export async function giveUpFlowJob(deps: FlowDeps, job: FlowJob, err: unknown): Promise<void> {
  if (err instanceof RunNotCommitted) return;
  const { sql } = deps;
  await transaction(sql, async (tx) => {
    const flow = await failRun(
      tx,
      job.tenant_id,
      job.flow_id,
      job.run,
      (err as Error).message ?? String(err),
    );
    if (!flow) return;
    await refundAllowance(tx, job.tenant_id);
    const events = flowEvents(flow, { status: 'FAILED', decision: null, reason_codes: [] }, [
      'flow.completed',
    ]);
    await writeEvents(tx, events);
  });
}

/** POST /decide: only from NEEDS_REVIEW (flow-states.ts); records the decision, reason codes, actor and time. */
export async function decideFlowReview(
  sql: Sql,
  tenantId: string,
  flowId: string,
  input: FlowDecideIn,
  actor: string,
): Promise<FlowOut> {
  const flow = await transaction(sql, async (tx) => {
    const current = await loadFlow(tx, tenantId, flowId, true);
    const status = statusForDecision(input.decision);
    assertCan(current.status, 'decide', status);
    const codes = input.reason_codes ?? current.decision_reason_codes;
    const decided = { status, decision: input.decision, reason_codes: codes };
    const row = await recordReview(tx, tenantId, flowId, current.status, decided, actor);
    if (!row) throw new Error('decide lost its row lock');
    await writeEvents(
      tx,
      flowEvents(row, { status, decision: input.decision, reason_codes: codes, reviewed_by: actor }, [
        'flow.decided',
      ]),
    );
    return row;
  });
  return flowOut(flow, await flowChecks(sql, tenantId, flowId), await flowDocuments(sql, tenantId, flowId));
}

/**
 * AML rerun (docs/decisions.md, "AML rerun"): always records a new aml_screen check. A flow in NEEDS_REVIEW whose
 * decision the rules made has its rules re-evaluated over the latest check of each type; every other flow keeps
 * its status. Returns shape B.
 */
export async function rerunAml(deps: FlowDeps, tenant: TenantPrincipal, flowId: string): Promise<FlowOutB> {
  const { sql } = deps;
  const flow = await loadFlow(sql, tenant.tenant_id, flowId);
  const template = flow.flow_template_id
    ? await templateById(sql, tenant.tenant_id, flow.flow_template_id)
    : undefined;
  const policy = await checkPolicyFor(sql, tenant.tenant_id);
  const applicant = await applicantData(sql, tenant.tenant_id, flow.applicant_id);
  const name = subjectName(applicant);
  if (!name) {
    throw new StateConflict('unsupported_operation', 'The applicant has no name to screen');
  }
  const [outcome] = await metered({ db: sql, tx: false }, tenant, () =>
    runChecks(checkDeps(deps), ['aml_screen'], {
      tenant_id: tenant.tenant_id,
      flow_id: flow.id,
      applicant,
      client_metadata: {},
      mode: 'sync',
      datasets: flow.datasets,
      policy,
      use_case: FLOW_USE_CASE,
    }),
  );
  const rec = buildCheck(
    outcome as CheckOutcome,
    flowCheckContext(flow, applicant, policy, 'sync', `rerun:${randomUUID()}`),
  );
  const updated = await transaction(sql, async (tx) => {
    const current = await loadFlow(tx, tenant.tenant_id, flowId, true);
    await recordChecks(tx, [rec]);
    if (current.status !== 'NEEDS_REVIEW' || current.reviewed_by || !template) return current;
    const latest = new Map<string, CheckRow>();
    // the screen of the document's identity (slot aml_screen:document) is its own line: a rerun of the applicant's
    // screen does not replace it
    for (const c of await flowChecks(tx, tenant.tenant_id, flowId)) {
      latest.set(c.run_key?.endsWith(':aml_screen:document') ? 'aml_screen:document' : c.check_type, c);
    }
    const decided = decideFlow([...latest.values()], template.default_decision);
    const status = statusForDecision(decided.decision);
    assertCan(current.status, 'rerun', status);
    const same =
      decided.decision === current.decision &&
      decided.reason_codes.join(',') === current.decision_reason_codes.join(',');
    if (same) return current;
    const row = await redecide(tx, flowId, { status, ...decided, policy_version: policy.policy_version });
    if (!row) return current;
    const events = flowEvents(
      row,
      { status, decision: decided.decision, reason_codes: decided.reason_codes },
      ['flow.decided'],
    );
    await writeEvents(tx, events);
    return row;
  });
  const checks = await flowChecks(sql, tenant.tenant_id, flowId);
  return flowOutB(
    updated,
    checks,
    template ? { name: template.name, checks_only: isChecksOnly(template) } : null,
    await flowDocuments(sql, tenant.tenant_id, flowId),
  );
}
