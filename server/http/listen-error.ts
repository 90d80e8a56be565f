import { createServer } from 'node:net';

/** The listener could not take host:port: one clear line for the operator (server/cli/main.ts prints it). */
export class ListenError extends Error {
  override name = 'ListenError';
  constructor(host: string, port: number, reason: string) {
    super(`cannot listen on ${host}:${port}: ${reason}`);
  }
}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another veriscreen serve or another program listens on it)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine',
};

/** The error of a listen that failed, as one line: the OS's code in words when known. */
export function listenError(host: string, port: number, err: NodeJS.ErrnoException): ListenError {
  return new ListenError(host, port, LISTEN_REASONS[err.code ?? ''] ?? err.message);
}

/** Why host:port cannot be listened on, learnt by trying (uWebSockets.js reports a failure without a cause). */
export function probeListen(host: string, port: number): Promise<ListenError> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err) => resolve(listenError(host, port, err)));
    probe.listen({ host, port, exclusive: true }, () =>
      probe.close(() => resolve(new ListenError(host, port, 'uWebSockets.js could not listen'))),
    );
  });
}
