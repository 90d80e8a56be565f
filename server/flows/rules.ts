import type { FlowDecision } from '../../schemas/flows.js';
import type { CheckPolicy } from '../policy/check-policy.js';

/**
 * The reason-code catalogue (docs/decisions.md, "Decision rules"). Checks report signals (reason codes); the
 * rules below map each signal to a decision under the tenant's policy. The strictest decision wins
 * (REJECTED > MANUAL_REVIEW > AUTO_APPROVED); with no signal the template's default decision applies.
 */
export const REASON_CODES = {
  aml_sanctions_match: 'A sanctions list entry matched at or above the review threshold',
  aml_pep_match: 'A politically exposed person matched',
  aml_pep_rca_match: 'A relative or close associate of a PEP matched',
  aml_wanted_match: 'A wanted-persons entry matched',
  aml_debarment_match: 'A debarment entry matched',
  aml_soe_match: 'A state-owned enterprise matched',
  aml_crypto_wallets_match: 'A listed crypto wallet owner matched',
  aml_strong_match: 'A match scored at or above the fail threshold (never auto-rejected: a human confirms)',
  fatf_black: 'A country of the applicant (address, nationality or IP) is on the FATF black list',
  fatf_grey: 'A country of the applicant is on the FATF grey list',
  blocked_country: "A country of the applicant is in the policy's blocked_countries",
  vpn_detected: 'The client IP is a VPN exit',
  proxy_detected: 'The client IP is an open or anonymising proxy',
  tor_detected: 'The client IP is a Tor exit node',
  hosting_ip: 'The client IP belongs to a hosting / data-centre network',
  device_velocity: 'The device created more flows in the window than device_velocity_threshold',
  check_error: 'A check could not produce a result',
} as const;
export type ReasonCode = keyof typeof REASON_CODES;

const RANK: Record<FlowDecision, number> = { AUTO_APPROVED: 0, MANUAL_REVIEW: 1, REJECTED: 2 };

/** The decision one signal asks for under `policy`; null = the policy ignores it. */
export function ruleFor(code: string, policy: CheckPolicy): FlowDecision | null {
  if (code.startsWith('aml_')) return 'MANUAL_REVIEW';
  switch (code) {
    case 'fatf_black':
      return policy.fatf_black_handling === 'block' ? 'REJECTED' : 'MANUAL_REVIEW';
    case 'fatf_grey':
      return policy.fatf_grey_handling === 'flag' ? 'MANUAL_REVIEW' : null;
    case 'blocked_country':
      return 'REJECTED';
    case 'vpn_detected':
    case 'proxy_detected':
    case 'tor_detected':
    case 'hosting_ip':
      return policy.vpn_policy === 'block'
        ? 'REJECTED'
        : policy.vpn_policy === 'review'
          ? 'MANUAL_REVIEW'
          : null;
    case 'device_velocity':
    case 'check_error':
      return 'MANUAL_REVIEW';
    default:
      return 'MANUAL_REVIEW';
  }
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
