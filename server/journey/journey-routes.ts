import { type TSchema, Type } from '@sinclair/typebox';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { FlowParams } from '../../schemas/flows.js';
import {
  ApplicantSessionCreated,
  ApplicantSessionCreateIn,
  ApplicantSessionView,
  ConsentIn,
  FunnelOut,
  FunnelQuery,
  HandoffCreated,
  IntakeIn,
  LinkTokenParams,
  VerificationLink,
  VerificationLinkCreateIn,
  VerificationLinkListOut,
  VerificationLinkParams,
} from '../../schemas/journey.js';
import { applicantCookie } from '../auth/applicant-sessions.js';
import type { ApplicantPrincipal, Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import { type Reply, type RequestInfo, route } from '../http/router.js';
import { compileValidator, type Validator } from '../http/validation.js';
import { verificationFunnel } from './funnel.js';
import {
  DEFAULT_LINK_BASE,
  embedPageUrl,
  isLinkBase,
  listLinks,
  mintLink,
  openLink,
  revoke,
} from './link-service.js';
import {
  cancel,
  giveConsent,
  giveIntake,
  handoff,
  intakeAsked,
  type JourneyDeps,
  submit,
  viewOf,
} from './session-service.js';

export const JOURNEY_TAG = 'journey';

const E403 = { description: 'Credential or role not allowed', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };
const E409Collecting = {
  description: '`flow_not_collecting`: the flow is past collecting input (or its template asks for none)',
  schema: ErrorEnvelope,
};
const E422 = { description: 'Validation error naming each offending field', schema: ValidationFailure };

/** The applicant principal of an applicant-only route (the HTTP layer admitted nothing else). */
const applicant = (p: Principal): ApplicantPrincipal => {
  if (p.kind !== 'applicant') throw new ApiError('unauthorized');
  return p;
};

/** A verification link path: `<base>/<22-character token>`, `base` being /verify or a tenant's tenant_path. */
const LINK_PATH = /^(\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-])\/([A-Za-z0-9_-]{22})\/?$/;
export const matchLinkPath = (path: string): Record<string, string> | undefined => {
  const m = LINK_PATH.exec(path);
  return m?.[1] && m[2] ? { base: m[1], token: m[2] } : undefined;
};

const seeOther = (location: string, headers: Record<string, string> = {}): Reply => ({
  status: 303,
  // the link holds a credential: never cached, never sent on as a referrer
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers },
});

/** The hosted page as the answer to an opened link, framed only by the allowed origins of the session's tenant. */
export type OpenedPage = (tenantId: string) => Promise<Reply>;

/** Opening a link in a browser: the session cookie with the page itself (not a redirect to it: one round trip less
 * on a phone's network; the page then shows `/applicant/` as its address, so a reload resumes the session rather
 * than reopening a used link), or a redirect to the page's link-invalid step. A HEAD (a link preview) never uses
 * the link up. */
async function exchange(deps: JourneyDeps, page: OpenedPage, token: string, base: string, req: RequestInfo) {
  if (req.method === 'HEAD') return seeOther('/applicant/');
  const opened = await openLink(deps, token, 'cookie', base, req.request_id);
  if (!opened.ok) return seeOther(`/applicant/?link=${opened.reason}`);
  const cookie = applicantCookie(opened.token, deps.maxSeconds, deps.secureCookie);
  const reply = await page(opened.session.tenant_id);
  return { ...reply, headers: { ...reply.headers, 'set-cookie': cookie } };
}

/** A link opened from a mail or a chat may come with tracking parameters (utm_…): they are ignored, not refused. */
const AnyQuery = Type.Record(Type.String(), Type.String());

const OpenLinkDoc = {
  method: 'GET' as const,
  query: AnyQuery,
  operationId: 'openVerificationLink',
  tag: JOURNEY_TAG,
  auth: 'none' as const,
  responses: {
    200: {
      description:
        'The hosted page (text/html) with the `vs_applicant` session cookie (HttpOnly, Secure, SameSite=Lax); the ' +
        'page then shows `/applicant/` as its address',
    },
    303: {
      description:
        'A used, expired, revoked or unknown link: to `/applicant/?link=used|expired|revoked|unknown`, without a ' +
        'cookie; a HEAD (a link preview): to `/applicant/`, the link not used',
    },
    404: E404,
  },
};

