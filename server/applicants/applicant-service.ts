import type {
  ApplicantErasureOut,
  ApplicantListQuery,
  ApplicantOut,
  ApplicantPatchIn,
} from '../../schemas/applicants.js';
import { actorOf, piiHash, writeAudit } from '../audit/audit.js';
import { authorizeApplicantPatch } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Bus } from '../bus/jetstream.js';
import { page, pageArgs } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import { type Sql, transaction } from '../db/sql.js';
import { NotFound, StateConflict } from '../domain-errors.js';
import { ValidationError, type ValidationIssue } from '../errors.js';
import type { Logger } from '../log.js';
import {
  ADDRESS_FIELDS,
  type ApplicantRow,
  applicantOut,
  emailHash,
  emailHint,
  identifierColumns,
  substringPattern,
} from './applicant-model.js';

export interface ApplicantDeps {
  sql: Sql;
  bus: Bus;
  log: Logger;
  piiKey: string;
  /** moves an AWAITING_INPUT flow whose inputs are now all there on to processing (wired in app.ts) */
  resumeFlow?: (tenantId: string, flowId: string) => Promise<boolean>;
}

export const OPEN_FLOW_STATUSES = ['PENDING', 'AWAITING_INPUT', 'PROCESSING', 'NEEDS_REVIEW'] as const;

/**
 * Applicant ids given in a request body must name a live applicant of the caller's tenant: otherwise a 422 at each
 * offending field, with the same answer for an unknown id, an erased one and another tenant's (no oracle).
 */
export async function requireOwnApplicants(
  sql: Sql,
  tenantId: string,
  refs: { loc: (string | number)[]; applicant_id: string }[],
): Promise<void> {
  if (!refs.length) return;
  const ids = [...new Set(refs.map((r) => r.applicant_id))];
  const found = new Set(
    (
      await sql<{ id: string }[]>`
        select id::text from applicants
        where tenant_id = ${tenantId} and id = any(${ids}::uuid[]) and erased_at is null`
    ).map((r) => r.id),
  );
  const issues: ValidationIssue[] = refs
    .filter((r) => !found.has(r.applicant_id))
    .slice(0, 50)
    .map((r) => ({ loc: r.loc, msg: 'No applicant with this id in this tenant', type: 'not_found' }));
  if (issues.length) throw new ValidationError(issues);
}

export async function listApplicants(
  deps: Pick<ApplicantDeps, 'sql' | 'piiKey'>,
  tenantId: string,
  query: ApplicantListQuery,
): Promise<{ items: ApplicantOut[]; next_cursor: string | null }> {
  const { sql } = deps;
  const { limit, after } = pageArgs(query);
  const q = query.q;
  // an e-mail address as q also finds the applicant by its keyed hash (the address itself is not stored)
  const qHash = q?.includes('@') ? emailHash(deps.piiKey, q) : null;
  const rows = await sql<ApplicantRow[]>`
    select * from applicants
    where tenant_id = ${tenantId} and erased_at is null
      ${query.status ? equalsFilter(sql, 'applicants', 'internal_status', query.status) : sql``}
      ${
        q
          ? sql`and (search_text like ${substringPattern(q)} ${qHash ? sql`or email_hash = ${qHash}` : sql``})`
          : sql``
      }
      ${after ? sql`and seq < ${after}` : sql``}
    order by seq desc
    limit ${limit + 1}`;
  const p = page(rows, limit);
  return { items: p.rows.map(applicantOut), next_cursor: p.next_cursor };
}

async function visibleApplicant(sql: Sql, tenantId: string, id: string, lock = false): Promise<ApplicantRow> {
  const [row] = await sql<ApplicantRow[]>`
    select * from applicants where id = ${id} and tenant_id = ${tenantId} and erased_at is null
    ${lock ? sql`for update` : sql``}`;
  if (!row) throw new NotFound('Applicant');
  return row;
}

export async function getApplicant(deps: ApplicantDeps, tenantId: string, id: string): Promise<ApplicantOut> {
  return applicantOut(await visibleApplicant(deps.sql, tenantId, id));
}

const COLUMN_FIELDS = [
  'external_id',
  'legal_name_first',
  'legal_name_middle',
  'legal_name_last',
  'business_name',
  'dob',
  'nationality',
  'internal_status',
  'risk_tier',
] as const;

