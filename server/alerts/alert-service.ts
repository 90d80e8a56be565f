import type postgres from 'postgres';
import type {
  AlertAssignIn,
  AlertDisposition,
  AlertDispositionIn,
  AlertListQuery,
  AlertOut,
  AlertRejectIn,
  AlertState,
  ScreenedSubjectOut,
} from '../../schemas/alerts.js';
import { applicantNameSql } from '../applicants/applicant-summary.js';
import { authorizeProposalReject, roleAllows } from '../auth/authorize.js';
import type { OperatorRole, Principal } from '../auth/principal.js';
import { decodeCursor, page } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { NotFound, NotPermitted, StateConflict } from '../domain-errors.js';
import { invalid } from '../errors.js';
import { writeEvent } from '../outbox/outbox.js';
import {
  type AlertAction,
  assertCan,
  closedStateFor,
  roleToDispose,
  stateAfterAssign,
} from './alert-states.js';

/** Who works an alert. Operator sessions are themselves; the tenant secret key acts as an admin operator with a
 * stable pseudo id per key (`api_key:<key id>`), so two different keys are two different pairs of eyes. */
export interface Actor {
  id: string;
  role: OperatorRole;
}

export function actorOf(p: Principal): Actor {
  if (p.kind === 'operator') return { id: p.operator_id, role: p.role };
  if (p.kind === 'secret') return { id: `api_key:${p.key_id}`, role: 'admin' };
  throw new NotPermitted('forbidden', 'Only the secret key or an operator session can work alerts');
}

