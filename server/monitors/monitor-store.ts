import type { Static } from '@sinclair/typebox';
import type { MonitorListQuery, MonitorOut } from '../../schemas/monitors.js';
import type { SubjectIn } from '../../schemas/subjects.js';
import { decodeCursor, page } from '../db/cursor.js';
import { json, type Sql } from '../db/sql.js';
import { NotFound } from '../domain-errors.js';

export interface MonitorRow {
  id: string;
  seq: string;
  tenant_id: string;
  applicant_id: string | null;
  external_id: string | null;
  subjects: SubjectIn[];
  datasets: MonitorOut['datasets'];
  status: MonitorOut['status'];
  use_case: string;
  policy_version: string;
  failure_reason: string | null;
  interval_hours: number;
  last_check_id: string | null;
  last_checked_at: Date | null;
  last_dataset_partition: string | null;
  next_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function monitorOut(m: MonitorRow): MonitorOut {
  return {
    id: m.id,
    applicant_id: m.applicant_id,
    external_id: m.external_id,
    datasets: m.datasets,
    status: m.status,
    subjects: m.subjects,
    use_case: m.use_case,
    policy_version: m.policy_version,
    failure_reason: m.failure_reason,
    last_check_id: m.last_check_id,
    last_checked_at: m.last_checked_at?.toISOString() ?? null,
    last_dataset_partition: m.last_dataset_partition,
    next_due_at: m.next_due_at?.toISOString() ?? null,
    interval_hours: m.interval_hours,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

export const subjectRef = (m: Pick<MonitorRow, 'id'>) => `monitor:${m.id}`;

/** One monitor of the tenant. */
export async function findMonitor(sql: Sql, tenantId: string, id: string): Promise<MonitorRow> {
  const [m] = await sql<MonitorRow[]>`select * from monitors where id = ${id} and tenant_id = ${tenantId}`;
  if (!m) throw new NotFound('Monitor');
  return m;
}

/** Pauses or resumes a monitor (clearing a failure): a run that was due while paused runs at the next scheduler
 * pass. */
export async function setMonitorStatus(
  sql: Sql,
  tenantId: string,
  id: string,
  status: 'active' | 'paused',
): Promise<MonitorRow> {
  const [m] = await sql<MonitorRow[]>`
    update monitors set status = ${status}, failure_reason = null, updated_at = now()
    where id = ${id} and tenant_id = ${tenantId} returning *`;
  if (!m) throw new NotFound('Monitor');
  return m;
}

export interface NewMonitor {
  tenant_id: string;
  applicant_id: string | null;
  external_id: string | null;
  subjects: SubjectIn[];
  datasets: MonitorOut['datasets'];
  policy_version: string;
  interval_hours: number;
  next_due_at: Date;
}

export async function insertMonitor(sql: Sql, m: NewMonitor): Promise<MonitorRow> {
  const search = [m.external_id, ...m.subjects.map((s) => s.name)].filter(Boolean).join(' ').toLowerCase();
  const [row] = await sql<MonitorRow[]>`
    insert into monitors ${sql({ ...m, subjects: json(sql, m.subjects), search_text: search })}
    returning *`;
  if (!row) throw new Error('monitor insert returned nothing');
  return row;
}

/** Claims a new monitor's first run as the scheduler claims a due one (once, by one process): false when the
 * scheduler took it first. */
export async function claimFirstRun(sql: Sql, id: string): Promise<boolean> {
  const claimed = await sql`
    update monitors set next_due_at = now() + make_interval(hours => interval_hours)
    where id = ${id} and next_due_at <= now() returning id`;
  return claimed.length > 0;
}

/** A page of the tenant's monitors, newest first; `search` is a substring of the subject names and external_id. */
export async function listMonitors(sql: Sql, tenantId: string, query: Static<typeof MonitorListQuery>) {
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
  const like = query.search ? `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : '';
  const rows = await sql<MonitorRow[]>`
    select * from monitors where tenant_id = ${tenantId}
      ${query.status ? sql`and status = ${query.status}` : sql``}
      ${query.applicant_id ? sql`and applicant_id = ${query.applicant_id}` : sql``}
      ${query.use_case ? sql`and use_case = ${query.use_case}` : sql``}
      ${query.search ? sql`and search_text like ${like}` : sql``}
      ${after ? sql`and seq < ${after}` : sql``}
    order by seq desc limit ${limit + 1}`;
  const p = page(rows, limit);
  return { items: p.rows.map(monitorOut), next_cursor: p.next_cursor };
}

/** Deletes a monitor (its checks and alerts stay). */
export async function deleteMonitor(sql: Sql, tenantId: string, id: string): Promise<void> {
  const rows = await sql`delete from monitors where id = ${id} and tenant_id = ${tenantId} returning id`;
  if (!rows.length) throw new NotFound('Monitor');
}