export function linkRoutes(deps: JourneyDeps, page: OpenedPage) {
  const { sql } = deps;
  return [
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/verification_links',
      operationId: 'createVerificationLink',
      summary: "A one-time link that takes the flow's applicant through the hosted page (or a native app)",
      tag: JOURNEY_TAG,
      auth: 'secret',
      params: FlowParams,
      body: VerificationLinkCreateIn,
      responses: {
        201: { description: 'The link: the only answer that carries its url', schema: VerificationLink },
        403: E403,
        404: E404,
        409: E409Collecting,
        422: E422,
      },
      handler: async ({ params, body, tenant, req }) => ({
        status: 201,
        body: await mintLink(deps, tenant, params.flow_id, body, req.headers.host),
        headers: { 'cache-control': 'no-store' },
      }),
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}/verification_links',
      operationId: 'listVerificationLinks',
      summary: "A flow's verification and hand-off links, newest first (url null: tokens are stored hashed)",
      tag: JOURNEY_TAG,
      auth: 'secret',
      params: FlowParams,
      responses: { 200: { description: 'Links', schema: VerificationLinkListOut }, 403: E403, 404: E404 },
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: { items: await listLinks(sql, tenant.tenant_id, params.flow_id) },
      }),
    }),
    route({
      method: 'DELETE',
      path: '/v1/flows/{flow_id}/verification_links/{link_id}',
      operationId: 'revokeVerificationLink',
      summary: 'Revoke a link: it opens nothing any more, and every session it opened ends',
      tag: JOURNEY_TAG,
      auth: 'secret',
      params: VerificationLinkParams,
      responses: { 200: { description: 'The revoked link', schema: VerificationLink }, 403: E403, 404: E404 },
      handler: async ({ params, tenant }) => ({
        status: 200,
        body: await revoke(sql, tenant.tenant_id, params.flow_id, params.link_id),
      }),
    }),
    route({
      ...OpenLinkDoc,
      path: `${DEFAULT_LINK_BASE}/{token}`,
      summary:
        "Open a verification link (also under a native app's tenant_path, `<tenant_path>/{token}`): one-time, " +
        "sets the applicant's session cookie",
      params: LinkTokenParams,
      handler: ({ params, req }) => exchange(deps, page, params.token, DEFAULT_LINK_BASE, req),
    }),
    route({
      method: 'POST',
      path: '/v1/applicant_sessions',
      operationId: 'createApplicantSession',
      summary:
        "Exchange a verification link's token for a bearer applicant session (native apps, own front ends)",
      tag: JOURNEY_TAG,
      auth: 'none',
      body: ApplicantSessionCreateIn,
      responses: {
        201: {
          description: 'The session: same scope and lifetime as the cookie',
          schema: ApplicantSessionCreated,
        },
        410: {
          description: '`link_unusable`: details.reason used, expired, revoked or unknown',
          schema: ErrorEnvelope,
        },
        422: E422,
      },
      handler: async ({ body, req }) => {
        const opened = await openLink(deps, body.token, 'bearer', DEFAULT_LINK_BASE, req.request_id);
        if (!opened.ok) throw new ApiError('link_unusable', { details: { reason: opened.reason } });
        const s = opened.session;
        return {
          status: 201,
          audited: true,
          headers: { 'cache-control': 'no-store' },
          body: {
            access_token: opened.token,
            token_type: 'Bearer',
            flow_id: s.flow_id,
            purpose: s.purpose,
            expires_at: s.expires_at.toISOString(),
            idle_timeout_seconds: deps.idleSeconds,
            page_url: embedPageUrl(deps, req.headers.host, s.id, opened.token),
          },
        };
      },
    }),
  ];
}

/** `<tenant_path>/{token}`: the same exchange under a native app's path (a fallback of the router, see Router). */
export function linkPathFallback(deps: JourneyDeps, page: OpenedPage) {
  return route({
    ...OpenLinkDoc,
    path: '/{base}/{token}',
    summary: "Open a verification link under a native app's tenant_path",
    params: Type.Object({ base: Type.String(), token: Type.String() }),
    handler: async ({ params, req }) => {
      if (!(await isLinkBase(deps.sql, params.base))) {
        throw new ApiError('not_found', { message: `No route for ${req.method} ${req.path}` });
      }
      return exchange(deps, page, params.token, params.base, req);
    },
  });
}

const ViewOk = { description: 'The session as the applicant sees it', schema: ApplicantSessionView };

const FUNNEL_DAYS = 30;

export function funnelRoutes(deps: Pick<JourneyDeps, 'sql'>) {
  return [
    route({
      method: 'GET',
      path: '/v1/verification_funnel',
      operationId: 'getVerificationFunnel',
      summary: 'Per template, in flows: given a link, opened, reaching each step, submitted, decided',
      tag: JOURNEY_TAG,
      auth: 'secret',
      query: FunnelQuery,
      responses: { 200: { description: 'The funnel', schema: FunnelOut }, 403: E403, 422: E422 },
      handler: async ({ query, tenant }) => {
        const since = query.since ? new Date(query.since) : new Date(Date.now() - FUNNEL_DAYS * 86_400_000);
        const items = await verificationFunnel(deps.sql, tenant.tenant_id, {
          template_id: query.template_id,
          since,
        });
        return { status: 200, body: { since: since.toISOString(), items } };
      },
    }),
  ];
}

