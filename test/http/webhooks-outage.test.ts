import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivatePostgres } from '../helpers/private-services.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

describe('webhook delivery across a Postgres outage', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let tenant: Tenant;
  const got: { id: string; event_header: string | undefined }[] = [];
  let hold: ((res: ServerResponse) => void) | undefined;
  const held: ServerResponse[] = [];
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      got.push({
        id: (JSON.parse(raw) as { id: string }).id,
        event_header: req.headers['veriscreen-event-id'] as string | undefined,
      });
      if (hold) held.push(res);
      else res.writeHead(200).end('ok');
    });
  });

  beforeAll(async () => {
    pg = await PrivatePostgres.create();
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    t = await startTestApp({
      env: { DATABASE_URL: `${pg.url}/veriscreen`, WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.2,0.2,0.2,0.2' },
    });
    tenant = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await t?.close();
    await pg?.destroy();
  });

  it('delivers an event once when Postgres is down at the moment the receiver answers 2xx', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const ep = await call<{ id: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url, events: ['flow.completed'] },
    });
    expect(ep.status).toBe(201);
    hold = () => {};
    const flow = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Marigold', legal_name_last: 'Fennimore' } },
    });
    expect(flow.status).toBe(201);
    // the receiver has the event; Postgres goes away before the worker can record the 2xx
    await waitFor('the delivery to arrive', () => (held.length === 1 ? true : undefined), 20_000);
    await pg.stop();
    hold = undefined;
    held.shift()?.writeHead(200).end('ok');
    // the worker fails to record the success while Postgres is down; then Postgres comes back
    await new Promise((r) => setTimeout(r, 1500));
    await pg.start();

    const deliveries = await waitFor(
      'the delivery to be recorded as succeeded',
      async () => {
        const r = await call<{ items: { status: string; attempts: number }[] }>(
          t.url,
          'GET',
          `/v1/webhook_endpoints/${ep.body.id}/deliveries`,
          { token: tenant.secret_key },
        ).catch(() => undefined);
        return r?.status === 200 && r.body.items[0]?.status === 'succeeded' ? r.body.items : undefined;
      },
      60_000,
    );
    expect(deliveries).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
    expect(got).toHaveLength(1);
    // were it ever sent again (a process dying before it records the 2xx), it carries the same event id
    expect(got[0]?.event_header).toBe(got[0]?.id);
  }, 120_000);
});
