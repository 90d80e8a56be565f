import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Exchange, HttpServer } from './exchange.js';
import { nodeHttpServer } from './node-http.js';

export type { HttpServer } from './exchange.js';

export type HttpServerChoice = 'auto' | 'uws' | 'node';

/** Whether the installed uWebSockets.js has a native binary for this Node (its binaries exist for Node 18/20
 * ABIs only; elsewhere it falls back to a Node shim that throws "Not implemented" on most of the API). */
export function uwsNativeAvailable(): boolean {
  try {
    const entry = createRequire(import.meta.url).resolve('uWebSockets.js');
    const { platform, arch, versions } = process;
    return existsSync(
      join(dirname(entry), '..', 'binaries', `uws_${platform}_${arch}_${versions.modules}.node`),
    );
  } catch {
    return false;
  }
}

/** uWebSockets.js where its native binary loads (or when asked), node:http otherwise. */
export async function createHttpServer(
  choice: HttpServerChoice,
  handle: (ex: Exchange) => void,
): Promise<HttpServer> {
  const native = uwsNativeAvailable();
  if (choice === 'uws' && !native) {
    throw new Error(`HTTP_SERVER=uws, but uWebSockets.js has no native binary for Node ${process.version}`);
  }
  if (choice === 'node' || !native) return nodeHttpServer(handle);
  // imported only when used: loading the module on an unsupported Node prints the shim's warnings
  const { uwsServer } = await import('./uws.js');
  return uwsServer(handle);
}
