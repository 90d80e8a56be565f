import { resolvePolicy } from '../../matcher/index.js';
import type { MatchPolicy } from '../../matcher/types.js';
import type { AmlDataset } from '../../schemas/common.js';

export interface CheckPolicy {
  policy_version: string;
  default_datasets: AmlDataset[];
  aml_match_policy: MatchPolicy;
}

// Until tenants can edit their policy (flows issue), every tenant screens under the documented defaults.
const DEFAULT_CHECK_POLICY: CheckPolicy = {
  policy_version: 'default',
  default_datasets: ['sanctions', 'pep'],
  aml_match_policy: resolvePolicy(),
};

export async function checkPolicyFor(_tenantId: string): Promise<CheckPolicy> {
  return DEFAULT_CHECK_POLICY;
}
