import type { FlowDecision } from '../../schemas/flows.js';
import type { RequiredDocument } from '../../schemas/templates.js';
import type { Sql } from '../db/sql.js';
import { invalid } from '../errors.js';
import { type CheckPolicy, policyFromRow, type StoredPolicy } from './check-policy.js';

export const DEFAULT_TEMPLATE = {
  slug: 'default',
  name: 'Default (AML screening only)',
  description: 'Checks-only template created with every tenant: one aml_screen check',
  required_checks: ['aml_screen'],
} as const;

/** Check types that run without documents or biometrics: a template made only of these is "checks-only". */
export const CHECKS_ONLY_TYPES = new Set(['aml_screen', 'country_risk', 'ip_risk', 'device_fingerprint']);
/** Check types that wait for uploads (documents issue): a flow needing them goes to AWAITING_INPUT. */
export const INPUT_CHECK_TYPES = new Set(['document', 'selfie']);

export interface TemplateRow {
  id: string;
  seq: string;
  tenant_id: string;
  slug: string;
  name: string;
  description: string | null;
  required_checks: string[];
  allowed_document_types: string[];
  default_datasets: string[] | null;
  document_capture_mode: string;
  passport_nfc_behavior: string;
  intake_fields: string[];
  required_documents: RequiredDocument[];
  default_decision: FlowDecision;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function isChecksOnly(t: Pick<TemplateRow, 'required_checks' | 'required_documents'>): boolean {
  return t.required_checks.every((c) => CHECKS_ONLY_TYPES.has(c)) && t.required_documents.length === 0;
}

/** The template by slug and the tenant's policy in force, in one round trip (the sync hot path). */
export async function templateAndPolicy(
  sql: Sql,
  tenantId: string,
  slug: string,
): Promise<{ template: TemplateRow; policy: CheckPolicy }> {
  const [row] = await sql<(TemplateRow & { p_version: number | null; p_policy: StoredPolicy | null })[]>`
    select t.*, p.version as p_version, p.policy as p_policy
    from flow_templates t
    left join lateral (
      select version, policy from check_policies where tenant_id = ${tenantId} order by version desc limit 1
    ) p on true
    where t.tenant_id = ${tenantId} and t.slug = ${slug}`;
  if (!row) throw invalid(['body', 'template_slug'], `No flow template with slug "${slug}"`, 'not_found');
  if (row.archived_at)
    throw invalid(['body', 'template_slug'], `Flow template "${slug}" is archived`, 'archived');
  const { p_version, p_policy, ...template } = row;
  return { template, policy: policyFromRow(p_version, p_policy) };
}

export async function templateById(sql: Sql, tenantId: string, id: string): Promise<TemplateRow | undefined> {
  const [row] = await sql<TemplateRow[]>`
    select * from flow_templates where id = ${id} and tenant_id = ${tenantId}`;
  return row;
}