export function applicantSessionRoutes(deps: JourneyDeps) {
  const op = <T>(o: T) => ({ ...o, tag: JOURNEY_TAG, auth: 'applicant' as const });
  return [
    route({
      ...op({ method: 'GET' as const, operationId: 'getApplicantSession' }),
      path: '/v1/applicant_session',
      summary:
        "The session's steps, what is missing and a redacted status (never checks, evidence or a decision)",
      responses: { 200: ViewOk },
      handler: async ({ principal }) => ({
        status: 200,
        body: await viewOf(deps, applicant(principal)),
        headers: NO_STORE,
      }),
    }),
    route({
      ...op({ method: 'POST' as const, operationId: 'giveApplicantConsent' }),
      path: '/v1/applicant_session/consent',
      summary: "The applicant's consent (biometric, the privacy notice's version)",
      body: ConsentIn,
      responses: { 200: ViewOk, 409: E409Collecting, 422: E422 },
      handler: async ({ principal, body, req }) => ({
        status: 200,
        audited: true,
        headers: NO_STORE,
        body: await giveConsent(deps, applicant(principal), body, req.request_id),
      }),
    }),
    route({
      ...op({ method: 'PUT' as const, operationId: 'putApplicantIntake' }),
      path: '/v1/applicant_session/intake',
      summary: "The template's intake fields, by the applicant field rules (every bad field in one 422)",
      body: IntakeIn,
      bodyCheckedByHandler: true,
      responses: { 200: ViewOk, 409: E409Collecting, 422: E422 },
      handler: async ({ principal, body, req }) => {
        const p = applicant(principal);
        const { asked, required } = await intakeAsked(deps, p);
        intakeValidator(asked, required)(body);
        return {
          status: 200,
          audited: true,
          headers: NO_STORE,
          body: await giveIntake(deps, p, body as IntakeIn, req.request_id),
        };
      },
    }),
    route({
      ...op({ method: 'POST' as const, operationId: 'createApplicantHandoff' }),
      path: '/v1/applicant_session/handoff',
      summary: 'A second one-time link (15 minutes) that opens an upload-only session on another device',
      responses: { 201: { description: 'The hand-off link', schema: HandoffCreated }, 409: E409Collecting },
      handler: async ({ principal, req }) => ({
        status: 201,
        headers: NO_STORE,
        body: await handoff(deps, applicant(principal), req.headers.host),
      }),
    }),
    route({
      ...op({ method: 'POST' as const, operationId: 'submitApplicantSession' }),
      path: '/v1/applicant_session/submit',
      summary: 'Submit once every input is there: the flow is processed next',
      responses: {
        202: ViewOk,
        409: {
          description: '`inputs_missing` (details.missing) or `flow_not_collecting`',
          schema: ErrorEnvelope,
        },
      },
      handler: async ({ principal }) => ({
        status: 202,
        headers: NO_STORE,
        body: await submit(deps, applicant(principal)),
      }),
    }),
    route({
      ...op({ method: 'POST' as const, operationId: 'cancelApplicantSession' }),
      path: '/v1/applicant_session/cancel',
      summary: 'End this session (the flow stays open: a new link can resume it)',
      responses: { 204: { description: 'Ended (the cookie is cleared)' } },
      handler: async ({ principal }) => {
        const p = applicant(principal);
        await cancel(deps, p);
        const headers: Record<string, string> = { ...NO_STORE };
        if (p.transport === 'cookie') headers['set-cookie'] = applicantCookie('', 0, deps.secureCookie);
        return { status: 204, headers };
      },
    }),
  ];
}

const NO_STORE = { 'cache-control': 'no-store' };

/** One validator per (fields asked, fields still required): the applicant field rules of ApplicantIn narrowed to the
 * template's intake, so that every bad, unasked or missing field comes in one 422. */
const intakeValidators = new Map<string, Validator>();
function intakeValidator(asked: string[], required: string[]): Validator {
  const key = `${asked.join(',')}|${required.join(',')}`;
  let v = intakeValidators.get(key);
  if (!v) {
    const props: Record<string, TSchema> = IntakeIn.properties;
    const schema = Type.Object(Object.fromEntries(asked.map((n) => [n, props[n] ?? Type.Never()])), {
      additionalProperties: false,
    });
    v = compileValidator({ ...schema, required }, 'body');
    if (intakeValidators.size > 1000) intakeValidators.clear();
    intakeValidators.set(key, v);
  }
  return v;
}
