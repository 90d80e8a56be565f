import type { FlowDecision, FlowStatus } from '../../schemas/flows.js';
import { StateConflict } from '../domain-errors.js';

/**
 * The flow status machine, in one place (docs/decisions/flows.md, "The status machine"). Every status change in the
 * code asks this module first and then updates with `where status = <from>`, so a concurrent change loses the
 * race instead of overwriting.
 *
 *   (create, async)        → PENDING, or AWAITING_INPUT while consent or intake fields are missing
 *   (create, sync)         → APPROVED | REJECTED | NEEDS_REVIEW            (rules)
 *   PENDING                → PROCESSING                                    (POST /process)
 *   AWAITING_INPUT         → PROCESSING                                    (POST /process once inputs exist)
 *   PROCESSING             → APPROVED | REJECTED | NEEDS_REVIEW            (worker: rules)
 *   PROCESSING             → AWAITING_INPUT                                (worker: required documents missing)
 *   PROCESSING             → FAILED                                        (worker gave up: a check could not run)
 *   NEEDS_REVIEW           → APPROVED | REJECTED | NEEDS_REVIEW            (POST /decide; AML rerun re-evaluation)
 *   APPROVED, REJECTED, FAILED: terminal
 */
export type FlowEvent = 'process' | 'rules' | 'await_input' | 'fail' | 'decide' | 'rerun';

const DECIDED: readonly FlowStatus[] = ['APPROVED', 'REJECTED', 'NEEDS_REVIEW'];

const MACHINE: Record<FlowStatus, Partial<Record<FlowEvent, readonly FlowStatus[]>>> = {
  PENDING: { process: ['PROCESSING'] },
  AWAITING_INPUT: { process: ['PROCESSING'] },
  PROCESSING: { rules: DECIDED, await_input: ['AWAITING_INPUT'], fail: ['FAILED'] },
  NEEDS_REVIEW: { decide: DECIDED, rerun: DECIDED },
  APPROVED: {},
  REJECTED: {},
  FAILED: {},
};

export const OPEN_STATUSES: readonly FlowStatus[] = [
  'PENDING',
  'AWAITING_INPUT',
  'PROCESSING',
  'NEEDS_REVIEW',
];
export const TERMINAL_STATUSES: readonly FlowStatus[] = ['APPROVED', 'REJECTED', 'FAILED'];

export const isTerminal = (s: FlowStatus): boolean => TERMINAL_STATUSES.includes(s);

/** The statuses `event` may leave from. */
export function fromStatuses(event: FlowEvent): FlowStatus[] {
  return (Object.keys(MACHINE) as FlowStatus[]).filter((s) => MACHINE[s][event] !== undefined);
}

export function canTransition(from: FlowStatus, event: FlowEvent, to: FlowStatus): boolean {
  return MACHINE[from][event]?.includes(to) ?? false;
}

/** Throws the documented 422 unsupported_operation when `event` cannot leave `from`. */
export function assertCan(from: FlowStatus, event: FlowEvent, to?: FlowStatus): void {
  const allowed = MACHINE[from][event];
  if (allowed && (to === undefined || allowed.includes(to))) return;
  throw new StateConflict('unsupported_operation', `Cannot ${event} a flow in status ${from}`, {
    status: from,
    allowed_from: fromStatuses(event),
  });
}

/** MANUAL_REVIEW routes to NEEDS_REVIEW; the other decisions to their terminal status. */
export function statusForDecision(d: FlowDecision): FlowStatus {
  return d === 'MANUAL_REVIEW' ? 'NEEDS_REVIEW' : d === 'REJECTED' ? 'REJECTED' : 'APPROVED';
}
