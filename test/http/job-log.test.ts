import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

// everything the app logs, at debug
const { log, lines } = captureLogs();

let t: TestApp;
let acme: Tenant;
let receiver: Server;
let receiverUrl = '';
let received = 0;

beforeAll(async () => {
  // a webhook receiver that always fails: every delivery job fails, retries, then gives up
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await startTestApp({ log, env: { WEBHOOK_RETRY_SCHEDULE_S: '0.1,0.1', WEBHOOK_TIMEOUT_MS: '2000' } });
  acme = await createTenant(t, { name: 'Acme' });
  const tpl = await call(t.url, 'POST', '/v1/flow_templates', {
    token: acme.secret_key,
    body: { slug: 'aml', name: 'AML', required_checks: ['aml_screen'] },
  });
  expect(tpl.status).toBe(201);
  const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
    token: acme.secret_key,
    body: { url: receiverUrl, events: ['flow.completed'] },
  });
  expect(ep.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

describe('job log lines', () => {
  it('carry the job kind, its ids, the tenant and the id of the request that caused them, through a failing webhook delivery', async () => {
    const created = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { template_slug: 'aml', applicant: { legal_name_first: 'Jane', legal_name_last: 'Smith' } },
      headers: { 'x-request-id': 'jlog-create' },
    });
    expect(created.status).toBe(201);
    const flowId = created.body.id;
    const processed = await call(t.url, 'POST', `/v1/flows/${flowId}/process`, {
      token: acme.secret_key,
      headers: { 'x-request-id': 'jlog-process' },
    });
    expect(processed.status).toBe(202);

    // the flow job succeeds; its flow.completed event is delivered to a receiver that always fails
    const [delivery] = await waitFor('the delivery to give up', async () => {
      const rows = await t.app.sql<{ id: string; status: string }[]>`
        select d.id, d.status from webhook_deliveries d join outbox_events o on o.id = d.event_id
        where o.resource_id = ${flowId} and o.type = 'flow.completed'`;
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    const deliveryId = (delivery as { id: string }).id;
    expect(received).toBeGreaterThanOrEqual(3);
    // the flow job was done before its event was relayed
    // (a loaded machine may redeliver it once, so the attempt number is not asserted; its last line is the success)
    const flowJob = lines().filter((l) => l.kind === 'flow_process' && l.msg === 'job done');
    expect(flowJob).toEqual([
      expect.objectContaining({
        level: 20,
        kind: 'flow_process',
        flow_id: flowId,
        tenant_id: acme.id,
        request_id: 'jlog-process',
        attempt: expect.any(Number),
        job_id: expect.any(String),
        took_ms: expect.any(Number),
      }),
    ]);

    const deliveryLines = lines().filter((l) => l.kind === 'webhook_delivery');
    const failed = deliveryLines.filter((l) => l.msg === 'job failed; will retry');
    expect(failed.map((l) => l.attempt)).toEqual([1, 2]);
    const last = deliveryLines.filter((l) => l.msg === 'job failed for the last time');
    expect(last).toHaveLength(1);
    expect(last[0]).toMatchObject({
      level: 50,
      attempt: 3,
      err: expect.objectContaining({ message: 'HTTP 500' }),
    });
    // every line of the failing job names the delivery, the tenant, the job and the request behind it
    expect(deliveryLines.length).toBeGreaterThanOrEqual(3);
    for (const l of deliveryLines) {
      expect(l).toMatchObject({
        delivery_id: deliveryId,
        tenant_id: acme.id,
        request_id: 'jlog-process',
        job_id: expect.any(String),
        attempt: expect.any(Number),
      });
    }

    // the request itself: its access line, with the same id
    expect(lines().filter((l) => l.msg === 'request' && l.request_id === 'jlog-process')).toEqual([
      expect.objectContaining({ route: '/v1/flows/{flow_id}/process', status: 202, tenant_id: acme.id }),
    ]);
    // no line of any job lacks its kind and job id
    for (const l of lines().filter((x) => typeof x.kind === 'string' && x.msg !== 'request')) {
      expect(l.job_id, JSON.stringify(l)).toEqual(expect.any(String));
    }
  });

  // issue 32 item 14: a flow_process job taken before the transaction that published it commits is retried as
  // expected; it logged a warning on most /process calls, which read like an error
  it('logs a run that has not committed (yet) at debug, never as a warning or an error', async () => {
    const created = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: acme.secret_key,
      body: { template_slug: 'aml', applicant: { legal_name_first: 'Not', legal_name_last: 'Committed' } },
    });
    expect(created.status).toBe(201);
    const flowId = created.body.id;
    // the job of a run that never committed (the flow stays PENDING with process_run 0)
    await t.app.bus.publishJob(
      'flow_process',
      { tenant_id: acme.id, flow_id: flowId, run: 1 },
      `uncommitted-${flowId}`,
    );
    const retried = await waitFor('the job to be retried', async () => {
      const mine = lines().filter((l) => l.kind === 'flow_process' && l.flow_id === flowId);
      return mine.some((l) => l.msg === 'job failed; will retry') ? mine : undefined;
    });
    expect(retried.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(retried.find((l) => l.msg === 'job failed; will retry')).toMatchObject({
      level: 20,
      err: expect.objectContaining({ message: expect.stringContaining('is not committed') }),
    });
  });
});
