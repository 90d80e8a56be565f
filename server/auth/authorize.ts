import { requiredRole, roleAllows } from '../../schemas/operation-roles.js';
import { ApiError } from '../errors.js';
import {
  type AuthMode,
  type OperatorRole,
  type Principal,
  TENANT_MODES,
  type TenantPrincipal,
} from './principal.js';

/**
 * Every role rule of the service, in one place.
 *
 * - A tenant secret key has tenant-admin authority (spec: "full tenant API access").
 * - A publishable key is limited by authenticate() (checks-only sync flows only).
 * - An operator session works the same /v1 contracts with the powers of its role:
 *     analyst    — reads everything, creates and processes flows, uploads documents, works alerts;
 *     supervisor — analyst + approvals that need separation of duties (decide flows, four-eyes alert approval);
 *     admin      — supervisor + tenant-wide configuration and privileged operations (operators, native apps,
 *                  check policy, templates, webhooks, applicant status / risk tier, erasure, audit log).
 * - Roles are ordered: a higher role may do everything a lower one may.
 *
 * The HTTP layer calls authorizeRoute() for every request after authentication; field-level rules
 * (e.g. which applicant fields need admin authority) are functions below, called by the handlers.
 */

export { OPERATION_ROLES, ROLES, requiredRole, roleAllows } from '../../schemas/operation-roles.js';

/** Route-level rule, applied by the HTTP layer to every authenticated request (with its path parameters). */
export function authorizeRoute(
  spec: { operationId: string; method: string; auth: AuthMode },
  principal: Principal,
  params: Record<string, string> = {},
): void {
  if (principal.kind === 'applicant') fenceApplicant(principal, params.flow_id);
  if (principal.kind !== 'operator') return;
  const needed = requiredRole(spec.operationId, spec.method);
  if (!roleAllows(principal.role, needed)) {
    throw new ApiError('insufficient_role', { details: { role: principal.role, required_role: needed } });
  }
}

/** Four-eyes reject: a supervisor (or admin) rejects any proposal; the proposer may withdraw their own. */
export function authorizeProposalReject(
  actor: { id: string; role: OperatorRole },
  proposer: string | null,
): void {
  if (roleAllows(actor.role, 'supervisor') || (proposer !== null && proposer === actor.id)) return;
  throw new ApiError('insufficient_role', {
    message: 'Only a supervisor or the proposer can send a proposal back',
    details: { role: actor.role, required_role: 'supervisor' },
  });
}

/** An applicant session acts on its own flow only: a flow id in the path (or in the body, checked by its handler)
 * must be the session's; a verification-only operation refuses a hand-off session. 403 either way. */
export function fenceApplicant(p: Principal, flowId: string | undefined, needs?: 'verification'): void {
  if (p.kind !== 'applicant') return;
  if (flowId !== undefined && flowId !== p.flow_id) {
    throw new ApiError('applicant_session_forbidden', { message: "This is another flow than the session's" });
  }
  if (needs && p.purpose !== needs) {
    throw new ApiError('applicant_session_forbidden', {
      message: 'A hand-off session may only read its flow and upload captures',
      details: { purpose: p.purpose },
    });
  }
}

/** Tenant secret key or an admin operator. */
export function hasAdminAuthority(p: Principal): boolean {
  return p.kind === 'secret' || (p.kind === 'operator' && p.role === 'admin');
}

export function requireAdminAuthority(p: Principal): void {
  if (!hasAdminAuthority(p)) throw new ApiError('admin_authority_required');
}

/** Applicant fields whose change needs admin authority (spec: internal_status and risk_tier). */
export const APPLICANT_ADMIN_FIELDS = ['internal_status', 'risk_tier'] as const;

export function authorizeApplicantPatch(p: Principal, fields: string[]): void {
  const privileged = fields.filter((f) => (APPLICANT_ADMIN_FIELDS as readonly string[]).includes(f));
  if (privileged.length && !hasAdminAuthority(p)) {
    throw new ApiError('admin_authority_required', {
      message: `Changing ${privileged.join(' and ')} needs admin authority (tenant secret key or an admin operator)`,
      details: { fields: privileged },
    });
  }
}

/** Callers that may read document bytes (preview): the secret key and operator sessions, never publishable keys. */
export function canPreviewDocuments(p: Principal): boolean {
  return p.kind === 'secret' || p.kind === 'operator';
}

/** The tenant a /v1 caller acts for (secret key or operator session). */
export function tenantOf(p: Principal): { tenant_id: string } {
  if (p.kind === 'secret' || p.kind === 'publishable' || p.kind === 'operator' || p.kind === 'applicant')
    return { tenant_id: p.tenant_id };
  throw new ApiError('unauthorized');
}

/** Operator sessions act with the power of a secret key inside their role (spec: "An operator session creating a
 * flow has the same power as a secret key"): code written for TenantPrincipal sees them as one. */
export function asTenantPrincipal(p: Principal): TenantPrincipal {
  if (p.kind === 'secret' || p.kind === 'publishable') return p;
  if (p.kind === 'operator') {
    return {
      kind: 'secret',
      tenant_id: p.tenant_id,
      key_id: `operator:${p.operator_id}`,
      plan: p.plan,
      allowed_origins: p.allowed_origins,
    };
  }
  throw new ApiError('unauthorized');
}

/** The tenant a route of this auth mode acts for (an operator session presented as the tenant's secret key), or
 * undefined for routes that act for no tenant. */
export function tenantFor(mode: AuthMode, principal: Principal): TenantPrincipal | undefined {
  return (TENANT_MODES as readonly AuthMode[]).includes(mode) ? asTenantPrincipal(principal) : undefined;
}
