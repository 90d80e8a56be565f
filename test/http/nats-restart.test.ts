import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createConnection, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

async function freePort(): Promise<number> {
  const srv = createTcpServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ port, host: '127.0.0.1' }, () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

/** A NATS server of this test's own (the shared one must not be restarted under other test files). */
class PrivateNats {
  private child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}
  async start(): Promise<void> {
    this.child = spawn(NATS_BIN, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.dir], {
      stdio: 'ignore',
    });
    await waitFor('nats to listen', async () => ((await listening(this.port)) ? true : undefined), 20_000);
  }
  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
}

describe.skipIf(!existsSync(NATS_BIN))('no webhook event is lost across a NATS restart', () => {
  let nats: PrivateNats;
  let t: TestApp;
  let tenant: Tenant;
  let receiver: Server;
  const received = new Set<string>();
  let hookUrl = '';

  beforeAll(async () => {
    nats = new PrivateNats(await freePort(), await mkdtemp(join(tmpdir(), 'vs-nats-')));
    await nats.start();
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        received.add((JSON.parse(raw) as { id: string }).id);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    t = await startTestApp({
      env: { NATS_URL: `nats://127.0.0.1:${nats.port}`, WEBHOOK_RETRY_SCHEDULE_S: '1,1,2,2,4,4,8' },
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close().catch(() => {});
    await nats?.stop();
    await new Promise((r) => receiver?.close(r));
    if (nats) await rm(nats.dir, { recursive: true, force: true });
  });

  it('delivers events written before, during and after the outage, each once', async () => {
    const ep = await call<{ id: string }>(t.url, 'POST', '/v1/webhook_endpoints', {
      token: tenant.secret_key,
      body: { url: hookUrl, events: ['flow.created'] },
    });
    expect(ep.status).toBe(201);
    const flow = async (i: number) => {
      const r = await call<{ id: string }>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: `Person${i}`, legal_name_last: 'Restartson' } },
      });
      expect(r.status).toBe(201);
      return r.body.id;
    };
    const eventIds = async () =>
      (await t.app.sql<{ id: string }[]>`select id from outbox_events where type = 'flow.created'`).map(
        (r) => r.id,
      );

    for (let i = 0; i < 3; i++) await flow(i);
    await waitFor('deliveries before the outage', async () => (received.size === 3 ? true : undefined));

    await nats.stop();
    // sync flows keep working without NATS; their events wait in the outbox and delivery tables
    for (let i = 3; i < 8; i++) await flow(i);
    await new Promise((r) => setTimeout(r, 1500));
    await nats.start();
    for (let i = 8; i < 10; i++) await flow(i);

    const expected = await eventIds();
    expect(expected).toHaveLength(10);
    await waitFor(
      'every event delivered after the restart',
      async () => (received.size === 10 ? true : undefined),
      90_000,
    );
    expect([...received].sort()).toEqual([...expected].sort());
    // the worker records success just after the receiver answers: wait for the log to catch up
    const d = await waitFor('every delivery recorded as succeeded', async () => {
      const [row] = await t.app.sql<{ n: string; ok: string }[]>`
        select count(*) as n, count(*) filter (where status = 'succeeded') as ok from webhook_deliveries`;
      return row?.ok === '10' ? row : undefined;
    });
    expect(d).toEqual({ n: '10', ok: '10' });
  });
});
