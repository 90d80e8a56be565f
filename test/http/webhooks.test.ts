import { createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { republishStranded } from '../../server/webhooks/outbox-relay.js';
import {
  call,
  createTenant,
  DEMO_SOURCE,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';
import { type Received, Receiver } from '../helpers/webhook-receiver.js';

function verify(header: string, raw: string, secret: string): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && v === expected);
}

describe('webhook endpoints and signed deliveries', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  const versions: string[] = [];
  let flip = 0;

  /** Each promotion writes one dataset_version.promoted event to the outbox. */
  async function emitEvent(): Promise<void> {
    const id = versions[flip++ % 2] as string;
    const r = await call(t.url, 'POST', `/admin/dataset_versions/${id}/promote`, { admin: t.adminToken });
    expect(r.status).toBe(200);
  }

  beforeAll(async () => {
    t = await startTestApp({
      sources: null,
      env: { WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.2,0.2', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    tenant = await createTenant(t);
    other = await createTenant(t, { name: 'Other' });
    for (const name of ['a', 'b']) {
      const v = await call<{ id: string }>(t.url, 'POST', '/admin/dataset_versions', {
        admin: t.adminToken,
        body: { name, sources: [{ format: 'ofac_sdn_csv', uri: pathToFileURL(DEMO_SOURCE.uri).toString() }] },
      });
      versions.push(v.body.id);
      await waitFor('build', async () => {
        const g = await call<{ status: string }>(t.url, 'GET', `/admin/dataset_versions/${v.body.id}`, {
          admin: t.adminToken,
        });
        return g.body.status === 'ready' ? true : undefined;
      });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('validates url and events, shows the secret only on create, and hides endpoints from other tenants', async () => {
    const badUrl = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url: 'ftp://example.test/x', events: ['flow.created'] },
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'url'] })]);
    const badEvent = await call(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url: 'https://example.test/x', events: ['flow.exploded'] },
    });
    expect(badEvent.status).toBe(422);
    expect(badEvent.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'events', 0] })]);

    const created = await call<{ id: string; signing_secret: string; enabled: boolean }>(
      t.url,
      'POST',
      '/v1/webhook_endpoints',
      {
        token: tenant.secret_key,
        body: { url: 'https://example.test/hook', events: ['flow.created', 'flow.decided'] },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    expect(created.body.enabled).toBe(true);
    const got = await call(t.url, 'GET', `/v1/webhook_endpoints/${created.body.id}`, {
      token: tenant.secret_key,
    });
    expect(got.body.signing_secret).toBeNull();
    const stored = await t.app.sql`select secret_sealed from webhook_endpoints where id = ${created.body.id}`;
    expect(JSON.stringify(stored)).not.toContain(created.body.signing_secret);

    const patched = await call(t.url, 'PATCH', `/v1/webhook_endpoints/${created.body.id}`, {
      token: tenant.secret_key,
      body: { events: ['flow.completed'], url: null, enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ['flow.completed'],
      url: 'https://example.test/hook',
      enabled: false,
    });

    expect(
      (await call(t.url, 'GET', `/v1/webhook_endpoints/${created.body.id}`, { token: other.secret_key }))
        .status,
    ).toBe(404);
    expect(
      (await call(t.url, 'DELETE', `/v1/webhook_endpoints/${created.body.id}`, { token: other.secret_key }))
        .status,
    ).toBe(404);
    expect(
      (await call(t.url, 'DELETE', `/v1/webhook_endpoints/${created.body.id}`, { token: tenant.secret_key }))
        .status,
    ).toBe(204);
    expect(
      (await call(t.url, 'GET', `/v1/webhook_endpoints/${created.body.id}`, { token: tenant.secret_key }))
        .status,
    ).toBe(404);
  });

  it('delivers a thin signed event that the receiver verifies; a 500-then-200 receiver gets the same event id again', async () => {
    const rx = await new Receiver().start();
    try {
      rx.statuses = [500, 200];
      const ep = await call<{ id: string; signing_secret: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url: rx.url, events: ['dataset_version.promoted'] },
      });
      await emitEvent();
      await waitFor('two attempts', () => (rx.got.length >= 2 ? true : undefined));
      const [first, second] = rx.got as [Received, Received];
      expect(first.body.id).toBe(second.body.id);
      expect(second.body.type).toBe('dataset_version.promoted');
      expect(Object.keys(second.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(second.body.data).toHaveProperty('dataset_version_id');
      for (const r of rx.got) {
        expect(verify(String(r.headers['veriscreen-signature']), r.raw, ep.body.signing_secret)).toBe(true);
        expect(verify(String(r.headers['veriscreen-signature']), r.raw, 'whsec_wrong')).toBe(false);
      }
      const log = await waitFor('delivery log to show success', async () => {
        const l = await call<{ items: { status: string; attempts: number; event_id: string }[] }>(
          t.url,
          'GET',
          `/v1/webhook_endpoints/${ep.body.id}/deliveries`,
          { token: tenant.secret_key },
        );
        return l.body.items[0]?.status === 'succeeded' ? l.body.items : undefined;
      });
      expect(log[0]).toMatchObject({ attempts: 2, event_id: first.body.id });

      // manual redelivery sends the same event again
      const deliveryId = (
        await t.app.sql`select id from webhook_deliveries where endpoint_id = ${ep.body.id}`
      )[0]?.id as string;
      const again = await call(
        t.url,
        'POST',
        `/v1/webhook_endpoints/${ep.body.id}/deliveries/${deliveryId}/redeliver`,
        {
          token: tenant.secret_key,
        },
      );
      expect(again.status).toBe(202);
      await waitFor('redelivery', () => (rx.got.length >= 3 ? true : undefined));
      expect(rx.got[2]?.body.id).toBe(first.body.id);
      await call(t.url, 'DELETE', `/v1/webhook_endpoints/${ep.body.id}`, { token: tenant.secret_key });
    } finally {
      await rx.stop();
    }
  });

  it('signs with both secrets after a rotation', async () => {
    const rx = await new Receiver().start();
    try {
      const ep = await call<{ id: string; signing_secret: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url: rx.url, events: ['dataset_version.promoted'] },
      });
      const rotated = await call<{ signing_secret: string }>(
        t.url,
        'POST',
        `/v1/webhook_endpoints/${ep.body.id}/rotate_secret`,
        {
          token: tenant.secret_key,
        },
      );
      expect(rotated.status).toBe(200);
      expect(rotated.body.signing_secret).not.toBe(ep.body.signing_secret);
      await emitEvent();
      const r = await waitFor('delivery', () => rx.got[0]);
      const header = String(r.headers['veriscreen-signature']);
      expect(header.match(/v1=/g)).toHaveLength(2);
      expect(verify(header, r.raw, ep.body.signing_secret)).toBe(true);
      expect(verify(header, r.raw, rotated.body.signing_secret)).toBe(true);
      await call(t.url, 'DELETE', `/v1/webhook_endpoints/${ep.body.id}`, { token: tenant.secret_key });
    } finally {
      await rx.stop();
    }
  });

  it('disables an endpoint whose receiver fails for the whole retry schedule', async () => {
    const rx = await new Receiver().start();
    try {
      rx.statuses = [503];
      const ep = await call<{ id: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url: rx.url, events: ['dataset_version.promoted'] },
      });
      await emitEvent();
      const disabled = await waitFor('auto-disable', async () => {
        const g = await call<{ enabled: boolean; disabled_reason: string | null }>(
          t.url,
          'GET',
          `/v1/webhook_endpoints/${ep.body.id}`,
          {
            token: tenant.secret_key,
          },
        );
        return g.body.enabled ? undefined : g.body;
      });
      expect(disabled.disabled_reason).toMatch(/retry schedule/);
      expect(rx.got).toHaveLength(4); // first try + 3 retries
      const [d] = await t.app
        .sql`select status, attempts from webhook_deliveries where endpoint_id = ${ep.body.id}`;
      expect(d).toMatchObject({ status: 'failed', attempts: 4 });
      // re-enabling resets the failure count
      const re = await call(t.url, 'PATCH', `/v1/webhook_endpoints/${ep.body.id}`, {
        token: tenant.secret_key,
        body: { enabled: true },
      });
      expect(re.body).toMatchObject({ enabled: true, disabled_reason: null });
    } finally {
      await rx.stop();
    }
  });
});

