import type { CheckTypeDef } from '../check-type.js';
import { elapsedMs } from '../check-type.js';

/** The applicant's countries (address, nationality, client IP) against the FATF lists and the policy's
 * blocked_countries. */
export const countryRisk: CheckTypeDef = {
  type: 'country_risk',
  needs_upload: false,
  reason_codes: {
    fatf_black: {
      description: 'A country of the applicant (address, nationality or IP) is on the FATF black list',
      decide: (p) => (p.fatf_black_handling === 'block' ? 'REJECTED' : 'MANUAL_REVIEW'),
    },
    fatf_grey: {
      description: 'A country of the applicant is on the FATF grey list',
      decide: (p) => (p.fatf_grey_handling === 'flag' ? 'MANUAL_REVIEW' : null),
    },
    blocked_country: {
      description: "A country of the applicant is in the policy's blocked_countries",
      decide: () => 'REJECTED',
    },
  },
  async run(deps, input) {
    const started = performance.now();
    const fatf = deps.fatf();
    const sources: [string, string | null | undefined][] = [
      ['address', input.applicant.address_country],
      ['nationality', input.applicant.nationality],
      ['ip', input.client_metadata.geolocation?.country],
    ];
    const signals = new Set<string>();
    const countries = sources
      .filter((s): s is [string, string] => !!s[1])
      .map(([source, raw]) => {
        const country = raw.toUpperCase();
        const listing = fatf.listings[country] ?? null;
        const blocked = input.policy.blocked_countries.includes(country);
        if (listing === 'black') signals.add('fatf_black');
        if (listing === 'grey') signals.add('fatf_grey');
        if (blocked) signals.add('blocked_country');
        return { source, country, fatf: listing, blocked };
      });
    return {
      check_type: 'country_risk',
      status: 'completed',
      result: countries.length === 0 ? 'not_applicable' : signals.size ? 'hit' : 'clear',
      signals: [...signals],
      latency_ms: elapsedMs(started),
      dataset_versions: [`fatf:${fatf.version}`],
      datasets: [],
      evidence: {
        countries,
        fatf_version: fatf.version,
        fatf_black_handling: input.policy.fatf_black_handling,
        fatf_grey_handling: input.policy.fatf_grey_handling,
      },
      error: null,
      alerts: [],
    };
  },
};
