import { connect, type NatsConnection } from '@nats-io/transport-node';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 1000, timeout: 5000 });
}

export interface ConnectionState {
  /** connected to a server now */
  up(): boolean;
  /** ok | disconnected | closed */
  describe(): string;
}

/** Follows the connection's status events: nats.js reconnects forever in the background, so `isClosed()` stays
 * false during an outage; this says whether a server is reachable now. */
export function trackConnection(nc: NatsConnection): ConnectionState {
  let state = 'ok';
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnecting') state = 'disconnected';
      else if (s.type === 'reconnect') state = 'ok';
      else if (s.type === 'close') state = 'closed';
    }
  })().catch(() => {});
  const describe = () => (nc.isClosed() ? 'closed' : state);
  return { up: () => describe() === 'ok', describe };
}
