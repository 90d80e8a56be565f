import uWS from 'uWebSockets.js';
import { type BodyReader, collectBody, type Exchange, type HttpServer, statusLine } from './exchange.js';
import { probeListen } from './listen-error.js';

/** Feeds a request body into the shared collector, starting paused if asked: nothing beyond the first packet is
 * read from the socket until read() is called. */
function pausedBody(
  res: uWS.HttpResponse,
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
    pause: () => res.pause(),
    resume: () => res.resume(),
  });
  // the ArrayBuffer is reused by uWS after this callback: copy it
  res.onData((chunk, isLast) => body.push(Buffer.from(chunk.slice(0)), isLast));
  return body;
}

/** Ends a response without letting uWS buffer what the socket does not take: the rest is written as the client
 * drains it (onWritable). A client that pipelines requests and never reads its answers therefore holds one
 * answer at most; uWS closes such a connection when its next request arrives while that answer is pending. */
function writeDrained(res: uWS.HttpResponse, payload: Buffer): void {
  const start = res.getWriteOffset();
  const [, done] = res.tryEnd(payload, payload.length);
  if (done) return;
  res.onWritable((offset) => {
    const [ok] = res.tryEnd(payload.subarray(offset - start), payload.length);
    return ok;
  });
}

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT: no SO_REUSEPORT on the listening socket. */
const EXCLUSIVE_PORT = 1;
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (socket: uWS.us_listen_socket | false) => void,
) => uWS.TemplatedApp;

/** uWebSockets.js (native binary only: its Node fallback implements too little of the API to serve). */
export function uwsServer(handle: (ex: Exchange) => void): HttpServer {
  const app = uWS.App();
  let listenSocket: uWS.us_listen_socket | undefined;
  app.any('/*', (res, req) => {
    // uWS request data is valid only until the first await: copy all of it now
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    handle({
      method: req.getCaseSensitiveMethod().toUpperCase(),
      path: req.getUrl(),
      rawQuery: req.getQuery() ?? '',
      headers,
      ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
      onAborted: (cb) => res.onAborted(cb),
      body: (limit, finished, gone, startPaused) => pausedBody(res, limit, finished, gone, startPaused),
      respond(status, out, payload, head, close) {
        res.cork(() => {
          res.writeStatus(statusLine(status));
          for (const [k, v] of out) res.writeHeader(k, v);
          if (head) res.endWithoutBody(payload.length, close);
          else if (close) res.end(payload, true);
          else writeDrained(res, payload);
        });
      },
    });
  });
  return {
    name: 'uWebSockets.js',
    listen(host, port) {
      return new Promise((resolvePort, reject) => {
        const listening = (socket: uWS.us_listen_socket | false) => {
          if (!socket) {
            probeListen(host, port).then(reject);
            return;
          }
          listenSocket = socket;
          resolvePort(uWS.us_socket_local_port(socket));
        };
        // exclusive: without it uWS sets SO_REUSEPORT, and a second service on a taken port would start and share
        // its connections with the first; (host, port, options, cb) is in uWS's C++ API, not in its typings
        (app.listen as unknown as ListenWithOptions).call(app, host, port, EXCLUSIVE_PORT, listening);
      });
    },
    close() {
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    },
  };
}
