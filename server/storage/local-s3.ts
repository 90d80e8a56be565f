import { mkdirSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';

export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

/** An S3-compatible server (s3rver) for development and tests, so that no cloud account is needed.
 * Production uses real S3 or MinIO through S3_ENDPOINT. */
export async function startLocalS3(opts: {
  directory: string;
  port?: number;
  address?: string;
}): Promise<LocalS3> {
  mkdirSync(opts.directory, { recursive: true });
  // s3rver's run() never rejects on a taken port: its server emits an unhandled 'error' that kills the process
  // (`ingest` next to `npm start`). Probe first, so the caller gets EADDRINUSE as a rejection and can reuse it.
  if (opts.port) await probePort(opts.port, opts.address ?? '127.0.0.1');
  const { default: S3rver } = (await import('s3rver')) as unknown as {
    default: new (o: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };
  };
  const server = new S3rver({
    port: opts.port ?? 0,
    address: opts.address ?? '127.0.0.1',
    silent: true,
    directory: opts.directory,
    allowMismatchedSignatures: true,
  });
  const addr = await server.run();
  return { endpoint: `http://${addr.address}:${addr.port}`, close: () => server.close() };
}

function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
