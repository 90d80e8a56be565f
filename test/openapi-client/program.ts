// A client program as a user of the API would write it: types generated from the server's own /openapi.json by
// openapi-typescript (into ./api.d.ts, not committed: test/http/openapi-client.test.ts writes it), requests by
// openapi-fetch. That test typechecks this file with tsc (tsconfig.json next to it) and then runs it against a
// running server, so a document that types the answers wrongly fails either the typecheck or the run.
import createClient from 'openapi-fetch';
import type { components, paths, webhooks } from './api.js';

type Schemas = components['schemas'];

export interface Seen {
  flow: Schemas['Flow'];
  applicant: Schemas['Applicant'];
  fetched: Schemas['Flow'];
  /** a flow's documents are Document objects (issue 32 item 13: they were maps of unknown) */
  documents: Schemas['Document'][];
  checks: Schemas['Check'][];
  missingCode: string;
  missingStatus: number;
  endpoint: Schemas['WebhookEndpointWithSecret'];
  redacted: Schemas['RedactedFlow'];
  redactedType: string | null;
}

/** A webhook receiver's handler, typed from the `webhooks` section. */
export function onFlowCompleted(
  event: NonNullable<webhooks['flow.completed']['post']['requestBody']>['content']['application/json'],
): string {
  const data: Schemas['FlowEventData'] = event.data;
  return `${event.type} ${data.flow_id} ${data.status}`;
}

export async function run(
  baseUrl: string,
  keys: { secret: string; publishable: string; origin: string },
): Promise<Seen> {
  // a secret key gets the flow itself: one media type, so `data` is typed Flow (not Flow | RedactedFlow)
  const api = createClient<paths, 'application/json'>({
    baseUrl,
    headers: { authorization: `Bearer ${keys.secret}` },
  });
  const created = await api.POST('/v1/flows', {
    body: {
      mode: 'sync',
      applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore', external_id: 'client-1' },
    },
  });
  if (!created.data)
    throw new Error(`createFlow: ${created.response.status} ${JSON.stringify(created.error)}`);
  const flow: Schemas['Flow'] = created.data;

  const applicant = await api.GET('/v1/applicants/{applicant_id}', {
    params: { path: { applicant_id: flow.applicant_id } },
  });
  if (!applicant.data) throw new Error(`getApplicant: ${applicant.response.status}`);

  const fetched = await api.GET('/v1/flows/{flow_id}', { params: { path: { flow_id: flow.id } } });
  if (!fetched.data) throw new Error(`getFlow: ${fetched.response.status}`);

  const checks = await api.GET('/v1/checks', { params: { query: { flow_id: flow.id, limit: 10 } } });
  if (!checks.data) throw new Error(`listChecks: ${checks.response.status}`);

  // a documented error: its body is typed too
  const missing = await api.GET('/v1/flows/{flow_id}', {
    params: { path: { flow_id: '00000000-0000-4000-8000-000000000000' } },
  });
  if (!missing.error) throw new Error('getFlow of an unknown id answered data');
  const code: string = missing.error.error.code;

  // the signing secret is a string on create (never null); reads carry `signing_secret: null`, a property that
  // openapi-fetch's Readable<> drops from their type
  const endpoint = await api.POST('/v1/webhook_endpoints', {
    body: { url: 'https://hooks.example/veriscreen', events: ['flow.completed'] },
  });
  if (!endpoint.data) throw new Error(`createWebhookEndpoint: ${endpoint.response.status}`);
  const secret: string = endpoint.data.signing_secret;

  // a publishable key gets the redacted flow, under its own media type
  const browser = createClient<paths, 'application/vnd.veriscreen.redacted-flow+json'>({
    baseUrl,
    headers: { authorization: `Bearer ${keys.publishable}`, origin: keys.origin },
  });
  const redacted = await browser.POST('/v1/flows', {
    body: { mode: 'sync', applicant: { legal_name_first: 'Anna', legal_name_last: 'Client' } },
  });
  if (!redacted.data) throw new Error(`createFlow (publishable): ${redacted.response.status}`);

  return {
    flow,
    applicant: applicant.data,
    fetched: fetched.data,
    documents: (fetched.data.documents ?? []).map((d) => ({ ...d, upload_status: d.upload_status })),
    checks: checks.data.items,
    missingCode: code,
    missingStatus: missing.response.status,
    endpoint: { ...endpoint.data, signing_secret: secret },
    redacted: redacted.data,
    redactedType: redacted.response.headers.get('content-type'),
  };
}
