import { createHmac, randomUUID } from 'node:crypto';
import type { ScreenSubject } from '../../matcher/types.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { FlowCreateIn, FlowDecision, FlowOut } from '../../schemas/flows.js';
import type { CheckRow } from '../checks/check-model.js';
import type { Sql } from '../db/sql.js';
import { ApiError, invalid } from '../errors.js';
import type { RequestInfo, TenantPrincipal } from '../http/router.js';
import type { Metrics } from '../metrics.js';
import { type AmlCheckOutcome, runAmlScreen } from '../screening/aml-check.js';
import type { MatcherPool } from '../screening/matcher-pool.js';
import { checkPolicyFor } from './check-policy.js';
import { type FlowRow, flowOut } from './flow-model.js';
import { isChecksOnly, templateBySlug } from './templates.js';

export interface FlowDeps {
  sql: Sql;
  pool: MatcherPool;
  metrics: Metrics;
  /** key for the keyed email hash (applicants keep email_hash, not the address) */
  piiKey: string;
}

type Applicant = FlowCreateIn['applicant'];

export function subjectName(a: Applicant): string | undefined {
  if (a.entity_type === 'business') return a.business_name?.trim() || undefined;
  const parts = [a.legal_name_first, a.legal_name_middle, a.legal_name_last].filter(
    (p): p is string => !!p?.trim(),
  );
  return parts.length ? parts.join(' ') : a.business_name?.trim() || undefined;
}

function subjectOf(a: Applicant, name: string): ScreenSubject {
  return {
    name,
    type: a.entity_type === 'business' ? 'company' : 'person',
    ...(a.dob ? { date_of_birth: a.dob } : {}),
    ...(a.nationality ? { nationality: a.nationality.toUpperCase() } : {}),
    ...(a.address_country ? { country: a.address_country.toUpperCase() } : {}),
  };
}

const DEVICE_HEADERS = [
  'sec-ch-ua',
  'sec-ch-ua-platform',
  'sec-ch-ua-mobile',
  'x-device-model',
  'x-app-version',
];

function clientMetadata(req: RequestInfo): Record<string, unknown> {
  const device: Record<string, string> = {};
  for (const h of DEVICE_HEADERS) {
    const v = req.headers[h];
    if (v) device[h] = v.slice(0, 200);
  }
  return {
    ip: req.ip,
    user_agent: req.headers['user-agent']?.slice(0, 500) ?? null,
    origin: req.headers.origin ?? null,
    device_headers: device,
  };
}

/** Consumes one unit of a self-serve allowance atomically; 402 when none is left. */
async function consumeAllowance(sql: Sql, tenantId: string): Promise<void> {
  const rows = await sql<{ consumed: number }[]>`
    update tenants set consumed = consumed + 1
    where id = ${tenantId} and plan = 'self_serve' and consumed < allowance
    returning consumed`;
  if (rows.length) return;
  const [t] = await sql<{ allowance: number; consumed: number }[]>`
    select allowance, consumed from tenants where id = ${tenantId}`;
  throw new ApiError('allowance_exhausted', {
    message: 'The self-serve allowance of checks is used up; contact sales to move to a contract plan',
    details: { allowance: t?.allowance ?? 0, consumed: t?.consumed ?? 0 },
  });
}

async function refundAllowance(sql: Sql, tenantId: string): Promise<void> {
  await sql`update tenants set consumed = greatest(consumed - 1, 0) where id = ${tenantId} and plan = 'self_serve'`;
}

