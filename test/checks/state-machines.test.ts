// The two state machines (server/flows/flow-states.ts, server/alerts/alert-states.ts): one test per rule.
import { describe, expect, it } from 'vitest';
import * as alerts from '../../server/alerts/alert-states.js';
import { DomainError } from '../../server/domain-errors.js';
import { ApiError } from '../../server/errors.js';
import * as flows from '../../server/flows/flow-states.js';

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof ApiError || e instanceof DomainError ? e.code : String(e);
  }
  return undefined;
};

describe('flow status machine', () => {
  it('starts processing from PENDING and from AWAITING_INPUT only', () => {
    expect(flows.fromStatuses('process').sort()).toEqual(['AWAITING_INPUT', 'PENDING']);
    expect(flows.canTransition('PENDING', 'process', 'PROCESSING')).toBe(true);
    expect(codeOf(() => flows.assertCan('NEEDS_REVIEW', 'process', 'PROCESSING'))).toBe(
      'unsupported_operation',
    );
  });

  it('lets the worker decide, wait for input or fail a PROCESSING flow, and nothing else', () => {
    for (const to of ['APPROVED', 'REJECTED', 'NEEDS_REVIEW'] as const)
      expect(flows.canTransition('PROCESSING', 'rules', to)).toBe(true);
    expect(flows.canTransition('PROCESSING', 'await_input', 'AWAITING_INPUT')).toBe(true);
    expect(flows.canTransition('PROCESSING', 'fail', 'FAILED')).toBe(true);
    expect(flows.canTransition('PENDING', 'rules', 'APPROVED')).toBe(false);
  });

  it('lets a reviewer decide (or an AML rerun re-evaluate) only a flow in NEEDS_REVIEW', () => {
    expect(flows.fromStatuses('decide')).toEqual(['NEEDS_REVIEW']);
    expect(flows.fromStatuses('rerun')).toEqual(['NEEDS_REVIEW']);
    expect(codeOf(() => flows.assertCan('APPROVED', 'decide', 'REJECTED'))).toBe('unsupported_operation');
  });

  it('never leaves a terminal status', () => {
    for (const s of flows.TERMINAL_STATUSES) {
      expect(flows.isTerminal(s)).toBe(true);
      for (const e of ['process', 'rules', 'await_input', 'fail', 'decide', 'rerun'] as const)
        expect(codeOf(() => flows.assertCan(s, e))).toBe('unsupported_operation');
    }
  });

  it('routes MANUAL_REVIEW to NEEDS_REVIEW and the other decisions to their terminal status', () => {
    expect(flows.statusForDecision('MANUAL_REVIEW')).toBe('NEEDS_REVIEW');
    expect(flows.statusForDecision('AUTO_APPROVED')).toBe('APPROVED');
    expect(flows.statusForDecision('REJECTED')).toBe('REJECTED');
  });
});

describe('alert state machine', () => {
  it('starts the review when an open alert is assigned, and puts an in-review alert back when unassigned', () => {
    expect(alerts.stateAfterAssign('open', true)).toBe('in_review');
    expect(alerts.stateAfterAssign('in_review', false)).toBe('open');
    expect(alerts.stateAfterAssign('escalated', true)).toBe('escalated');
    expect(alerts.stateAfterAssign('pending_approval', false)).toBe('pending_approval');
  });

  it('escalates only open and in-review alerts', () => {
    expect(alerts.fromStates('escalate').sort()).toEqual(['in_review', 'open']);
    expect(codeOf(() => alerts.assertCan('escalated', 'escalate', 'escalated'))).toBe('alert_state_conflict');
  });

  it('closes an alert by disposition, or proposes it for four-eyes approval, from any working state', () => {
    for (const s of ['open', 'in_review', 'escalated'] as const) {
      expect(alerts.canTransition(s, 'dispose', 'closed_false_positive')).toBe(true);
      expect(alerts.canTransition(s, 'propose', 'pending_approval')).toBe(true);
    }
    expect(alerts.closedStateFor('true_match')).toBe('closed_true_match');
    expect(alerts.closedStateFor('false_positive')).toBe('closed_false_positive');
  });

  it('approves or rejects only a pending proposal; otherwise says nothing is pending', () => {
    expect(alerts.canTransition('pending_approval', 'approve', 'closed_true_match')).toBe(true);
    expect(alerts.canTransition('pending_approval', 'reject', 'escalated')).toBe(true);
    expect(codeOf(() => alerts.assertCan('open', 'approve', 'closed_true_match'))).toBe(
      'alert_nothing_pending',
    );
    expect(codeOf(() => alerts.assertCan('in_review', 'reject', 'open'))).toBe('alert_nothing_pending');
  });

  it('accepts no change on a closed alert', () => {
    for (const s of ['closed_true_match', 'closed_false_positive'] as const) {
      expect(alerts.isClosed(s)).toBe(true);
      expect(codeOf(() => alerts.assertCan(s, 'assign', 'in_review'))).toBe('alert_state_conflict');
    }
  });

  it('needs a supervisor to dispose an escalated alert, an analyst otherwise', () => {
    expect(alerts.roleToDispose('escalated')).toBe('supervisor');
    expect(alerts.roleToDispose('open')).toBe('analyst');
  });
});
