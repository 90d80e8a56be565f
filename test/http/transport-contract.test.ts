// One contract, two transports: every case here runs against uWebSockets.js (Node 20, where its native binary
// loads) and node:http (every Node; the only one on 22/24), both serving the same request path. A transport passes
// when a client cannot tell which one answered, apart from what docs/decisions/api.md says differs (the exact
// moment a non-reading client's connection is closed).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uwsNativeAvailable } from '../../server/http/transport.js';
import { captureLogs } from '../helpers/log-capture.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

const TRANSPORTS = [
  { choice: 'uws', name: 'uWebSockets.js', available: uwsNativeAvailable() },
  { choice: 'node', name: 'node:http', available: true },
] as const;

it('uses uWebSockets.js only where its native binary exists for this Node', () => {
  // the installed build ships binaries for the Node 16/18/20 ABIs (93, 108, 115) only
  expect(uwsNativeAvailable()).toBe(['93', '108', '115'].includes(process.versions.modules));
});

describe.each(TRANSPORTS)('HTTP contract on $name', ({ choice, name, available }) => {
  let t: TestApp;
  let tenant: Tenant;
  let port: number;
  const logs = captureLogs();
  beforeAll(async () => {
    if (!available) return;
    t = await startTestApp({ env: { HTTP_SERVER: choice }, log: logs.log });
    tenant = await createTenant(t);
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A raw connection: what the server sends back, and whether it closed the connection. */
  function rawConnection(): {
    socket: Socket;
    received: () => string;
    closed: Promise<void>;
    isClosed(): boolean;
  } {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => {});
    const whenClosed = new Promise<void>((r) =>
      socket.once('close', () => {
        closed = true;
        r();
      }),
    );
    return { socket, received: () => text, closed: whenClosed, isClosed: () => closed };
  }
  const authorised = () => ({
    authorization: `Bearer ${tenant.secret_key}`,
    'content-type': 'application/json',
  });

  it.skipIf(!available)(`serves on ${name}, as the start log says`, () => {
    expect(logs.lines().find((l) => l.http_server)).toMatchObject({ msg: `HTTP served by ${name}` });
  });

  it.skipIf(!available)(
    'answers a sync flow as JSON with the request id it was given, or a new one',
    async () => {
      const given = await call<{ status: string }>(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        headers: { 'x-request-id': 'contract-1' },
        body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
      });
      expect(given.status).toBe(201);
      expect(given.headers.get('content-type')).toBe('application/json');
      expect(given.headers.get('x-request-id')).toBe('contract-1');
      expect(given.body.status).toBe('NEEDS_REVIEW');
      const fresh = await call(t.url, 'GET', '/livez');
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it.skipIf(!available)('answers HEAD with the GET status and length and no body', async () => {
    const get = await fetch(`${t.url}/livez`);
    const getBody = await get.text();
    const head = await fetch(`${t.url}/livez`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(getBody));
  });

  it.skipIf(!available)('answers 404 and 405 with Allow, as error envelopes', async () => {
    const missing = await call(t.url, 'GET', '/v1/nothing?x=1');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'not_found' } });
    const wrong = await call(t.url, 'DELETE', '/v1/flows', { token: tenant.secret_key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, GET');
    expect(wrong.body).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it.skipIf(!available)('refuses bad input with the same answers: 422, 415, repeated query', async () => {
    const bad = await call(t.url, 'POST', '/v1/flows', { token: tenant.secret_key, body: { mode: 'nope' } });
    expect(bad.status).toBe(422);
    const text = await call(t.url, 'POST', '/v1/flows', {
      token: tenant.secret_key,
      raw: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const repeated = await call(t.url, 'GET', '/v1/flows?limit=1&limit=2', { token: tenant.secret_key });
    expect(repeated.status).toBe(422);
    const utf8 = await fetch(`${t.url}/v1/flows`, {
      method: 'POST',
      headers: authorised(),
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(utf8.status).toBe(422);
    expect(JSON.stringify(await utf8.json())).toContain('utf8_invalid');
  });

  it.skipIf(!available)(
    'answers 413 for a declared length over the cap, and for a chunked body that outgrows it',
    async () => {
      const declared = await fetch(`${t.url}/v1/flows`, {
        method: 'POST',
        headers: authorised(),
        body: JSON.stringify({ pad: 'x'.repeat(t.app.config.MAX_BODY_BYTES + 1) }),
      });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({
        error: { details: { max_bytes: t.app.config.MAX_BODY_BYTES } },
      });
      const c = rawConnection();
      c.socket.write(
        `POST /v1/flows HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.secret_key}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = 'x'.repeat(256 * 1024);
      for (let sent = 0; sent <= t.app.config.MAX_BODY_BYTES && !c.isClosed(); sent += chunk.length)
        c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      await waitFor('the 413', () => c.received().includes('\r\n\r\n'));
      expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
      c.socket.destroy();
    },
  );

  it.skipIf(!available)(
    'answers an unauthenticated large POST with 401 before its body is sent, and closes',
    async () => {
      const c = rawConnection();
      const declared = 60 * 1024 * 1024; // under the batch route's 64 MiB limit
      c.socket.write(
        `POST /v1/check_batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      c.socket.write(`{"records":[${'{"subjects":[{"name":"x"}]},'.repeat(2000)}`);
      // the rest of the 60 MiB is never sent: the answer must not wait for it
      await waitFor('the 401', () => c.received().includes('\r\n\r\n'));
      expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
      expect(c.received()).toContain('"code":"unauthorized"');
      await c.closed;
    },
  );

  it.skipIf(!available)(
    'leaves a connection refused on a small body usable or closes it, never stuck',
    async () => {
      const c = rawConnection();
      const body = `{"records":[${'{"subjects":[{"name":"x"}]},'.repeat(4000)}{"subjects":[{"name":"x"}]}]}`;
      c.socket.write(
        `POST /v1/check_batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await waitFor('the 401', () => c.received().includes('\r\n\r\n'));
      expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
      if (!c.isClosed()) c.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor(
        'the next answer or the close',
        () => c.isClosed() || /HTTP\/1\.1 200 /.test(c.received()),
      );
      c.socket.destroy();
    },
  );

  it.skipIf(!available)('serves several requests on one kept-alive connection, in order', async () => {
    const c = rawConnection();
    c.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor('two answers', () => (c.received().match(/HTTP\/1\.1 /g) ?? []).length === 2);
    const [first, second] = c.received().split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 404 /);
    expect(c.isClosed()).toBe(false);
    c.socket.destroy();
  });

  it.skipIf(!available)(
    'answers a CORS preflight only for publishable-key routes of a known origin',
    async () => {
      const preflight = (origin: string, path: string) =>
        fetch(`${t.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      const plain = await fetch(`${t.url}/v1/flows`, { method: 'OPTIONS' });
      expect(plain.status).toBe(204);
      expect(plain.headers.get('allow')).toBe('GET, POST, OPTIONS');
      const unknown = await preflight('https://unknown.example', '/v1/flows');
      expect(unknown.status).toBe(403);
      expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
      const secretOnly = await preflight('https://unknown.example', '/v1/check_batches');
      expect(secretOnly.status).toBe(403);
    },
  );

  it.skipIf(!available)(
    'stops serving a connection whose answers are never read, while others are served',
    async () => {
      const c = rawConnection();
      c.socket.pause(); // never read
      // each answer (a 404 naming the path) is ~4 KB: 5,000 of them are far more than the socket buffers hold
      const request = `GET /nothing-${'x'.repeat(4000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
      let sent = 0;
      while (!c.isClosed() && sent < 5_000) {
        if (!c.socket.write(request.repeat(50))) {
          await Promise.race([
            new Promise((r) => c.socket.once('drain', r)),
            c.closed,
            new Promise((r) => setTimeout(r, 200)),
          ]);
        }
        sent += 50;
      }
      await waitFor('the server to close the connection', () => c.isClosed());
      expect((await call(t.url, 'GET', '/livez')).status).toBe(200);
    },
  );
});
