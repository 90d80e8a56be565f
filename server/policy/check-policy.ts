import { FACE_MATCH_THRESHOLD } from '../../identity/face/index.js';
import { isCountryCode } from '../../ingest/countries.js';
import { ALGORITHMS, resolvePolicy } from '../../matcher/index.js';
import type { MatchPolicy } from '../../matcher/types.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { CheckPolicyIn, CheckPolicyOut } from '../../schemas/policy.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { ValidationError, type ValidationIssue } from '../errors.js';

export interface CheckPolicy {
  policy_version: string;
  default_datasets: AmlDataset[];
  aml_match_policy: MatchPolicy;
  blocked_countries: string[];
  device_velocity_threshold: number;
  fatf_black_handling: 'flag' | 'block';
  fatf_grey_handling: 'ignore' | 'flag';
  four_eyes_required: boolean;
  vpn_policy: 'allow' | 'review' | 'block';
  /** selfie check: faceSimilarity at or above which selfie and document portrait are the same person */
  face_match_threshold: number;
  /** selfie check: advisory liveness below this → review (never a rejection on its own) */
  liveness_review_threshold: number;
}

/** The stored document: everything but the version (which is the row's key). */
export type StoredPolicy = Omit<CheckPolicy, 'policy_version'>;

/** Default advisory liveness threshold of the selfie check: on the 59 faces of deepface's genuine photos the
 * liveness score's minimum is 0.42, so 0.4 sends none of them to review (docs/decisions/identity.md). */
export const LIVENESS_REVIEW_THRESHOLD = 0.4;

/** Policy of a tenant that never PUT one (documented in docs/decisions.md). */
export const DEFAULT_CHECK_POLICY: CheckPolicy = Object.freeze({
  policy_version: 'default',
  default_datasets: ['sanctions', 'pep'],
  aml_match_policy: resolvePolicy(),
  blocked_countries: [],
  device_velocity_threshold: 5,
  fatf_black_handling: 'block',
  fatf_grey_handling: 'flag',
  four_eyes_required: false,
  vpn_policy: 'review',
  face_match_threshold: FACE_MATCH_THRESHOLD,
  liveness_review_threshold: LIVENESS_REVIEW_THRESHOLD,
}) as CheckPolicy;

export const versionLabel = (v: number | null | undefined): string => (v ? `v${v}` : 'default');

export function policyFromRow(version: number | null, stored: StoredPolicy | null): CheckPolicy {
  if (!version || !stored) return DEFAULT_CHECK_POLICY;
  // versions stored before a field existed take its default
  return { ...DEFAULT_CHECK_POLICY, ...stored, policy_version: versionLabel(version) };
}

/** The policy in force, read from Postgres (flow jobs, reruns, batches and monitors). Sync flows read it together
 * with their template in one round trip, cached one second per process (templateAndPolicy in
 * server/templates/template-store.ts): a PUT applies everywhere within a second. */
export async function checkPolicyFor(sql: Sql, tenantId: string): Promise<CheckPolicy> {
  const [row] = await sql<{ version: number; policy: StoredPolicy }[]>`
    select version, policy from check_policies where tenant_id = ${tenantId}
    order by version desc limit 1`;
  return policyFromRow(row?.version ?? null, row?.policy ?? null);
}

/** The policy of a version label a batch or monitor recorded (`v<N>` or `default`): its work screens with the policy
 * it says it used, even when a newer version was stored meanwhile. An unknown label (never written by us) → the
 * policy in force. */
export async function checkPolicyAt(sql: Sql, tenantId: string, label: string): Promise<CheckPolicy> {
  if (label === DEFAULT_CHECK_POLICY.policy_version) return DEFAULT_CHECK_POLICY;
  const version = /^v(\d+)$/.exec(label)?.[1];
  if (!version) return checkPolicyFor(sql, tenantId);
  const [row] = await sql<{ version: number; policy: StoredPolicy }[]>`
    select version, policy from check_policies where tenant_id = ${tenantId} and version = ${Number(version)}`;
  return row ? policyFromRow(row.version, row.policy) : checkPolicyFor(sql, tenantId);
}

