// What the core (services, stores, state machines, jobs) throws when a request cannot be done: errors named by what
// went wrong in the domain, with no HTTP in them (no status, no headers). The edge maps them to the error catalogue
// once (server/http/error-reply.ts), as yente's exc.py errors are mapped in its app.py. Each carries the catalogue
// code it is answered with, so that the catalogue (server/errors.ts) stays the one list of codes clients see.
import type { ErrorCode } from './errors.js';

type Details = Record<string, unknown>;
type Loc = (string | number)[];

export abstract class DomainError extends Error {
  /** the catalogue code the edge answers with */
  abstract readonly code: ErrorCode;
  constructor(
    message: string | undefined,
    readonly details?: Details,
    /** where the offending input is, when the answer is a 422 (default: the catalogue's loc, else ["body"]) */
    readonly loc?: Loc,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The resource does not exist in the caller's tenant (or at all: existence does not leak across tenants). */
export class NotFound extends DomainError {
  readonly code = 'not_found';
  constructor(what: string, details?: Details) {
    super(`${what} not found`, details);
  }
}

/** A resource with the same unique key exists already. */
export class AlreadyExists extends DomainError {
  readonly code = 'already_exists';
}

/** The request contradicts the resource's current state. `code` names the conflict for clients. */
export class StateConflict extends DomainError {
  constructor(
    readonly code: Extract<
      ErrorCode,
      | 'conflict'
      | 'alert_state_conflict'
      | 'alert_nothing_pending'
      | 'alert_evidence_stale'
      | 'applicant_has_open_flows'
      | 'unsupported_operation'
      | 'document_state_conflict'
      | 'flow_not_collecting'
      | 'inputs_missing'
      | 'chip_already_submitted'
      | 'liveness_challenge_used'
      | 'liveness_challenge_limit'
    >,
    message?: string,
    details?: Details,
  ) {
    super(message, details);
  }
}

/** The caller is known but may not do this. `code` says why. */
export class NotPermitted extends DomainError {
  constructor(
    readonly code: Extract<
      ErrorCode,
      | 'forbidden'
      | 'origin_not_allowed'
      | 'capture_mode_not_allowed'
      | 'insufficient_role'
      | 'admin_authority_required'
      | 'self_approval_forbidden'
    >,
    message?: string,
    details?: Details,
  ) {
    super(message, details);
  }
}

/** What the request carries is not what it claims to be or cannot be used (a trust-store file, chip data, a chip
 * or liveness challenge). `code` says which, `loc` where. */
export class InvalidContent extends DomainError {
  constructor(
    readonly code: Extract<
      ErrorCode,
      | 'trust_store_file_invalid'
      | 'chip_data_invalid'
      | 'chip_not_accepted'
      | 'chip_challenge_invalid'
      | 'liveness_challenge_unknown'
      | 'liveness_challenge_expired'
    >,
    message?: string,
    details?: Details,
    loc?: Loc,
  ) {
    super(message, details, loc);
  }
}

/** What the request carries is more than the service takes (chip data over its limit). */
export class TooLarge extends DomainError {
  readonly code = 'payload_too_large';
}

/** What the request needs the applicant's consent to (biometric processing), and the applicant has not given it. */
export class ConsentRequired extends DomainError {
  readonly code = 'biometric_consent_required';
}

/** The applicant session's flow is gone (erased): the session is no credential any more. */
export class SessionGone extends DomainError {
  readonly code = 'unauthorized';
}

/** A self-serve tenant's allowance of checks does not cover the request (server/tenants/allowance.ts). */
export class AllowanceExhausted extends DomainError {
  readonly code = 'allowance_exhausted';
}
