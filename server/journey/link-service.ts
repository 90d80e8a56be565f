import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { VerificationLink, VerificationLinkCreateIn } from '../../schemas/journey.js';
import { writeAudit } from '../audit/audit.js';
import { newApplicantToken } from '../auth/applicant-sessions.js';
import type { TenantPrincipal } from '../auth/principal.js';
import { type Sql, type Tx, transaction } from '../db/sql.js';
import { NotFound, StateConflict } from '../domain-errors.js';
import { invalid } from '../errors.js';
import { outboxEvent, writeEvents } from '../outbox/outbox.js';
import {
  flowLinks,
  hadVerificationSession,
  insertLink,
  insertSession,
  type LinkRow,
  linkByHash,
  revokeLink,
  type SessionRow,
} from './journey-store.js';

/**
 * Verification links (docs/journey.md, "Links and sessions"): minted for an open flow that needs the applicant's
 * input, one-time, exchanged for an applicant session bound to that flow.
 */
export interface LinkDeps {
  sql: Sql;
  /** PUBLIC_BASE_URL; unset: the origin of the request that mints the link */
  publicBaseUrl: string | undefined;
  /** DEPLOYMENT_ENVIRONMENT: which native apps' tenant_path a link is built under */
  environment: string;
  production: boolean;
  /** APPLICANT_SESSION_MAX_SECONDS */
  maxSeconds: number;
  idleSeconds: number;
}

export const DEFAULT_LINK_BASE = '/verify';
export const HANDOFF_SECONDS = 15 * 60;

/** 16 random bytes (128 bits) in base64url: 22 characters. */
export function newLinkToken(): { token: string; hash: Buffer } {
  const token = randomBytes(16).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}
const hashLinkToken = (token: string): Buffer => hash('sha256', token, 'buffer');

export type LinkState = 'active' | 'used' | 'expired' | 'revoked';

export function linkStatus(
  l: Pick<LinkRow, 'revoked_at' | 'used_at' | 'expires_at'>,
  now = new Date(),
): LinkState {
  if (l.revoked_at) return 'revoked';
  if (l.used_at) return 'used';
  return l.expires_at <= now ? 'expired' : 'active';
}

export function linkOut(l: LinkRow, url: string | null = null): VerificationLink {
  return {
    id: l.id,
    flow_id: l.flow_id,
    purpose: l.purpose,
    url,
    status: linkStatus(l),
    expires_at: l.expires_at.toISOString(),
    redirect_url: l.redirect_url,
    locale: l.locale as VerificationLink['locale'],
    created_at: l.created_at.toISOString(),
    used_at: l.used_at?.toISOString() ?? null,
    revoked_at: l.revoked_at?.toISOString() ?? null,
  };
}

/** Whether a template asks the applicant for anything a link could collect. */
export function collectsInput(t: {
  required_checks: string[];
  required_documents: unknown[];
  intake_fields: string[];
}): boolean {
  return (
    t.required_checks.includes('document') ||
    t.required_checks.includes('selfie') ||
    t.required_documents.length > 0 ||
    t.intake_fields.length > 0
  );
}

/** A flow, its template's inputs and whether it is collecting them: open before processing (PENDING,
 * AWAITING_INPUT) on a template that asks the applicant for something. 404 when not the tenant's. */
export async function collectingFlow(sql: Sql, tenantId: string, flowId: string) {
  const [f] = await sql<
    {
      id: string;
      applicant_id: string;
      status: string;
      required_checks: string[] | null;
      required_documents: unknown[] | null;
      intake_fields: string[] | null;
    }[]
  >`
    select f.id, f.applicant_id, f.status, t.required_checks, t.required_documents, t.intake_fields
    from flows f
    join applicants a on a.id = f.applicant_id and a.tenant_id = f.tenant_id
    left join flow_templates t on t.id = f.flow_template_id
    where f.id = ${flowId} and f.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!f) throw new NotFound('Flow');
  const template = {
    required_checks: f.required_checks ?? [],
    required_documents: f.required_documents ?? [],
    intake_fields: f.intake_fields ?? [],
  };
  return { ...f, collecting: ['PENDING', 'AWAITING_INPUT'].includes(f.status) && collectsInput(template) };
}

export function notCollecting(status: string): StateConflict {
  return new StateConflict('flow_not_collecting', undefined, { status });
}

/** Where links of a tenant are built: under the tenant_path of its first enabled native app of this deployment's
 * environment (so that the app opens them), on that app's own link host when it has one; else /verify. */
export async function linkBase(
  sql: Sql,
  tenantId: string,
  environment: string,
): Promise<{ base: string; host: string | null }> {
  const [app] = await sql<{ tenant_path: string; link_host: string | null }[]>`
    select tenant_path, link_host from native_apps
    where tenant_id = ${tenantId} and enabled and ${environment} = any(environments)
    order by seq limit 1`;
  return { base: app?.tenant_path.replace(/\/+$/, '') || DEFAULT_LINK_BASE, host: app?.link_host ?? null };
}

/** `${PUBLIC_BASE_URL}${base}/${token}` (https://<link host> for a tenant with its own); without PUBLIC_BASE_URL, on
 * the origin the request reached. */
export function linkUrl(
  deps: Pick<LinkDeps, 'publicBaseUrl' | 'production'>,
  requestHost: string | undefined,
  where: { base: string; host: string | null },
  token: string,
): string {
  const origin = where.host ? `https://${where.host}` : serviceOrigin(deps, requestHost);
  return `${origin}${where.base}/${token}`;
}