interface AlertRow {
  id: string;
  seq: string;
  tenant_id: string;
  check_id: string;
  flow_id: string | null;
  batch_id: string | null;
  applicant_id: string | null;
  state: AlertState;
  subject_ref: string;
  source_entity_id: string;
  evidence: Record<string, unknown>;
  four_eyes_required: boolean;
  assigned_to: string | null;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_reason: string | null;
  disposed_by: string | null;
  disposed_at: Date | null;
  disposition: AlertDisposition | null;
  disposition_reason: string | null;
  disposition_evidence: Record<string, unknown>[];
  proposed_at: Date | null;
  proposed_evidence_hash: string | null;
  escalated_at: Date | null;
  queue_sla_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AlertViewRow extends AlertRow {
  a_id: string | null;
  a_external_id: string | null;
  a_name: string | null;
  o_id: string | null;
  o_name: string | null;
  o_role: string | null;
  c_id: string | null;
  c_applicant_id: string | null;
  c_decision: 'AUTO_APPROVED' | 'MANUAL_REVIEW' | 'REJECTED' | null;
  c_input_ref: string | null;
  c_reference: string | null;
  c_monitor_id: string | null;
  c_subject: Record<string, unknown> | null;
  c_latency_ms: number;
  c_mode: string;
  c_status: 'completed' | 'failed';
  c_use_case: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The screened subject of the check's evidence, its descriptive fields only (no identifiers). */
function screenedSubject(s: Record<string, unknown> | null): ScreenedSubjectOut | null {
  if (!s || typeof s.name !== 'string') return null;
  const text = (k: string) => (typeof s[k] === 'string' ? { [k]: s[k] as string } : {});
  const aliases = Array.isArray(s.aliases) ? s.aliases.filter((x): x is string => typeof x === 'string') : [];
  return {
    name: s.name,
    ...text('type'),
    ...(aliases.length ? { aliases } : {}),
    ...text('date_of_birth'),
    ...text('nationality'),
    ...text('country'),
  };
}

function alertOut(r: AlertViewRow): AlertOut {
  return {
    id: r.id,
    check_id: r.check_id,
    state: r.state,
    subject_ref: r.subject_ref,
    source_entity_id: r.source_entity_id,
    evidence: r.evidence,
    four_eyes_required: r.four_eyes_required,
    assigned_to: r.assigned_to,
    reviewed_by: r.reviewed_by,
    disposed_by: r.disposed_by,
    disposed_at: iso(r.disposed_at),
    disposition_reason: r.disposition_reason,
    disposition_evidence: r.disposition_evidence,
    escalated_at: iso(r.escalated_at),
    queue_sla_at: iso(r.queue_sla_at),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    applicant: r.a_id ? { id: r.a_id, external_id: r.a_external_id, name: r.a_name } : null,
    assignee: r.o_id ? { id: r.o_id, name: r.o_name ?? '', role: r.o_role ?? '' } : null,
    subject: screenedSubject(r.c_subject),
    check: r.c_id
      ? {
          id: r.c_id,
          applicant_id: r.c_applicant_id,
          decision: r.c_decision,
          input_ref: r.c_input_ref,
          reference: r.c_reference,
          latency_ms: r.c_latency_ms,
          mode: r.c_mode,
          status: r.c_status,
          use_case: r.c_use_case,
        }
      : null,
    flow_id: r.flow_id,
    batch_id: r.batch_id,
    monitor_id: r.c_monitor_id,
    applicant_id: r.applicant_id,
    disposition: r.disposition,
    proposed_at: iso(r.proposed_at),
    reviewed_at: iso(r.reviewed_at),
    review_reason: r.review_reason,
  };
}

/** The alert with its embedded summaries (applicant unless erased; assignee; check, with the subject it screened
 * and, for a monitor's check, the monitor). */
const VIEW = (db: Sql) => db`
  select al.*,
    a.id as a_id, a.external_id as a_external_id,
    coalesce(${applicantNameSql(db)}, c.applicant_name) as a_name,
    o.id as o_id, o.name as o_name, o.role as o_role,
    c.id as c_id, c.applicant_id as c_applicant_id, c.decision as c_decision, c.input_ref as c_input_ref,
    c.reference as c_reference, c.evidence->'subject' as c_subject, c.evidence->>'monitor_id' as c_monitor_id,
    c.latency_ms as c_latency_ms, c.mode as c_mode, c.status as c_status, c.use_case as c_use_case
  from alerts al
  left join checks c on c.id = al.check_id and c.tenant_id = al.tenant_id
  left join applicants a on a.id = al.applicant_id and a.tenant_id = al.tenant_id and a.erased_at is null
  left join operators o on o.id::text = al.assigned_to and o.tenant_id = al.tenant_id`;

export async function getAlert(db: Sql, tenantId: string, alertId: string): Promise<AlertOut> {
  const [r] = await db<AlertViewRow[]>`${VIEW(db)} where al.id = ${alertId} and al.tenant_id = ${tenantId}`;
  if (!r) throw new NotFound('Alert');
  return alertOut(r);
}

/** Newest first; filters combine; keyset cursor over seq. */
export async function listAlerts(
  sql: Sql,
  tenantId: string,
  actor: Actor,
  q: AlertListQuery,
): Promise<{ items: AlertOut[]; next_cursor: string | null }> {
  const limit = q.limit ?? 50;
  const after = q.after ? decodeCursor(q.after) : null;
  const assignee =
    q.assignee === undefined
      ? sql``
      : q.assignee === 'none'
        ? sql`and al.assigned_to is null`
        : sql`and al.assigned_to = ${q.assignee === 'me' ? actor.id : q.assignee}`;
  const rows = await sql<AlertViewRow[]>`
    ${VIEW(sql)}
    where al.tenant_id = ${tenantId}
      ${q.state ? equalsFilter(sql, 'alerts', 'state', q.state, 'al') : sql``}
      ${assignee}
      ${q.check_id ? sql`and al.check_id = ${q.check_id}` : sql``}
      ${q.applicant_id ? sql`and al.applicant_id = ${q.applicant_id}` : sql``}
      ${q.flow_id ? sql`and al.flow_id = ${q.flow_id}` : sql``}
      ${q.batch_id ? sql`and al.batch_id = ${q.batch_id}` : sql``}
      ${q.due_before ? sql`and al.queue_sla_at < ${new Date(q.due_before)} and al.state not like 'closed%'` : sql``}
      ${after ? sql`and al.seq < ${after}` : sql``}
    order by al.seq desc
    limit ${limit + 1}`;
  const p = page(rows, limit);
  return { items: p.rows.map(alertOut), next_cursor: p.next_cursor };
}

type Patch = Record<string, unknown>;

/**
 * One alert change: lock the row, let `decide` check the machine and compute the patch, update with
 * `where state = <from>`, bump updated_at and write an alert.updated outbox event — one transaction.
 */
async function change(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
  action: AlertAction | 'approve' | 'reject',
  decide: (row: AlertRow & { evidence_hash: string }) => { to: AlertState; patch: Patch },
): Promise<AlertOut> {
  return transaction(sql, async (tx) => {
    const [row] = await tx<(AlertRow & { evidence_hash: string })[]>`
      select *, encode(sha256(convert_to(evidence::text, 'UTF8')), 'hex') as evidence_hash
      from alerts where id = ${alertId} and tenant_id = ${tenantId} for update`;
    if (!row) throw new NotFound('Alert');
    const { to, patch } = decide(row);
    const set: Patch = { ...patch, state: to };
    const updated = await tx`
      update alerts set ${tx(set as Record<string, postgres.ParameterOrJSON<never>>)}, updated_at = now()
      where id = ${alertId} and tenant_id = ${tenantId} and state = ${row.state}
      returning id`;
    if (!updated.length) throw new StateConflict('alert_state_conflict');
    await writeEvent(tx, tenantId, 'alert.updated', alertId, {
      alert_id: alertId,
      check_id: row.check_id,
      action,
      previous_state: row.state,
      state: to,
      actor_id: actor.id,
      assigned_to: (('assigned_to' in set ? set.assigned_to : row.assigned_to) ??
        null) as AlertRow['assigned_to'],
      disposition: (('disposition' in set ? set.disposition : row.disposition) ??
        null) as AlertRow['disposition'],
    });
    return getAlert(tx, tenantId, alertId);
  }) as Promise<AlertOut>;
}

export async function assignAlert(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
  body: AlertAssignIn,
): Promise<AlertOut> {
  const assignee = body.assignee_id;
  if (assignee !== null) {
    const [op] = await sql`
      select 1 from operators where id = ${assignee} and tenant_id = ${tenantId} and disabled_at is null`;
    if (!op) throw invalid(['body', 'assignee_id'], 'No active operator with this id in this tenant');
  }
  const action: AlertAction = assignee === null ? 'unassign' : 'assign';
  return change(sql, tenantId, alertId, actor, action, (row) => {
    const to = stateAfterAssign(row.state, assignee !== null);
    assertCan(row.state, action, to);
    return { to, patch: { assigned_to: assignee } };
  });
}

export async function escalateAlert(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
): Promise<AlertOut> {
  return change(sql, tenantId, alertId, actor, 'escalate', (row) => {
    assertCan(row.state, 'escalate', 'escalated');
    return { to: 'escalated', patch: { escalated_at: new Date() } };
  });
}

/** Without four-eyes the disposition closes the alert; with four-eyes it becomes a proposal (pending_approval)
 * holding a hash of the alert's evidence as the proposer saw it. */
export async function disposeAlert(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
  body: AlertDispositionIn,
): Promise<AlertOut> {
  return change(sql, tenantId, alertId, actor, 'dispose', (row) => {
    const needed = roleToDispose(row.state);
    if (!roleAllows(actor.role, needed)) {
      throw new NotPermitted(
        'insufficient_role',
        `An ${row.state} alert is disposed by a ${needed} or an admin`,
        {
          role: actor.role,
          required_role: needed,
        },
      );
    }
    const common = {
      disposition: body.disposition,
      disposition_reason: body.reason,
      disposition_evidence: json(sql, body.evidence ?? []),
      disposed_by: actor.id,
      reviewed_by: null,
      reviewed_at: null,
      review_reason: null,
    };
    if (row.four_eyes_required) {
      assertCan(row.state, 'propose', 'pending_approval');
      return {
        to: 'pending_approval',
        patch: {
          ...common,
          disposed_at: null,
          proposed_at: new Date(),
          proposed_evidence_hash: row.evidence_hash,
        },
      };
    }
    const to = closedStateFor(body.disposition);
    assertCan(row.state, 'dispose', to);
    return { to, patch: { ...common, disposed_at: new Date() } };
  });
}

/** Four-eyes approval: something must be pending (409), the approver must not be the proposer (403), and the
 * evidence must be what the proposer saw (409 stale). Supervisor or admin (route level). */
export async function approveAlert(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
): Promise<AlertOut> {
  return change(sql, tenantId, alertId, actor, 'approve', (row) => {
    const to = closedStateFor(row.disposition ?? 'false_positive');
    assertCan(row.state, 'approve', to);
    if (row.disposed_by === actor.id) {
      throw new NotPermitted('self_approval_forbidden', undefined, {
        proposed_by: row.disposed_by,
      });
    }
    if (row.proposed_evidence_hash !== row.evidence_hash) {
      throw new StateConflict('alert_evidence_stale', undefined, {
        proposed_at: iso(row.proposed_at),
        evidence_updated_at: iso(row.updated_at),
      });
    }
    const now = new Date();
    return { to, patch: { reviewed_by: actor.id, reviewed_at: now, disposed_at: now } };
  });
}

/** Sends a proposal back: the alert returns to where the work was (escalated, in review, or open) and the
 * proposal is cleared; the reviewer and reason are kept. The proposer may withdraw their own proposal. */
export async function rejectAlert(
  sql: Sql,
  tenantId: string,
  alertId: string,
  actor: Actor,
  body: AlertRejectIn,
): Promise<AlertOut> {
  return change(sql, tenantId, alertId, actor, 'reject', (row) => {
    authorizeProposalReject(actor, row.state === 'pending_approval' ? row.disposed_by : null);
    const to: AlertState = row.escalated_at ? 'escalated' : row.assigned_to ? 'in_review' : 'open';
    assertCan(row.state, 'reject', to);
    return {
      to,
      patch: {
        reviewed_by: actor.id,
        reviewed_at: new Date(),
        review_reason: body.reason,
        disposition: null,
        disposition_reason: null,
        disposition_evidence: sql.json([]),
        disposed_by: null,
        disposed_at: null,
        proposed_at: null,
        proposed_evidence_hash: null,
      },
    };
  });
}
