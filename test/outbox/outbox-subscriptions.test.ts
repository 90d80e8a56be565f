// Every event is written to the outbox; one that no enabled endpoint subscribes to (the tenant's, or any for a global
// event) is written already relayed, so the relay never claims or updates it, and one that an endpoint subscribes to
// is delivered as before.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCatalogueEvents } from '../helpers/events.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface EventRow {
  type: string;
  delivered: boolean;
  deliveries: number;
}

describe('outbox rows by subscription', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let receiver: Server;
  let hookUrl = '';
  const got: { type: string; data: { flow_id?: string } }[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t, { name: 'Other' });
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        got.push(JSON.parse(raw) as (typeof got)[number]);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => receiver?.close(r));
  });

  async function syncFlow(): Promise<string> {
    const r = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
    });
    expect(r.status).toBe(201);
    return r.body.id;
  }

  /** The flow's events and its checks' and alerts' (the resources it created), with their relay state. */
  function eventsOf(flowId: string): Promise<EventRow[]> {
    return t.app.sql<EventRow[]>`
      select o.type, o.delivered_at is not null as delivered,
             (select count(*)::int from webhook_deliveries d where d.event_id = o.id) as deliveries
      from outbox_events o
      where o.resource_id = ${flowId}
         or o.resource_id in (select id from checks where flow_id = ${flowId})
         or o.resource_id in (select id from alerts where flow_id = ${flowId})
      order by o.seq`;
  }

  /** Where a flow's events are stored (migration 021): the types in its one outbox_sets row, and in outbox_rows. */
  async function storageOf(flowId: string): Promise<{ sets: string[][]; rows: string[] }> {
    const sets = await t.app.sql<{ types: string[] }[]>`
      select array(select e ->> 'type' from jsonb_array_elements(s.events) e) as types
      from outbox_sets s where s.flow_id = ${flowId}`;
    const rows = await t.app.sql<{ type: string }[]>`
      select o.type from outbox_rows o
      where o.resource_id = ${flowId}
         or o.resource_id in (select id from checks where flow_id = ${flowId})
         or o.resource_id in (select id from alerts where flow_id = ${flowId})
      order by o.seq`;
    return { sets: sets.map((s) => s.types), rows: rows.map((r) => r.type) };
  }

  it('writes every event of a flow, already relayed, when no endpoint of the tenant subscribes', async () => {
    // another tenant's endpoint hears everything: it does not make this tenant's events wait for the relay
    const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: other.secret_key,
      body: { url: hookUrl, events: ['flow.created', 'flow.completed', 'check.completed', 'alert.created'] },
    });
    expect(ep.status).toBe(201);
    const flowId = await syncFlow();
    const rows = await eventsOf(flowId);
    expect(rows.map((r) => r.type)).toEqual(
      expect.arrayContaining([
        'flow.created',
        'check.completed',
        'alert.created',
        'flow.completed',
        'flow.decided',
      ]),
    );
    expect(rows.every((r) => r.delivered && r.deliveries === 0)).toBe(true);
    // all of them in one row, each event with its own id, in the order they were built
    expect(await storageOf(flowId)).toEqual({ sets: [rows.map((r) => r.type)], rows: [] });
    const ids = await t.app.sql<{ id: string; seq: string }[]>`
      select id, seq from outbox_events where resource_id = ${flowId} order by seq`;
    expect(ids.map((r) => r.id)).toEqual([...new Set(ids.map((r) => r.id))]);
    expect(rows[0]?.type).toBe('flow.created');
    await expectCatalogueEvents(t.app.sql);
  });

  it("stores a payload equal to an earlier event's of the flow once, and reads every event with its payload", async () => {
    const flowId = await syncFlow();
    const [stored] = await t.app.sql<{ events: { type: string; payload?: unknown; p?: number }[] }[]>`
      select events from outbox_sets where flow_id = ${flowId}`;
    const events = stored?.events ?? [];
    const created = events.findIndex((e) => e.type === 'flow.created');
    expect(
      events.filter((e) => e.type.startsWith('flow.')).map((e) => [e.type, e.payload === undefined, e.p]),
    ).toEqual([
      ['flow.created', false, undefined],
      ['flow.completed', true, created],
      ['flow.decided', true, created],
    ]);
    const read = await t.app.sql<{ type: string; payload: { flow_id: string; status: string } }[]>`
      select type, payload from outbox_events where resource_id = ${flowId} order by seq`;
    expect(read.map((r) => r.type)).toEqual(['flow.created', 'flow.completed', 'flow.decided']);
    for (const r of read) expect(r.payload).toEqual(events[created]?.payload);
    expect(read[0]?.payload.flow_id).toBe(flowId);
    await expectCatalogueEvents(t.app.sql);
  });

  it('leaves subscribed events to the relay, which delivers them, and writes the others already relayed', async () => {
    const ep = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url: hookUrl, events: ['flow.completed', 'alert.created'] },
    });
    expect(ep.status).toBe(201);
    const flowId = await syncFlow();
    await waitFor('the flow.completed delivery', () =>
      got.some((g) => g.type === 'flow.completed' && g.data.flow_id === flowId),
    );
    await waitFor('the alert.created delivery', () =>
      got.some((g) => g.type === 'alert.created' && g.data.flow_id === flowId),
    );
    const rows = await waitFor('every event relayed', async () => {
      const r = await eventsOf(flowId);
      return r.every((e) => e.delivered) ? r : undefined;
    });
    for (const r of rows) {
      expect({ type: r.type, deliveries: r.deliveries }).toEqual({
        type: r.type,
        deliveries: r.type === 'flow.completed' || r.type === 'alert.created' ? 1 : 0,
      });
    }
    expect(rows.map((r) => r.type)).toEqual(
      expect.arrayContaining(['flow.created', 'check.completed', 'flow.decided']),
    );
    // an endpoint of the tenant hears some of the flow's events: each is a row of its own (the relay's unit)
    expect(await storageOf(flowId)).toEqual({ sets: [], rows: rows.map((r) => r.type) });
  });

  /** Twelve concurrent sync flows, each with its own request id: every event of each keeps its flow's. */
  async function expectRequestIdsOfConcurrentFlows(prefix: string): Promise<void> {
    // concurrent sync flows are written together (group commit, server/flows/flow-store.ts)
    const ids = Array.from({ length: 12 }, (_, i) => `${prefix}-${i}`);
    const flows = await Promise.all(
      ids.map(async (requestId, i) => {
        const r = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
          token: tenant.secret_key,
          headers: { 'x-request-id': requestId },
          body: {
            mode: 'sync',
            applicant:
              i % 2
                ? { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' }
                : { legal_name_last: 'Fennimore' },
          },
        });
        expect(r.status).toBe(201);
        return { requestId, flowId: r.body.id };
      }),
    );
    for (const { requestId, flowId } of flows) {
      const rows = await t.app.sql<{ request_id: string | null }[]>`
        select o.request_id from outbox_events o
        where o.resource_id = ${flowId}
           or o.resource_id in (select id from checks where flow_id = ${flowId})
           or o.resource_id in (select id from alerts where flow_id = ${flowId})`;
      expect(rows.length).toBeGreaterThanOrEqual(4);
      expect(rows.map((r) => r.request_id)).toEqual(rows.map(() => requestId));
    }
  }

  it('keeps on each event the request id of the flow that caused it, when concurrent flows share one statement', async () => {
    // an endpoint of the tenant subscribes (the test above): the events are rows of their own
    await expectRequestIdsOfConcurrentFlows('outbox-req');
  });

  it('writes events already relayed again once the endpoint is disabled', async () => {
    const list = await call<{ items: { id: string }[] }>(t.url, 'GET', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
    });
    for (const e of list.body.items) {
      const p = await call(t.url, 'PATCH', `/v1/webhook_endpoints/${e.id}`, {
        token: tenant.secret_key,
        body: { enabled: false },
      });
      expect(p.status).toBe(200);
    }
    const flowId = await syncFlow();
    const rows = await eventsOf(flowId);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.every((r) => r.delivered && r.deliveries === 0)).toBe(true);
    expect(await storageOf(flowId)).toEqual({ sets: [rows.map((r) => r.type)], rows: [] });
    // in sets too (one a flow, several in one statement)
    await expectRequestIdsOfConcurrentFlows('outbox-set-req');
  });
});
