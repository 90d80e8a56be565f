import type { Sql, Tx } from '../db/sql.js';

/** Rows of the journey's tables (migration 031) and the statements on them. */

export interface LinkRow {
  id: string;
  tenant_id: string;
  flow_id: string;
  purpose: 'verification' | 'handoff';
  token_hash: Buffer;
  redirect_url: string | null;
  locale: string | null;
  expires_at: Date;
  created_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  parent_session_id: string | null;
}

export interface SessionRow {
  id: string;
  tenant_id: string;
  flow_id: string;
  link_id: string;
  purpose: 'verification' | 'handoff';
  transport: 'cookie' | 'bearer';
  locale: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  submitted_at: Date | null;
}

export async function insertLink(
  tx: Sql,
  l: Pick<LinkRow, 'tenant_id' | 'flow_id' | 'purpose' | 'token_hash' | 'redirect_url' | 'locale'> & {
    expires_in: number;
    parent_session_id?: string | null;
  },
): Promise<LinkRow> {
  const [row] = await tx<LinkRow[]>`
    insert into verification_links (tenant_id, flow_id, purpose, token_hash, redirect_url, locale, expires_at,
                                    parent_session_id)
    values (${l.tenant_id}, ${l.flow_id}, ${l.purpose}, ${l.token_hash}, ${l.redirect_url}, ${l.locale},
            now() + make_interval(secs => ${l.expires_in}), ${l.parent_session_id ?? null})
    returning *`;
  if (!row) throw new Error('link insert returned nothing');
  return row;
}

export function flowLinks(sql: Sql, tenantId: string, flowId: string): Promise<LinkRow[]> {
  return sql<LinkRow[]>`
    select * from verification_links where tenant_id = ${tenantId} and flow_id = ${flowId}
    order by seq desc limit 200`;
}

export async function linkByHash(tx: Tx, hash: Buffer): Promise<LinkRow | undefined> {
  const [row] = await tx<LinkRow[]>`select * from verification_links where token_hash = ${hash} for update`;
  return row;
}

/** Revokes a link (kept as it is when already revoked) and ends every session it opened, and the hand-off links and
 * sessions those sessions made. Returns the link, or undefined when the flow has no such link. */
export async function revokeLink(
  tx: Tx,
  tenantId: string,
  flowId: string,
  linkId: string,
): Promise<LinkRow | undefined> {
  const [row] = await tx<LinkRow[]>`
    update verification_links set revoked_at = coalesce(revoked_at, now())
    where id = ${linkId} and tenant_id = ${tenantId} and flow_id = ${flowId}
    returning *`;
  if (!row) return undefined;
  await tx`
    with opened as (
      select id from applicant_sessions where link_id = ${linkId}
    ), handoffs as (
      update verification_links set revoked_at = coalesce(revoked_at, now())
      where parent_session_id in (select id from opened) returning id
    )
    update applicant_sessions set ended_at = now(), end_reason = 'revoked'
    where ended_at is null
      and (id in (select id from opened) or link_id in (select id from handoffs))`;
  return row;
}

export async function insertSession(
  tx: Tx,
  s: Pick<SessionRow, 'tenant_id' | 'flow_id' | 'link_id' | 'purpose' | 'transport' | 'locale'> & {
    token_hash: Buffer;
    max_seconds: number;
  },
): Promise<SessionRow> {
  const [row] = await tx<SessionRow[]>`
    insert into applicant_sessions (tenant_id, flow_id, link_id, purpose, token_hash, transport, locale, expires_at)
    values (${s.tenant_id}, ${s.flow_id}, ${s.link_id}, ${s.purpose}, ${s.token_hash}, ${s.transport}, ${s.locale},
            now() + make_interval(secs => ${s.max_seconds}))
    returning *`;
  if (!row) throw new Error('session insert returned nothing');
  return row;
}

export async function sessionById(sql: Sql, id: string): Promise<SessionRow | undefined> {
  const [row] = await sql<SessionRow[]>`select * from applicant_sessions where id = ${id}`;
  return row;
}

/** Whether the flow had a verification session before (its first opening starts the verification). */
export async function hadVerificationSession(tx: Tx, flowId: string): Promise<boolean> {
  const [row] = await tx<{ had: boolean }[]>`
    select exists (select 1 from applicant_sessions where flow_id = ${flowId} and purpose = 'verification') as had`;
  return row?.had ?? false;
}

/** The applicant submitted the flow (any of its verification sessions). */
export async function flowSubmittedAt(sql: Sql, flowId: string): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select min(submitted_at) as at from applicant_sessions where flow_id = ${flowId}`;
  return row?.at ?? null;
}

/**
 * Whether the flow waits for its applicant's submit: a verification session is open on it (not ended, within its
 * lifetime) and none of its sessions has submitted. While it does, the flow does not move on by itself when its
 * last input arrives (the applicant may still retake a capture); `missing_inputs` says `submission`.
 */
export async function awaitingSubmission(sql: Sql, flowId: string): Promise<boolean> {
  const [row] = await sql<{ waits: boolean }[]>`
    select exists (
      select 1 from applicant_sessions
      where flow_id = ${flowId} and purpose = 'verification' and ended_at is null and expires_at > now()
    ) and not exists (
      select 1 from applicant_sessions where flow_id = ${flowId} and submitted_at is not null
    ) as waits`;
  return row?.waits ?? false;
}

/** The latest hand-off link a session made, with the state of the session it opened. */
export async function latestHandoff(
  sql: Sql,
  sessionId: string,
): Promise<(LinkRow & { opened_active: boolean | null }) | undefined> {
  const [row] = await sql<(LinkRow & { opened_active: boolean | null })[]>`
    select l.*, (select bool_or(s.ended_at is null and s.expires_at > now())
                 from applicant_sessions s where s.link_id = l.id) as opened_active
    from verification_links l
    where l.parent_session_id = ${sessionId}
    order by l.seq desc limit 1`;
  return row;
}

/** Records the steps a session reached (first time only); returns those new to it. */
export async function reachSteps(
  sql: Sql,
  s: { session_id: string; tenant_id: string; flow_id: string },
  steps: string[],
): Promise<string[]> {
  if (!steps.length) return [];
  const rows = await sql<{ step: string }[]>`
    insert into applicant_session_steps (session_id, tenant_id, flow_id, step)
    select ${s.session_id}, ${s.tenant_id}, ${s.flow_id}, unnest(${steps}::text[])
    on conflict do nothing
    returning step`;
  return rows.map((r) => r.step);
}

/** The origins a tenant lets frame its applicants' page (tenant settings' allowed_origins). */
export async function tenantAllowedOrigins(sql: Sql, tenantId: string): Promise<string[]> {
  const [row] = await sql<{ allowed_origins: string[] }[]>`
    select allowed_origins from tenants where id = ${tenantId} and status = 'active'`;
  return row?.allowed_origins ?? [];
}
