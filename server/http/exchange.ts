// The contract between the service's request path (server/http/server.ts) and the servers that read requests and
// write answers (server/http/uws.ts, server/http/node-http.ts): one request as an Exchange, and what both transports
// share. A leaf: it imports nothing else from server/http/, so the transports and the request path do not import
// each other.
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../errors.js';

/** The server that reads requests and writes answers for the service's handler. */
export interface HttpServer {
  /** 'uWebSockets.js' or 'node:http' (logged at start) */
  name: string;
  /** listens on host:port (port 0 = any free port) and resolves the bound port */
  listen(host: string, port: number): Promise<number>;
  /** stops accepting connections (open requests finish) */
  close(): void;
}

export interface BodyReader {
  /** resumes reading and resolves the whole body (413 beyond the limit) */
  read(): Promise<Buffer>;
  /** true while part of the body is still unread (the connection cannot be reused) */
  unread(): boolean;
  /** reading resumes (for the connection's next request) when an answer is sent before the body was asked for */
  release(): void;
}

/** One HTTP request as the service sees it, whichever server reads it (server/http/transport.ts): uWebSockets.js
 * where its native binary loads, node:http elsewhere. Request data is copied before the handler returns. */
export interface Exchange {
  method: string;
  path: string;
  rawQuery: string;
  headers: Record<string, string>;
  ip: string;
  onAborted(cb: () => void): void;
  /** attaches the body reader; must be called before the handler returns. Starting paused, nothing beyond
   * the first packet is read until read(), so a request refused on its headers never gets its body buffered.
   * finished: answered or aborted (data that still arrives is dropped); gone: aborted (do not touch the socket) */
  body(limit: number, finished: () => boolean, gone: () => boolean, startPaused: boolean): BodyReader;
  /** writes the whole answer; head: headers and length only (HEAD); close: close the connection after it */
  respond(status: number, headers: [string, string][], payload: Buffer, head: boolean, close: boolean): void;
}

export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

/** The 413 a body reader raises beyond its limit. */
export function bodyTooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', {
    details: { max_bytes: limit },
    headers: { connection: 'close' },
  });
}

/** The body collection both transports share: chunks kept up to `limit` (413 beyond), reading paused until read()
 * when asked. The transport feeds it with push() (a chunk it may not reuse) and end(). */
export function collectBody(opts: {
  limit: number;
  finished: () => boolean;
  gone: () => boolean;
  startPaused: boolean;
  pause(): void;
  resume(): void;
}): BodyReader & { push(chunk: Buffer, isLast: boolean): void; end(): void } {
  const chunks: Buffer[] = [];
  let size = 0;
  let complete = false;
  let error: ApiError | undefined;
  let settle: (() => void) | undefined;
  let paused = opts.startPaused;
  if (paused) opts.pause();
  const resume = () => {
    if (paused && !opts.gone()) opts.resume();
    paused = false;
  };
  return {
    push(chunk, isLast) {
      if (opts.finished() || error) return;
      size += chunk.byteLength;
      if (size > opts.limit) error = bodyTooLarge(opts.limit);
      else {
        chunks.push(chunk);
        complete = isLast;
      }
      if (complete || error) settle?.();
    },
    end() {
      complete = true;
      settle?.();
    },
    unread: () => !complete,
    release: resume,
    read() {
      return new Promise<Buffer>((resolve, reject) => {
        // one chunk (most bodies): it is the transport's own copy, so no second one
        settle = () =>
          error
            ? reject(error)
            : resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
        resume();
        if (complete || error) settle();
      });
    },
  };
}
