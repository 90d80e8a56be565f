import type { Sql } from '../db/sql.js';
import { invalid } from '../errors.js';

export const DEFAULT_TEMPLATE = {
  slug: 'default',
  name: 'Default (AML screening only)',
  description: 'Checks-only template created with every tenant: one aml_screen check',
  required_checks: ['aml_screen'],
} as const;

/** Check types that run without documents or biometrics: a template made only of these is "checks-only". */
const CHECKS_ONLY_TYPES = new Set(['aml_screen', 'country_risk', 'ip_risk', 'device_fingerprint']);

export interface TemplateRow {
  id: string;
  slug: string;
  required_checks: string[];
  default_datasets: string[] | null;
  required_documents: unknown[];
  default_decision: string;
  archived_at: Date | null;
}

export function isChecksOnly(t: Pick<TemplateRow, 'required_checks' | 'required_documents'>): boolean {
  return t.required_checks.every((c) => CHECKS_ONLY_TYPES.has(c)) && t.required_documents.length === 0;
}

export async function templateBySlug(sql: Sql, tenantId: string, slug: string): Promise<TemplateRow> {
  const [row] = await sql<TemplateRow[]>`
    select id, slug, required_checks, default_datasets, required_documents, default_decision, archived_at
    from flow_templates where tenant_id = ${tenantId} and slug = ${slug}`;
  if (!row) throw invalid(['body', 'template_slug'], `No flow template with slug "${slug}"`, 'not_found');
  if (row.archived_at)
    throw invalid(['body', 'template_slug'], `Flow template "${slug}" is archived`, 'archived');
  return row;
}
