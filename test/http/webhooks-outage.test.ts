import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

function pgBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const v = readdirSync(base)
    .filter((d) => existsSync(join(base, d, 'bin', 'pg_ctl')))
    .sort((x, y) => Number(y) - Number(x))[0];
  return v ? join(base, v, 'bin') : undefined;
}

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** A private PostgreSQL cluster this test may stop and start; the machine's shared one is never touched. */
class PrivatePostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly bin: string,
  ) {}
  static async create(): Promise<PrivatePostgres> {
    const bin = process.env.PG_BIN_DIR ?? pgBinDir();
    if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN_DIR)');
    const dir = await mkdtemp(join(tmpdir(), 'vs-pg-'));
    if (process.getuid?.() === 0) {
      const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
      await chown(dir, uid, gid);
    }
    const p = new PrivatePostgres(await freePort(), dir, bin);
    await p.pg('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await p.start();
    return p;
  }
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }
  private async pg(tool: string, args: string[]): Promise<void> {
    const bin = join(this.bin, tool);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
    else await run(bin, args);
  }
  async start(): Promise<void> {
    const o = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
    await this.pg('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-o',
      o,
      '-l',
      join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }
  async stop(): Promise<void> {
    await this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => {});
  }
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

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