/** Cross-field rules JSON Schema cannot say; each issue names its field. */
export function validatePolicy(input: CheckPolicyIn): StoredPolicy {
  const issues: ValidationIssue[] = [];
  const aml = input.aml_match_policy ?? {};
  const loc = (...p: (string | number)[]) => ['body', 'aml_match_policy', ...p];
  if (aml.algorithm !== undefined && !ALGORITHMS.includes(aml.algorithm)) {
    issues.push({
      loc: loc('algorithm'),
      msg: `must be one of: ${ALGORITHMS.join(', ')}`,
      type: 'enum',
    });
  }
  const resolved = resolvePolicy({
    ...aml,
    ...(aml.algorithm !== undefined && !ALGORITHMS.includes(aml.algorithm) ? { algorithm: undefined } : {}),
  } as Partial<MatchPolicy>);
  if (resolved.fail_threshold < resolved.review_threshold) {
    issues.push({
      loc: loc('fail_threshold'),
      msg: `must be greater than or equal to review_threshold (${resolved.review_threshold})`,
      type: 'value_error',
    });
  }
  const overlap = resolved.include_sources.filter((s) => resolved.exclude_sources.includes(s));
  if (overlap.length) {
    issues.push({
      loc: loc('exclude_sources'),
      msg: `a source cannot be both included and excluded: ${overlap.join(', ')}`,
      type: 'value_error',
    });
  }
  const blocked = (input.blocked_countries ?? []).map((c) => c.toUpperCase());
  blocked.forEach((c, i) => {
    if (!isCountryCode(c)) {
      issues.push({
        loc: ['body', 'blocked_countries', i],
        msg: `"${c}" is not an ISO 3166-1 alpha-2 country code`,
        type: 'value_error',
      });
    }
  });
  if (issues.length) throw new ValidationError(issues);
  const d = DEFAULT_CHECK_POLICY;
  return {
    default_datasets: input.default_datasets,
    aml_match_policy: resolved,
    blocked_countries: [...new Set(blocked)].sort(),
    device_velocity_threshold: input.device_velocity_threshold ?? d.device_velocity_threshold,
    fatf_black_handling: input.fatf_black_handling ?? d.fatf_black_handling,
    fatf_grey_handling: input.fatf_grey_handling ?? d.fatf_grey_handling,
    four_eyes_required: input.four_eyes_required ?? d.four_eyes_required,
    vpn_policy: input.vpn_policy ?? d.vpn_policy,
    face_match_threshold: input.face_match_threshold ?? d.face_match_threshold,
    liveness_review_threshold: input.liveness_review_threshold ?? d.liveness_review_threshold,
  };
}

/** Stores a new version; concurrent PUTs serialise on the tenant row so versions never collide. */
export async function putCheckPolicy(sql: Sql, tenantId: string, stored: StoredPolicy): Promise<CheckPolicy> {
  const version = await transaction(sql, async (tx) => {
    await tx`select 1 from tenants where id = ${tenantId} for update`;
    const [row] = await tx<{ version: number }[]>`
      insert into check_policies (tenant_id, version, policy)
      select ${tenantId}, coalesce(max(version), 0) + 1, ${json(tx, stored)}
      from check_policies where tenant_id = ${tenantId}
      returning version`;
    if (!row) throw new Error('policy insert returned nothing');
    return row.version;
  });
  // versions stored before a field existed take its default
  return { ...DEFAULT_CHECK_POLICY, ...stored, policy_version: versionLabel(version) };
}

export function policyOut(p: CheckPolicy): CheckPolicyOut {
  return {
    aml_match_policy: p.aml_match_policy,
    blocked_countries: p.blocked_countries,
    default_datasets: p.default_datasets,
    device_velocity_threshold: p.device_velocity_threshold,
    fatf_black_handling: p.fatf_black_handling,
    fatf_grey_handling: p.fatf_grey_handling,
    four_eyes_required: p.four_eyes_required,
    vpn_policy: p.vpn_policy,
    face_match_threshold: p.face_match_threshold,
    liveness_review_threshold: p.liveness_review_threshold,
    policy_version: p.policy_version,
  };
}