/** PUBLIC_BASE_URL, else the origin the request reached (no trailing slash). */
function serviceOrigin(
  deps: Pick<LinkDeps, 'publicBaseUrl' | 'production'>,
  requestHost: string | undefined,
) {
  const origin =
    deps.publicBaseUrl ?? `${deps.production ? 'https' : 'http'}://${requestHost ?? 'localhost'}`;
  return origin.replace(/\/+$/, '');
}

/** The hosted page on a bearer session, for an embedding tenant's iframe (docs/journey.md "The hosted page"): the
 * session's id in the query (the server frames the page for that session's tenant only), its token in the fragment
 * (never sent to a server, so never in a log). */
export function embedPageUrl(
  deps: Pick<LinkDeps, 'publicBaseUrl' | 'production'>,
  requestHost: string | undefined,
  sessionId: string,
  token: string,
): string {
  return `${serviceOrigin(deps, requestHost)}/applicant/?session=${sessionId}#token=${token}`;
}

/** The redirect's origin must be one of the tenant's allowed origins (the page sends the applicant there). */
function checkRedirect(url: string | undefined, allowed: string[]): void {
  if (url === undefined) return;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw invalid(['body', 'redirect_url'], 'not a URL', 'value_error');
  }
  if (!allowed.includes(origin)) {
    throw invalid(
      ['body', 'redirect_url'],
      `the origin ${origin} is not one of the tenant's allowed_origins`,
      'origin_not_allowed',
    );
  }
}

/** POST /v1/flows/{flow_id}/verification_links: the only answer that carries the link. */
export async function mintLink(
  deps: LinkDeps,
  tenant: TenantPrincipal,
  flowId: string,
  body: VerificationLinkCreateIn,
  host: string | undefined,
): Promise<VerificationLink> {
  checkRedirect(body.redirect_url, tenant.allowed_origins);
  const flow = await collectingFlow(deps.sql, tenant.tenant_id, flowId);
  if (!flow.collecting) throw notCollecting(flow.status);
  const { token, hash: tokenHash } = newLinkToken();
  const row = await insertLink(deps.sql, {
    tenant_id: tenant.tenant_id,
    flow_id: flowId,
    purpose: 'verification',
    token_hash: tokenHash,
    redirect_url: body.redirect_url ?? null,
    locale: body.locale ?? null,
    expires_in: body.expires_in ?? 86_400,
  });
  const where = await linkBase(deps.sql, tenant.tenant_id, deps.environment);
  return linkOut(row, linkUrl(deps, host, where, token));
}

export async function listLinks(sql: Sql, tenantId: string, flowId: string): Promise<VerificationLink[]> {
  await collectingFlow(sql, tenantId, flowId);
  return (await flowLinks(sql, tenantId, flowId)).map((l) => linkOut(l));
}

export async function revoke(sql: Sql, tenantId: string, flowId: string, linkId: string) {
  const row = await transaction(sql, (tx) => revokeLink(tx, tenantId, flowId, linkId));
  if (!row) throw new NotFound('Link of this flow');
  return linkOut(row);
}

export type Opened =
  | { ok: true; session: SessionRow; token: string }
  | { ok: false; reason: 'used' | 'expired' | 'revoked' | 'unknown' };

/**
 * The one-time exchange: a usable link becomes used and opens a session on its flow (the flow's first verification
 * session writes `verification.started`). Concurrent openings of one link are serialised by its row lock: one wins.
 */
