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
 * the entry at once (invalidateTemplateCache). Concurrent requests that find no fresh entry share one read, and an
 * entry past half its second is renewed by one read in the background while it is still served: before, every
 * request arriving while the expired entry was being read read it again (~14 reads a second at 415–450 flows/s, each
 * 4–39 ms under load, 1–7 % of the flows waiting for one: bench/history/2026-11-23-flows.md, "where a flow's
 * Postgres wait goes"). */
const TEMPLATE_CACHE_TTL_MS = 1000;
type TemplateAndPolicy = { template: TemplateRow; policy: CheckPolicy };
const templateCache = new Map<string, { at: number; value: TemplateAndPolicy }>();
/** the reads in flight, by key */
const templateReads = new Map<string, Promise<TemplateAndPolicy>>();
/** bumped by every invalidation: a read that started before one does not store what it read */
let templateGeneration = 0;

export function invalidateTemplateCache(tenantId: string): void {
  templateGeneration++;
  for (const key of templateCache.keys()) if (key.startsWith(`${tenantId}:`)) templateCache.delete(key);
  for (const key of templateReads.keys()) if (key.startsWith(`${tenantId}:`)) templateReads.delete(key);
}

export async function templateAndPolicy(
  sql: Sql,
  tenantId: string,
  slug: string,
): Promise<TemplateAndPolicy> {
  // inside a transaction: its own read, as it sees it (a background read must not outlive the transaction)
  if ('savepoint' in sql) return loadTemplateAndPolicy(sql, tenantId, slug);
  const key = `${tenantId}:${slug}`;
  const hit = templateCache.get(key);
  const age = hit ? Date.now() - hit.at : Number.POSITIVE_INFINITY;
  if (hit && age < TEMPLATE_CACHE_TTL_MS) {
    if (age >= TEMPLATE_CACHE_TTL_MS / 2 && !templateReads.has(key))
      readTemplateAndPolicy(sql, key, tenantId, slug).catch(() => {
        // the entry expires and the next request reads (and reports) it
      });
    return hit.value;
  }
  return templateReads.get(key) ?? readTemplateAndPolicy(sql, key, tenantId, slug);
}

function readTemplateAndPolicy(
  sql: Sql,
  key: string,
  tenantId: string,
  slug: string,
): Promise<TemplateAndPolicy> {
  const generation = templateGeneration;
  // the entry's age counts from the read's start: what it read is no older than that
  const at = Date.now();
  const read = loadTemplateAndPolicy(sql, tenantId, slug)
    .then((value) => {
      if (generation === templateGeneration) {
        if (templateCache.size > 10_000) templateCache.clear();
        templateCache.set(key, { at, value });
      }
      return value;
    })
    .finally(() => {
      if (templateReads.get(key) === read) templateReads.delete(key);
    });
  templateReads.set(key, read);
  return read;
}

async function loadTemplateAndPolicy(sql: Sql, tenantId: string, slug: string): Promise<TemplateAndPolicy> {
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