export async function createFlow(
  deps: FlowDeps,
  tenant: TenantPrincipal,
  input: FlowCreateIn,
  req: RequestInfo,
): Promise<{ flow: FlowOut; redacted: { id: string; reason_codes: string[]; result: string } }> {
  const { sql } = deps;
  const mode = input.mode ?? 'async';
  const template = await templateBySlug(sql, tenant.tenant_id, input.template_slug ?? 'default');
  const checksOnly = isChecksOnly(template);
  if (mode === 'sync' && !checksOnly) {
    throw invalid(
      ['body', 'mode'],
      'mode sync is only valid for checks-only templates (no document or biometric checks)',
    );
  }
  if (tenant.kind === 'publishable') {
    if (mode !== 'sync' || !checksOnly) {
      throw new ApiError('forbidden', {
        message: 'A publishable key may only create checks-only flows in sync mode',
      });
    }
    const origin = req.headers.origin;
    if (!origin || !tenant.allowed_origins.includes(origin)) throw new ApiError('origin_not_allowed');
  }
  const policy = await checkPolicyFor(tenant.tenant_id);
  const datasets = (input.datasets ?? template.default_datasets ?? policy.default_datasets) as AmlDataset[];
  const runsAml = template.required_checks.includes('aml_screen');
  const name = subjectName(input.applicant);
  if (runsAml && !name) {
    throw invalid(
      ['body', 'applicant', input.applicant.entity_type === 'business' ? 'business_name' : 'legal_name_last'],
      'A name is required to screen the applicant (legal_name_first/legal_name_last, or business_name for a business)',
      'missing',
    );
  }

  const a = input.applicant;
  const applicantId = randomUUID();
  const flowId = randomUUID();
  const emailHash = a.email
    ? createHmac('sha256', deps.piiKey).update(a.email.trim().toLowerCase()).digest('hex')
    : null;
  const address = Object.fromEntries(
    (
      [
        'address_line1',
        'address_line2',
        'address_city',
        'address_region',
        'address_postal_code',
        'address_country',
      ] as const
    )
      .filter((k) => a[k] !== undefined)
      .map((k) => [k, a[k]]),
  );
  const meta = clientMetadata(req);
  const type = input.type ?? (a.entity_type === 'business' ? 'kyb' : 'kyc');

  let aml: AmlCheckOutcome | undefined;
  if (mode === 'sync') {
    if (tenant.plan === 'self_serve') await consumeAllowance(sql, tenant.tenant_id);
    try {
      if (runsAml && name) {
        aml = await runAmlScreen(
          deps.pool,
          deps.metrics,
          subjectOf(a, name),
          datasets,
          policy.aml_match_policy,
        );
      }
    } catch (err) {
      if (tenant.plan === 'self_serve') await refundAllowance(sql, tenant.tenant_id);
      throw err;
    }
  }

  // sync: decided now. No matching rule → the template's default decision.
  const decision: FlowDecision | null =
    mode === 'sync' ? (aml?.decision ?? (template.default_decision as FlowDecision)) : null;
  const status =
    decision === null
      ? 'PENDING'
      : decision === 'MANUAL_REVIEW'
        ? 'NEEDS_REVIEW'
        : decision === 'REJECTED'
          ? 'REJECTED'
          : 'APPROVED';
  const reasonCodes = aml?.reason_codes ?? [];
  const applicantRow = {
    id: applicantId,
    tenant_id: tenant.tenant_id,
    external_id: a.external_id ?? null,
    entity_type: a.entity_type ?? 'individual',
    legal_name_first: a.legal_name_first ?? null,
    legal_name_middle: a.legal_name_middle ?? null,
    legal_name_last: a.legal_name_last ?? null,
    business_name: a.business_name ?? null,
    dob: a.dob ?? null,
    nationality: a.nationality?.toUpperCase() ?? null,
    email_hash: emailHash,
    address: sql.json(address),
    consent: a.consent ? sql.json(a.consent) : null,
    custom_attributes: sql.json(a.custom_attributes ?? {}),
  };
  const flowRow = {
    id: flowId,
    tenant_id: tenant.tenant_id,
    applicant_id: applicantId,
    flow_template_id: template.id,
    template_slug: template.slug,
    type,
    status,
    decision,
    decision_reason_codes: reasonCodes,
    execution_mode: mode,
    datasets,
    client_metadata: sql.json(meta as Parameters<typeof sql.json>[0]),
    policy_version: policy.policy_version,
  };

  let flow: FlowRow;
  let checks: CheckRow[] = [];
  if (aml) {
    const checkRow = {
      id: randomUUID(),
      tenant_id: tenant.tenant_id,
      flow_id: flowId,
      applicant_id: applicantId,
      applicant_name: name ?? null,
      check_type: 'aml_screen',
      status: 'completed',
      result: aml.result,
      decision: aml.decision,
      mode: 'sync',
      latency_ms: aml.latency_ms,
      dataset_versions: [aml.dataset_version],
      datasets,
      policy_version: policy.policy_version,
      evidence: sql.json(aml.evidence as unknown as Parameters<typeof sql.json>[0]),
    };
    // one statement, one round trip: applicant, flow and check become visible together or not at all.
    // Each `insert` is written as "( insert " on purpose: postgres.js picks the helper's form from the last
    // keyword before it and mis-detects when the same keyword appears with different surrounding characters.
    const rows = await sql<(FlowRow & { check_row: CheckRow })[]>`
      with a as ( insert into applicants ${sql(applicantRow)} returning id ),
      f as ( insert into flows ${sql({ ...flowRow, completed_at: new Date() })} returning * ),
      c as ( insert into checks ${sql({ ...checkRow, completed_at: new Date() })} returning * )
      select f.*, row_to_json(c.*) as check_row from f, c, a`;
    const row = rows[0];
    if (!row) throw new Error('flow insert returned nothing');
    const { check_row, ...f } = row;
    flow = f;
    checks = [reviveCheck(check_row)];
  } else {
    const rows = await sql<FlowRow[]>`
      with a as ( insert into applicants ${sql(applicantRow)} returning id )
      insert into flows ${sql({ ...flowRow, completed_at: decision ? new Date() : null })}
      returning *`;
    const row = rows[0];
    if (!row) throw new Error('flow insert returned nothing');
    flow = row;
  }
  const out = flowOut(flow, checks);
  return {
    flow: out,
    redacted: { id: out.id, reason_codes: out.decision_reason_codes, result: out.result ?? 'pending' },
  };
}

/** row_to_json gives timestamps as strings; bring them back to Dates like a plain select. */
function reviveCheck(c: CheckRow): CheckRow {
  return {
    ...c,
    seq: String(c.seq),
    created_at: new Date(c.created_at),
    completed_at: c.completed_at ? new Date(c.completed_at) : null,
  };
}

export async function getFlow(sql: Sql, tenantId: string, flowId: string): Promise<FlowOut> {
  const [flow] = await sql<FlowRow[]>`select * from flows where id = ${flowId} and tenant_id = ${tenantId}`;
  if (!flow) throw new ApiError('not_found', { message: 'Flow not found' });
  const checks = await sql<CheckRow[]>`
    select * from checks where flow_id = ${flowId} and tenant_id = ${tenantId} order by seq`;
  return flowOut(flow, checks);
}