export async function patchApplicant(
  deps: ApplicantDeps,
  principal: Principal,
  tenantId: string,
  id: string,
  patch: ApplicantPatchIn,
  requestId: string,
): Promise<ApplicantOut> {
  const fields = Object.keys(patch);
  authorizeApplicantPatch(principal, fields);
  const out = await transaction(deps.sql, async (tx) => {
    const cur = await visibleApplicant(tx, tenantId, id, true);
    const set: Record<string, unknown> = {};
    for (const f of COLUMN_FIELDS) {
      const v = patch[f];
      if (v === undefined) continue;
      set[f] = f === 'nationality' && typeof v === 'string' ? v.toUpperCase() : v;
    }
    if (patch.email !== undefined) {
      set.email_hash = patch.email === null ? null : emailHash(deps.piiKey, patch.email);
      set.email_hint = patch.email === null ? null : emailHint(patch.email);
    }
    Object.assign(set, identifierColumns(deps.piiKey, patch));
    if (ADDRESS_FIELDS.some((f) => patch[f] !== undefined)) {
      const address: Record<string, string> = { ...cur.address };
      for (const f of ADDRESS_FIELDS) {
        const v = patch[f];
        if (v === null) delete address[f];
        else if (v !== undefined) address[f] = f === 'address_country' ? v.toUpperCase() : v;
      }
      set.address = tx.json(address);
    }
    if (patch.custom_attributes) {
      const merged: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries({ ...cur.custom_attributes, ...patch.custom_attributes })) {
        if (v !== null) merged[k] = v;
      }
      if (Object.keys(merged).length > 50) {
        throw new StateConflict('conflict', 'custom_attributes would exceed 50 keys');
      }
      set.custom_attributes = tx.json(merged);
    }
    const [row] = await tx<ApplicantRow[]>`
      update applicants set ${tx({ ...set, updated_at: new Date() })}
      where id = ${id} and tenant_id = ${tenantId}
      returning *`;
    if (!row) throw new Error('applicant update returned nothing');
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actorOf(principal),
      action: 'applicant.updated',
      resource_type: 'applicant',
      resource_id: id,
      request_id: requestId,
      // field names only; privileged labels are not personal data and help reviews of who changed a risk tier
      details: {
        fields: fields.sort(),
        ...(patch.internal_status ? { internal_status: patch.internal_status } : {}),
        ...(patch.risk_tier !== undefined ? { risk_tier: patch.risk_tier } : {}),
      },
    });
    return applicantOut(row);
  });
  await resumeWaitingFlows(deps, tenantId, id);
  return out;
}

/** A correction may provide the last input a flow waits for (an intake field): its AWAITING_INPUT flows are offered
 * to processing, each moved at most once (the move is guarded by the flow's status under a row lock). */
export async function resumeWaitingFlows(
  deps: Pick<ApplicantDeps, 'sql' | 'resumeFlow'>,
  tenantId: string,
  applicantId: string,
): Promise<void> {
  if (!deps.resumeFlow) return;
  const waiting = await deps.sql<{ id: string }[]>`
    select id from flows
    where tenant_id = ${tenantId} and applicant_id = ${applicantId} and status = 'AWAITING_INPUT'`;
  for (const f of waiting) await deps.resumeFlow(tenantId, f.id);
}

interface ErasureRow {
  id: string;
  tenant_id: string;
  applicant_id: string;
  status: 'scheduled' | 'completed';
  requested_at: Date;
}

export function erasureJobId(erasureId: string): string {
  return `applicant_erase:${erasureId}`;
}

/** Schedules a data-subject erasure: refused (409) while a flow is open; otherwise the applicant vanishes now
 * (erased_at) and the purge job is queued. The request row and its audit row commit together. */
export async function requestErasure(
  deps: ApplicantDeps,
  principal: Principal,
  tenantId: string,
  id: string,
  requestId: string,
): Promise<ApplicantErasureOut> {
  const { erasure, erasedAt } = await transaction(deps.sql, async (tx) => {
    const a = await visibleApplicant(tx, tenantId, id, true);
    const open = await tx<{ id: string; status: string }[]>`
      select id, status from flows
      where tenant_id = ${tenantId} and applicant_id = ${id} and status in ${tx(OPEN_FLOW_STATUSES)}
      order by seq desc limit 20`;
    if (open.length) {
      throw new StateConflict('applicant_has_open_flows', undefined, {
        open_flows: open.map((f) => ({ id: f.id, status: f.status })),
      });
    }
    const [upd] = await tx<{ erased_at: Date }[]>`
      update applicants set erased_at = now(), updated_at = now()
      where id = ${id} and tenant_id = ${tenantId} returning erased_at`;
    const actor = actorOf(principal);
    const [e] = await tx<ErasureRow[]>`
      insert into applicant_erasures (tenant_id, applicant_id, external_id_hash, actor_type, actor_id, request_id)
      values (${tenantId}, ${id}, ${a.external_id ? piiHash(deps.piiKey, a.external_id) : null},
              ${actor.actor_type}, ${actor.actor_id}, ${requestId})
      returning id, tenant_id, applicant_id, status, requested_at`;
    if (!e || !upd) throw new Error('erasure insert returned nothing');
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actor,
      action: 'applicant.erasure_requested',
      resource_type: 'applicant',
      resource_id: id,
      request_id: requestId,
      details: { erasure_id: e.id },
    });
    return { erasure: e, erasedAt: upd.erased_at };
  });
  try {
    await deps.bus.publishJob(
      'applicant_erase',
      { erasure_id: erasure.id, tenant_id: tenantId },
      erasureJobId(erasure.id),
    );
  } catch (err) {
    // the request is durable: resumeErasures() re-queues it when a worker starts
    deps.log.error({ err, erasure_id: erasure.id }, 'erasure job not queued; it will be resumed');
  }
  return {
    id: erasure.id,
    applicant_id: id,
    status: erasure.status,
    erased_at: erasedAt.toISOString(),
    requested_at: erasure.requested_at.toISOString(),
  };
}
