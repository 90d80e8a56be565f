import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 12 item 10: authentication before the body is read, /openapi.json built once, and backpressure for
// connections whose responses are never read.

let t: TestApp;
let tenant: Tenant;
let port: number;
beforeAll(async () => {
  t = await startTestApp({ sources: null });
  tenant = await createTenant(t);
  port = Number(new URL(t.url).port);
});
afterAll(async () => {
  await t?.close();
});

/** A raw connection: what the server sends back, and whether it closed the connection. */
function rawConnection(): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return { socket, received: () => text, closed };
}

const waitUntil = async (what: string, ok: () => boolean, timeoutMs = 15_000) => {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('body after authentication', () => {
  it('answers an unauthenticated large POST with 401 before its body is sent, and closes the connection', async () => {
    const c = rawConnection();
    const declared = 60 * 1024 * 1024; // under the batch route's 64 MiB limit
    c.socket.write(
      `POST /v1/check_batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    c.socket.write(`{"records":[${'{"subjects":[{"name":"x"}]},'.repeat(2000)}`);
    // the rest of the 60 MiB is never sent: the answer must not wait for it
    await waitUntil('the 401', () => c.received().includes('\r\n\r\n'));
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(c.received()).toContain('"code":"unauthorized"');
    await c.closed;
  });

  it('leaves a refused connection usable or closes it, never stuck', async () => {
    const c = rawConnection();
    let isClosed = false;
    void c.closed.then(() => {
      isClosed = true;
    });
    const body = `{"records":[${'{"subjects":[{"name":"x"}]},'.repeat(4000)}{"subjects":[{"name":"x"}]}]}`;
    c.socket.write(
      `POST /v1/check_batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await waitUntil('the 401', () => c.received().includes('\r\n\r\n'));
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
    if (!isClosed) c.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitUntil('the next answer or the close', () => isClosed || /HTTP\/1\.1 200 /.test(c.received()));
    c.socket.destroy();
  });

  it('still reads the body of an authenticated request', async () => {
    const r = await call(t.url, 'POST', '/v1/check_batches', {
      token: tenant.secret_key,
      body: { records: [{ subjects: [{ name: 'Marigold Fennimore', type: 'person' }] }] },
    });
    expect(r.status).toBe(202);
  });
});

describe('GET /openapi.json', () => {
  it('is serialised once: a strong ETag, and If-None-Match → 304 without a body', async () => {
    const first = await fetch(`${t.url}/openapi.json`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('content-type')).toContain('application/json');
    const doc = (await first.json()) as { openapi: string };
    expect(doc.openapi).toMatch(/^3\.1/);
    const again = await fetch(`${t.url}/openapi.json`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});

describe('pipelined requests whose responses are never read', () => {
  it('stop being served on that connection, while other clients are served', async () => {
    const c = rawConnection();
    c.socket.pause(); // never read
    // each answer (a 404 naming the path) is ~4 KB: 5,000 of them are far more than the socket buffers hold
    const request = `GET /nothing-${'x'.repeat(4000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    let sent = 0;
    let isClosed = false;
    void c.closed.then(() => {
      isClosed = true;
    });
    while (!isClosed && sent < 5_000) {
      if (!c.socket.write(request.repeat(50))) {
        await Promise.race([
          new Promise((r) => c.socket.once('drain', r)),
          c.closed,
          new Promise((r) => setTimeout(r, 200)),
        ]);
      }
      sent += 50;
    }
    // the server stops serving (closes) the connection that does not drain its answers
    await Promise.race([
      c.closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('connection still served')), 15_000)),
    ]);
    expect((await call(t.url, 'GET', '/livez')).status).toBe(200);
  });
});
