import { createHmac } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { isUuid, newId } from '../db/ids.js';
import { json, type Sql } from '../db/sql.js';
import type { AuditedCall } from '../http/request.js';
import type { Logger } from '../log.js';

export type ActorType =
  | 'secret_key'
  | 'publishable_key'
  | 'operator'
  | 'admin'
  | 'system'
  | 'applicant_session';

export interface AuditEntry {
  tenant_id: string | null;
  actor_type: ActorType;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  /** identifiers, field names and keyed hashes only: never personal data */
  details?: Record<string, unknown>;
}

export interface AuditRow extends Omit<AuditEntry, 'details'> {
  id: string;
  seq: string;
  details: Record<string, unknown>;
  created_at: Date;
}

/** The pool or a transaction (sql.begin's tx): both run tagged-template queries. */

export function actorOf(p: Principal): { actor_type: ActorType; actor_id: string | null } {
  switch (p.kind) {
    case 'secret':
      return { actor_type: 'secret_key', actor_id: p.key_id };
    case 'publishable':
      return { actor_type: 'publishable_key', actor_id: p.key_id };
    case 'operator':
      return { actor_type: 'operator', actor_id: p.operator_id };
    case 'admin':
      return { actor_type: 'admin', actor_id: null };
    case 'applicant':
      return { actor_type: 'applicant_session', actor_id: p.session_id };
    default:
      return { actor_type: 'system', actor_id: null };
  }
}

/** Keyed hash for audit details: lets a tenant prove "this value was involved" without storing the value. */
export function piiHash(key: string, value: string): string {
  return createHmac('sha256', key).update(value.trim().toLowerCase()).digest('hex');
}

export async function writeAudit(q: Sql, e: AuditEntry): Promise<void> {
  await q`
    insert into audit_log (id, tenant_id, actor_type, actor_id, action, resource_type, resource_id, request_id, details)
    values (${newId()}, ${e.tenant_id}, ${e.actor_type}, ${e.actor_id}, ${e.action}, ${e.resource_type}, ${e.resource_id},
            ${e.request_id}, ${json(q, e.details ?? {})})`;
}

/** The central hook for state-changing routes whose handlers do not write their own audit row (routes owned by
 * other features): one row after the handler succeeded, with the operationId as action, the route tag as resource
 * type and the last id in the path (or the created resource's id) as resource. It records no body values. A failure
 * is logged, never turned into an error: the change itself is already committed. */
export function centralAuditHook(sql: Sql, log: Logger) {
  return async (call: AuditedCall): Promise<void> => {
    const { spec, principal, req, params, reply } = call;
    const pathIds = Object.values(params).filter(isUuid);
    const body = reply.body as { id?: unknown } | undefined;
    const createdId = body && typeof body.id === 'string' && isUuid(body.id) ? body.id : null;
    const tenantId =
      principal.kind === 'secret' ||
      principal.kind === 'publishable' ||
      principal.kind === 'operator' ||
      principal.kind === 'applicant'
        ? principal.tenant_id
        : spec.path === '/admin/tenants'
          ? createdId
          : null;
    try {
      await writeAudit(sql, {
        tenant_id: tenantId,
        ...actorOf(principal),
        action: spec.operationId,
        resource_type: spec.tag,
        resource_id: pathIds[pathIds.length - 1] ?? createdId,
        request_id: req.request_id,
        details: {
          method: req.method,
          route: spec.path,
          status: reply.status,
          ...(createdId ? { created_id: createdId } : {}),
        },
      });
    } catch (err) {
      log.error({ err, request_id: req.request_id, action: spec.operationId }, 'audit row not written');
    }
  };
}
