import type { AlertDisposition, AlertState } from '../../schemas/alerts.js';
import type { OperatorRole } from '../auth/principal.js';
import { StateConflict } from '../domain-errors.js';

/**
 * The alert state machine, in one place (docs/decisions/alerts-webhooks.md). Every change in the code asks this module
 * first and then updates with `where state = <from>` under a row lock, so a concurrent change loses the race.
 *
 *   (raised by a flow, batch or monitor check)        → open
 *   open | in_review | escalated | pending_approval  — assign (someone) → in_review (open) or unchanged
 *   in_review                                         — assign (null)   → open; elsewhere unchanged
 *   open | in_review                                  — escalate        → escalated        (escalated_at)
 *   open | in_review | escalated                      — dispose         → closed_true_match | closed_false_positive
 *                                                        (four_eyes_required = false)
 *   open | in_review | escalated                      — propose         → pending_approval (four_eyes_required)
 *   pending_approval                                  — approve         → closed_<proposed disposition>
 *                                                        (a supervisor or admin other than the proposer;
 *                                                         the evidence must be what the proposer saw)
 *   pending_approval                                  — reject          → escalated when it was escalated, else
 *                                                        in_review when assigned, else open
 *   closed_true_match, closed_false_positive: terminal (a new hit raises a new alert: see alert-memory.ts)
 *
 * Role rules (on top of the route-level minimum of server/auth/authorize.ts): an escalated alert is disposed only
 * by a supervisor or an admin (escalation means "a more senior pair of eyes").
 */
export type AlertAction = 'assign' | 'unassign' | 'escalate' | 'dispose' | 'propose' | 'approve' | 'reject';

const CLOSED: readonly AlertState[] = ['closed_true_match', 'closed_false_positive'];

const MACHINE: Record<AlertState, Partial<Record<AlertAction, readonly AlertState[]>>> = {
  open: {
    assign: ['in_review'],
    unassign: ['open'],
    escalate: ['escalated'],
    dispose: CLOSED,
    propose: ['pending_approval'],
  },
  in_review: {
    assign: ['in_review'],
    unassign: ['open'],
    escalate: ['escalated'],
    dispose: CLOSED,
    propose: ['pending_approval'],
  },
  escalated: {
    assign: ['escalated'],
    unassign: ['escalated'],
    dispose: CLOSED,
    propose: ['pending_approval'],
  },
  pending_approval: {
    assign: ['pending_approval'],
    unassign: ['pending_approval'],
    approve: CLOSED,
    reject: ['open', 'in_review', 'escalated'],
  },
  closed_true_match: {},
  closed_false_positive: {},
};

export const isClosed = (s: string): boolean => s === 'closed_true_match' || s === 'closed_false_positive';

export const closedStateFor = (d: AlertDisposition): AlertState =>
  d === 'true_match' ? 'closed_true_match' : 'closed_false_positive';

/** The states `action` may leave from. */
export function fromStates(action: AlertAction): AlertState[] {
  return (Object.keys(MACHINE) as AlertState[]).filter((s) => MACHINE[s][action] !== undefined);
}

export function canTransition(from: AlertState, action: AlertAction, to: AlertState): boolean {
  return MACHINE[from][action]?.includes(to) ?? false;
}

/** Throws a state conflict when `action` cannot move `from` to `to`; approving or rejecting with nothing pending is its own
 * code (alert_nothing_pending). */
export function assertCan(from: AlertState, action: AlertAction, to: AlertState): void {
  if (canTransition(from, action, to)) return;
  const details = { state: from, action, allowed_from: fromStates(action) };
  if (action === 'approve' || action === 'reject') {
    throw new StateConflict(
      'alert_nothing_pending',
      `The alert is ${from}: no disposition is pending approval`,
      details,
    );
  }
  throw new StateConflict('alert_state_conflict', `Cannot ${action} an alert that is ${from}`, details);
}

/** The state an assignment leaves: assigning an open alert starts its review; unassigning an in-review alert
 * puts it back in the queue; elsewhere the state stays. */
export function stateAfterAssign(from: AlertState, assigning: boolean): AlertState {
  if (assigning) return from === 'open' ? 'in_review' : from;
  return from === 'in_review' ? 'open' : from;
}

/** Minimum operator role to dispose (or propose a disposition for) an alert in `state`. */
export function roleToDispose(state: AlertState): OperatorRole {
  return state === 'escalated' ? 'supervisor' : 'analyst';
}