describe('webhook delivery after a crash between commit and publish', () => {
  it('publishes a stranded delivery on a later relay pass, exactly once', async () => {
    const t = await startTestApp({ sources: null });
    const rx = await new Receiver().start();
    try {
      const tenant = await createTenant(t);
      const ep = await call<{ id: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url: rx.url, events: ['flow.created'] },
      });
      // what a relay leaves behind when it dies after committing: a delivered outbox row, an unpublished delivery
      const [ev] = await t.app.sql<{ id: string }[]>`
        insert into outbox_rows (tenant_id, type, resource_id, payload, delivered_at)
        values (${tenant.id}, 'flow.created', gen_random_uuid(), ${t.app.sql.json({ flow_id: 'f-1', status: 'PENDING' })}, now())
        returning id`;
      await t.app.sql`
        insert into webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, created_at)
        values (${tenant.id}, ${ep.body.id}, ${ev?.id as string}, 'flow.created', now() - interval '1 minute')`;
      expect(await republishStranded(t.app.sql, t.app.bus)).toBe(1);
      expect(await republishStranded(t.app.sql, t.app.bus)).toBe(0);
      const got = await waitFor('delivery', () => rx.got[0]);
      expect(got.body).toMatchObject({
        id: ev?.id,
        type: 'flow.created',
        data: { flow_id: 'f-1', status: 'PENDING' },
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.got).toHaveLength(1);
    } finally {
      await rx.stop();
      await t.close();
    }
  });
});

describe('webhook targets in production mode', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ sources: null, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses loopback, private and link-local URLs', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
    ]) {
      const r = await call(t.url, 'POST', '/v1/webhook_endpoints', {
        token: tenant.secret_key,
        body: { url, events: ['flow.created'] },
      });
      expect(r.status, url).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'url'], type: 'url_not_allowed' }),
      ]);
    }
  });
});
