import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log.js';

/** Cluster-wide "what is current" signals. Postgres stays the source of truth; a KV put only tells every process
 * to look, and a watcher also sees the last value when it starts or reconnects. */
export const stateBucket = (ns: string) => `${ns}_state`;
export const STATE_KEYS = {
  active_dataset: 'dataset.active',
  fatf_version: 'fatf.version',
} as const;

export async function openStateKv(nc: NatsConnection, ns: string): Promise<KV> {
  return new Kvm(nc).create(stateBucket(ns), { history: 1 });
}

export interface Watch {
  stop(): void;
}

/** Calls onValue for the key's current value and every later change, one at a time (a slow handler
 * coalesces: only the newest value waiting is applied). */
export async function watchKey(
  kv: KV,
  key: string,
  log: Logger,
  onValue: (value: string) => Promise<void>,
): Promise<Watch> {
  const iter = await kv.watch({ key });
  let pending: string | undefined;
  let running = false;
  const drain = async () => {
    if (running) return;
    running = true;
    try {
      while (pending !== undefined) {
        const v = pending;
        pending = undefined;
        try {
          await onValue(v);
        } catch (err) {
          log.error({ err, key, value: v }, 'applying a state change failed');
        }
      }
    } finally {
      running = false;
    }
  };
  void (async () => {
    for await (const e of iter) {
      if (e.operation !== 'PUT') continue;
      pending = e.string();
      void drain();
    }
  })().catch((err: unknown) => log.warn({ err, key }, 'state watch ended'));
  return { stop: () => iter.stop() };
}
