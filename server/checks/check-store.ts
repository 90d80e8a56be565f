// The checks' reads: the filtered listing and one check. Checks are written by the screening recorder
// (server/checks/recorder.ts) and the flow graph statement (server/flows/flow-store.ts), never updated.
import type { Static } from '@sinclair/typebox';
import type { CheckListQuery, CheckOut } from '../../schemas/checks.js';
import { page, pageArgs } from '../db/cursor.js';
import { equalsFilter } from '../db/list-filters.js';
import type { Sql } from '../db/sql.js';
import { NotFound } from '../domain-errors.js';
import { type CheckRow, checkOut } from './check-model.js';

/** A page of the tenant's checks, newest first; the filters combine. Every filter has a (tenant_id, <column>, seq
 * desc) index or a GIN index (migration 003); those of status, result, decision and check_type hold only the rare
 * values (equalsFilter, migration 020). */
export async function listChecks(
  sql: Sql,
  tenantId: string,
  query: Static<typeof CheckListQuery>,
): Promise<{ items: CheckOut[]; next_cursor: string | null }> {
  const { limit, after } = pageArgs(query);
  const like = query.search ? `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : '';
  const rows = await sql<CheckRow[]>`
    select * from checks
    where tenant_id = ${tenantId}
      ${query.check_type ? equalsFilter(sql, 'checks', 'check_type', query.check_type) : sql``}
      ${query.status ? equalsFilter(sql, 'checks', 'status', query.status) : sql``}
      ${query.result ? equalsFilter(sql, 'checks', 'result', query.result) : sql``}
      ${query.flow_id ? sql`and flow_id = ${query.flow_id}` : sql``}
      ${query.batch_id ? sql`and batch_id = ${query.batch_id}` : sql``}
      ${query.applicant_id ? sql`and applicant_id = ${query.applicant_id}` : sql``}
      ${query.use_case ? sql`and use_case = ${query.use_case}` : sql``}
      ${query.decision ? equalsFilter(sql, 'checks', 'decision', query.decision) : sql``}
      ${query.dataset ? sql`and datasets @> ${[query.dataset]}::text[]` : sql``}
      ${query.reference ? sql`and reference = ${query.reference}` : sql``}
      ${query.input_ref ? sql`and input_ref = ${query.input_ref}` : sql``}
      ${query.search ? sql`and (lower(applicant_name) like ${like} or lower(reference) like ${like})` : sql``}
      ${after ? sql`and seq < ${after}` : sql``}
    order by seq desc
    limit ${limit + 1}`;
  const p = page(rows, limit);
  return { items: p.rows.map(checkOut), next_cursor: p.next_cursor };
}

/** One check of the tenant, with its evidence. */
export async function getCheck(sql: Sql, tenantId: string, checkId: string): Promise<CheckOut> {
  const [row] = await sql<CheckRow[]>`select * from checks where id = ${checkId} and tenant_id = ${tenantId}`;
  if (!row) throw new NotFound('Check');
  return checkOut(row);
}
