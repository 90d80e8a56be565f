import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type BodyReader, collectBody, type Exchange, type HttpServer } from './exchange.js';
import { listenError } from './listen-error.js';

/** Feeds a request body into the shared collector; paused (not read from the socket) until read() when asked. */
function nodeBody(
  req: IncomingMessage,
  limit: number,
  finished: () => boolean,
  gone: () => boolean,
  startPaused: boolean,
): BodyReader {
  const body = collectBody({
    limit,
    finished,
    gone,
    startPaused,
    pause: () => req.pause(),
    resume: () => req.resume(),
  });
  req.on('data', (chunk: Buffer) => body.push(chunk, false));
  req.on('end', () => body.end());
  req.on('error', () => {});
  return body;
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** node:http: serves on every Node version (used where uWebSockets.js has no native binary). */
export function nodeHttpServer(handle: (ex: Exchange) => void): HttpServer {
  /** bytes of answers ended on each connection and not yet handed to the kernel */
  const unflushed = new WeakMap<Socket, number>();
  const server = createServer((req, res) => {
    // as uWS does: a client that pipelines a request while its earlier answers (16 KB or more) are not yet written
    // (it does not read them) is not served further; its connection is closed. A client that reads each answer
    // before its next request never meets this.
    const socket = req.socket;
    if ((unflushed.get(socket) ?? 0) >= socket.writableHighWaterMark) {
      socket.destroy();
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      const value = firstValue(v);
      if (value !== undefined) headers[k] = value;
    }
    const remote = req.socket.remoteAddress ?? '';
    handle({
      method: (req.method ?? 'GET').toUpperCase(),
      path: q < 0 ? url : url.slice(0, q),
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      headers,
      // uWS reports IPv4 peers as plain dotted quads
      ip: remote.startsWith('::ffff:') ? remote.slice(7) : remote,
      onAborted(cb) {
        res.on('close', () => {
          if (!res.writableFinished) cb();
        });
      },
      body: (limit, finished, gone, startPaused) => nodeBody(req, limit, finished, gone, startPaused),
      respond(status, out, payload, head, close) {
        for (const [k, v] of out) res.setHeader(k, v);
        res.setHeader('content-length', payload.length);
        if (close) res.setHeader('connection', 'close');
        res.writeHead(status);
        unflushed.set(socket, (unflushed.get(socket) ?? 0) + payload.length);
        let flushed = false;
        const onFlushed = () => {
          if (flushed) return;
          flushed = true;
          unflushed.set(socket, (unflushed.get(socket) ?? 0) - payload.length);
        };
        res.once('finish', onFlushed);
        res.once('close', onFlushed);
        if (head) res.end();
        else res.end(payload);
        if (close) res.once('finish', () => socket.destroySoon());
      },
    });
  });
  return {
    name: 'node:http',
    listen(host, port) {
      return new Promise((resolvePort, reject) => {
        server.once('error', (err) => reject(listenError(host, port, err)));
        server.listen(port, host, () => resolvePort((server.address() as AddressInfo).port));
      });
    },
    close() {
      server.close();
      server.closeIdleConnections();
    },
  };
}