export function openLink(
  deps: LinkDeps,
  token: string,
  transport: 'cookie' | 'bearer',
  base: string,
  requestId: string,
): Promise<Opened> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return Promise.resolve({ ok: false, reason: 'unknown' });
  const tokenHash = hashLinkToken(token);
  return transaction(deps.sql, async (tx) => {
    const link = await linkByHash(tx, tokenHash);
    // the lookup is by hash; compared again in constant time so that no path depends on the token's bytes
    if (!link || !timingSafeEqual(link.token_hash, tokenHash)) return { ok: false, reason: 'unknown' };
    // under a tenant_path, only that tenant's links: another tenant's app path never opens them
    if (!(await isLinkBase(tx, base, link.tenant_id))) return { ok: false, reason: 'unknown' };
    const state = linkStatus(link);
    if (state !== 'active') return { ok: false, reason: state };
    const applicantId = await liveApplicant(tx, link);
    if (!applicantId) return { ok: false, reason: 'unknown' };
    await tx`update verification_links set used_at = now() where id = ${link.id}`;
    const first = link.purpose === 'verification' && !(await hadVerificationSession(tx, link.flow_id));
    const { token: sessionToken, hash: sessionHash } = newApplicantToken();
    const session = await insertSession(tx, {
      tenant_id: link.tenant_id,
      flow_id: link.flow_id,
      link_id: link.id,
      purpose: link.purpose,
      transport,
      locale: link.locale,
      token_hash: sessionHash,
      max_seconds: deps.maxSeconds,
    });
    if (first) await startedEvent(tx, link, applicantId, session.id);
    await writeAudit(tx, {
      tenant_id: link.tenant_id,
      actor_type: 'applicant_session',
      actor_id: session.id,
      action: 'verification_link.opened',
      resource_type: 'verification_link',
      resource_id: link.id,
      request_id: requestId,
      details: { flow_id: link.flow_id, purpose: link.purpose, transport },
    });
    return { ok: true, session, token: sessionToken };
  });
}

/** The flow's applicant, unless erased (then the link opens nothing). */
async function liveApplicant(tx: Tx, link: LinkRow): Promise<string | undefined> {
  const [row] = await tx<{ applicant_id: string }[]>`
    select f.applicant_id from flows f join applicants a on a.id = f.applicant_id and a.tenant_id = f.tenant_id
    where f.id = ${link.flow_id} and f.tenant_id = ${link.tenant_id} and a.erased_at is null`;
  return row?.applicant_id;
}

function startedEvent(tx: Tx, link: LinkRow, applicantId: string, sessionId: string) {
  return writeEvents(tx, [
    outboxEvent(link.tenant_id, 'verification.started', link.flow_id, {
      flow_id: link.flow_id,
      applicant_id: applicantId,
      link_id: link.id,
      session_id: sessionId,
    }),
  ]);
}

/** A hand-off link for a verification session: one at a time (an unused earlier one is revoked), 15 minutes. */
export async function mintHandoff(
  deps: LinkDeps,
  s: { tenant_id: string; flow_id: string; session_id: string },
  host: string | undefined,
): Promise<{ url: string; expires_at: string }> {
  const { token, hash: tokenHash } = newLinkToken();
  const row = await transaction(deps.sql, async (tx) => {
    await tx`
      update verification_links set revoked_at = now()
      where parent_session_id = ${s.session_id} and used_at is null and revoked_at is null`;
    const [parent] = await tx<{ locale: string | null }[]>`
      select l.locale from applicant_sessions s join verification_links l on l.id = s.link_id
      where s.id = ${s.session_id}`;
    return insertLink(tx, {
      tenant_id: s.tenant_id,
      flow_id: s.flow_id,
      purpose: 'handoff',
      token_hash: tokenHash,
      redirect_url: null,
      locale: parent?.locale ?? null,
      expires_in: HANDOFF_SECONDS,
      parent_session_id: s.session_id,
    });
  });
  const where = await linkBase(deps.sql, s.tenant_id, deps.environment);
  return { url: linkUrl(deps, host, where, token), expires_at: row.expires_at.toISOString() };
}

/** Whether a path prefix may carry links of this tenant: /verify, or the tenant_path of one of its enabled apps. */
export async function isLinkBase(sql: Sql, base: string, tenantId?: string): Promise<boolean> {
  if (base === DEFAULT_LINK_BASE) return true;
  const [row] = await sql<{ known: boolean }[]>`
    select exists (select 1 from native_apps where enabled and rtrim(tenant_path, '/') = ${base}
                   ${tenantId ? sql`and tenant_id = ${tenantId}` : sql``}) as known`;
  return row?.known ?? false;
}
