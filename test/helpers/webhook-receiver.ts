import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
  body: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}

/** A real HTTP receiver on loopback whose answers the test scripts (status codes in order, then the last one). */
export class Receiver {
  readonly got: Received[] = [];
  statuses: number[] = [200];
  private server: Server;
  url = '';
  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        this.got.push({ headers: req.headers, raw, body: JSON.parse(raw) as Received['body'] });
        const status =
          this.statuses.length > 1 ? (this.statuses.shift() as number) : (this.statuses[0] ?? 200);
        res.writeHead(status).end('ok');
      });
    });
  }
  /** The event ids received, in order. */
  get ids(): string[] {
    return this.got.map((g) => g.body.id);
  }
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }
  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
