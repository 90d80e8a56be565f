import type { FlowDecision } from '../../schemas/flows.js';
import type { RequiredDocument } from '../../schemas/templates.js';
import type { Sql } from '../db/sql.js';
import { invalid } from '../errors.js';
import { type CheckPolicy, policyFromRow, type StoredPolicy } from '../policy/check-policy.js';

export const DEFAULT_TEMPLATE = {
  slug: 'default',
  name: 'Default (AML screening only)',
  description: 'Checks-only template created with every tenant: one aml_screen check',
  required_checks: ['aml_screen'],
} as const;

export interface TemplateRow {
  id: string;
  seq: string;
  tenant_id: string;
  slug: string;
  name: string;
  description: string | null;
  required_checks: string[];
  allowed_document_types: string[];
  /** ICAO 9303 issuing-state codes (as in the MRZ) the document check accepts; empty = any */
  allowed_issuing_countries: string[];
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

/** Template + policy per (tenant, slug), kept one second per process: every flow reads them, and a second is the
 * documented bound for a change made in another process to take effect. Changes made in this process invalidate
 * the entry at once (invalidateTemplateCache). */
const TEMPLATE_CACHE_TTL_MS = 1000;
const templateCache = new Map<
  string,
  { at: number; value: { template: TemplateRow; policy: CheckPolicy } }
>();

export function invalidateTemplateCache(tenantId: string): void {
  for (const key of templateCache.keys()) if (key.startsWith(`${tenantId}:`)) templateCache.delete(key);
}

export async function templateAndPolicy(
  sql: Sql,
  tenantId: string,
  slug: string,
): Promise<{ template: TemplateRow; policy: CheckPolicy }> {
  const key = `${tenantId}:${slug}`;
  const hit = templateCache.get(key);
  if (hit && Date.now() - hit.at < TEMPLATE_CACHE_TTL_MS) return hit.value;
  const value = await loadTemplateAndPolicy(sql, tenantId, slug);
  if (templateCache.size > 10_000) templateCache.clear();
  templateCache.set(key, { at: Date.now(), value });
  return value;
}

async function loadTemplateAndPolicy(
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
