import type { IpRiskSignal } from '../../flows/client-metadata.js';
import type { CheckPolicy } from '../../policy/check-policy.js';
import type { CheckTypeDef, ReasonRule } from '../check-type.js';
import { elapsedMs } from '../check-type.js';

const IP_SIGNALS: Record<IpRiskSignal, string> = {
  vpn: 'vpn_detected',
  proxy: 'proxy_detected',
  tor: 'tor_detected',
  hosting: 'hosting_ip',
};

/** Every anonymising-network signal follows the policy's vpn_policy. */
const byVpnPolicy = (description: string): ReasonRule => ({
  description,
  decide: (p: CheckPolicy) =>
    p.vpn_policy === 'block' ? 'REJECTED' : p.vpn_policy === 'review' ? 'MANUAL_REVIEW' : null,
});

/** The client IP's risk as reported by a trusted proxy (Veriscreen-IP-Risk). */
export const ipRisk: CheckTypeDef = {
  type: 'ip_risk',
  needs_upload: false,
  reason_codes: {
    vpn_detected: byVpnPolicy('The client IP is a VPN exit'),
    proxy_detected: byVpnPolicy('The client IP is an open or anonymising proxy'),
    tor_detected: byVpnPolicy('The client IP is a Tor exit node'),
    hosting_ip: byVpnPolicy('The client IP belongs to a hosting / data-centre network'),
  },
  async run(_deps, input) {
    const started = performance.now();
    const risk = input.client_metadata.ip_risk ?? null;
    const signals = (risk ?? []).map((r) => IP_SIGNALS[r]);
    return {
      check_type: 'ip_risk',
      status: 'completed',
      result: risk === null ? 'not_applicable' : signals.length ? 'hit' : 'clear',
      signals,
      latency_ms: elapsedMs(started),
      dataset_versions: [],
      datasets: [],
      evidence: {
        ip: input.client_metadata.ip ?? null,
        signal: risk === null ? 'unavailable' : risk,
        source: 'trusted-header',
        vpn_policy: input.policy.vpn_policy,
      },
      error: null,
      alerts: [],
    };
  },
};
