import type { Static } from '@sinclair/typebox';
import type { ApplicantSummaryOut } from '../../schemas/common.js';
import type { Sql } from '../db/sql.js';

export type ApplicantSummary = Static<typeof ApplicantSummaryOut>;

/** An applicant's name as operators read it: the person's legal name parts, else the business name (the
 * applicants table is `a` in the caller's query). */
export const applicantNameSql = (db: Sql) =>
  db`coalesce(nullif(concat_ws(' ', a.legal_name_first, a.legal_name_middle, a.legal_name_last), ''), a.business_name)`;

/** The summaries (id, external id, name) of the tenant's applicants among `ids`; erased applicants are left out. */
export async function applicantSummaries(
  db: Sql,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, ApplicantSummary>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await db<ApplicantSummary[]>`
    select a.id, a.external_id, ${applicantNameSql(db)} as name
    from applicants a
    where a.tenant_id = ${tenantId} and a.id = any(${unique}::uuid[]) and a.erased_at is null`;
  return new Map(rows.map((r) => [r.id, r]));
}
