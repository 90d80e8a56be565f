import type { FlowDecision } from '../../schemas/flows.js';
import type { CheckPolicy } from '../policy/check-policy.js';
import type { ReasonRule } from './check-type.js';
import { CHECK_TYPES } from './registry.js';

/**
 * The decision rules (docs/decisions/checks.md, "The reason-code catalogue and the rules"). Checks report signals (reason codes); each code's rule
 * is declared by the check type that raises it (server/checks/types/) and maps it to a decision under the tenant's
 * policy. The strictest decision wins (REJECTED > MANUAL_REVIEW > AUTO_APPROVED); with no signal the template's
 * default decision applies.
 */
const COMMON_RULES: Record<string, ReasonRule> = {
  check_error: { description: 'A check could not produce a result', decide: () => 'MANUAL_REVIEW' },
};

const RULES: ReadonlyMap<string, ReasonRule> = new Map(
  [...CHECK_TYPES.values()]
    .flatMap((t) => Object.entries(t.reason_codes))
    .concat(Object.entries(COMMON_RULES)),
);

/** The reason-code catalogue: every code a check can raise, with what it means. */
export const REASON_CODES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries([...RULES].map(([code, r]) => [code, r.description])),
);

const RANK: Record<FlowDecision, number> = { AUTO_APPROVED: 0, MANUAL_REVIEW: 1, REJECTED: 2 };

/** The decision one signal asks for under `policy`; null = the policy ignores it. A code no check type declares
 * goes to manual review (fail safe). */
export function ruleFor(code: string, policy: CheckPolicy): FlowDecision | null {
  const rule = RULES.get(code);
  return rule ? rule.decide(policy) : 'MANUAL_REVIEW';
}

export interface Decided {
  decision: FlowDecision;
  reason_codes: string[];
}

/** One check's decision from its signals; signals the policy ignores are dropped. */
export function decideCheck(signals: readonly string[], policy: CheckPolicy): Decided {
  let decision: FlowDecision = 'AUTO_APPROVED';
  const codes: string[] = [];
  for (const s of signals) {
    const d = ruleFor(s, policy);
    if (d === null) continue;
    codes.push(s);
    if (RANK[d] > RANK[decision]) decision = d;
  }
  return { decision, reason_codes: [...new Set(codes)].sort() };
}

/** The flow's decision over its checks' decisions; no reason code at all → the template's default. */
export function decideFlow(
  checks: readonly { decision: FlowDecision | null; reason_codes: readonly string[] }[],
  templateDefault: FlowDecision,
): Decided {
  let decision: FlowDecision = 'AUTO_APPROVED';
  const codes = new Set<string>();
  for (const c of checks) {
    for (const r of c.reason_codes) codes.add(r);
    if (c.decision && RANK[c.decision] > RANK[decision]) decision = c.decision;
  }
  if (codes.size === 0) return { decision: templateDefault, reason_codes: [] };
  return { decision, reason_codes: [...codes].sort() };
}
