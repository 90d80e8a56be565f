/** Who may call a route: none; admin (X-Admin-Token); secret (tenant secret key or operator session); bearer (the
 * tenant secret key only, as `Authorization: Bearer`: no session cookie); tenant (secret, publishable or operator
 * session); session (an operator session cookie only); applicant (an applicant session only: the `vs_applicant`
 * cookie or `Bearer aps_…`); secret_or_applicant (what secret accepts, or an applicant session for its own flow). */
export type AuthMode =
  | 'none'
  | 'admin'
  | 'secret'
  | 'bearer'
  | 'tenant'
  | 'session'
  | 'applicant'
  | 'secret_or_applicant';

/** The auth modes whose routes act for a tenant: their handlers get `ctx.tenant` (see tenantFor in authorize.ts). */
export const TENANT_MODES = ['secret', 'bearer', 'tenant', 'session'] as const satisfies readonly AuthMode[];
export type TenantMode = (typeof TENANT_MODES)[number];

export interface TenantPrincipal {
  kind: 'secret' | 'publishable';
  tenant_id: string;
  key_id: string;
  plan: 'self_serve' | 'contract';
  allowed_origins: string[];
}

import type { OperatorRole } from '../../schemas/operation-roles.js';

export type { OperatorRole };
/** An operator signed in to the dashboard with a session cookie (see server/auth/sessions.ts). */
export interface OperatorPrincipal {
  kind: 'operator';
  tenant_id: string;
  operator_id: string;
  role: OperatorRole;
  session_id: string;
  plan: 'self_serve' | 'contract';
  allowed_origins: string[];
}
/** An applicant with a session opened by a verification link (server/auth/applicant-sessions.ts): one flow only. */
export interface ApplicantPrincipal {
  kind: 'applicant';
  tenant_id: string;
  flow_id: string;
  session_id: string;
  link_id: string;
  /** verification: the whole journey; handoff: uploads only, on a second device */
  purpose: 'verification' | 'handoff';
  transport: 'cookie' | 'bearer';
  expires_at: Date;
  plan: 'self_serve' | 'contract';
  allowed_origins: string[];
}
export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'admin' }
  | TenantPrincipal
  | OperatorPrincipal
  | ApplicantPrincipal;
