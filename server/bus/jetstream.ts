import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { outageError } from '../errors.js';
import type { Logger } from '../log.js';
import { type ConnectionState, trackConnection } from './nats.js';

/** One work-queue stream per deployment (namespace) for every background job kind; each kind has its own subject
 * and durable consumer. */
export const JOB_KINDS = [
  'dataset_build',
  'dataset_feed',
  'applicant_erase',
  'document_verify',
  'webhook_delivery',
  'flow_process',
  'batch_chunk',
  'monitor_run',
  'monitor_delta',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const jobsStream = (ns: string) => `${ns}_jobs`;
export const jobSubject = (ns: string, kind: JobKind) => `${ns}.jobs.${kind}`;

const nanos = (ms: number) => ms * 1_000_000;

export async function ensureStreams(jsm: JetStreamManager, ns: string): Promise<void> {
  const cfg = {
    name: jobsStream(ns),
    subjects: [`${ns}.jobs.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    // msgID dedup window: a job published twice within it is stored once
    duplicate_window: nanos(10 * 60_000),
  };
  try {
    await jsm.streams.info(cfg.name);
    await jsm.streams.update(cfg.name, cfg);
  } catch {
    await jsm.streams.add(cfg);
  }
}

export interface Bus {
  ns: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** whether the NATS connection is up now */
  connection: ConnectionState;
  /** Publishes a job and waits for JetStream's ack. While NATS is unreachable it fails at once (and after
   * PUBLISH_TIMEOUT_MS without an ack) with 503 service_unavailable, so a request never waits long on NATS. */
  publishJob(kind: JobKind, payload: unknown, msgID: string): Promise<void>;
}

export const PUBLISH_TIMEOUT_MS = 1500;

export async function createBus(nc: NatsConnection, ns: string): Promise<Bus> {
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, ns);
  const js = jetstream(nc);
  const connection = trackConnection(nc);
  return {
    ns,
    js,
    jsm,
    connection,
    async publishJob(kind, payload, msgID) {
      if (!connection.up()) throw outageError('nats');
      try {
        await js.publish(jobSubject(ns, kind), JSON.stringify(payload), {
          msgID,
          timeout: PUBLISH_TIMEOUT_MS,
        });
      } catch (err) {
        const e = outageError('nats');
        e.cause = err;
        throw e;
      }
    },
  };
}

export interface WorkerOptions<T> {
  kind: JobKind;
  /** redeliveries before giving up (the handler's onGiveUp records the failure) */
  max_deliver: number;
  /** delay before each redelivery after a failure */
  backoff_ms: number[];
  /** how long a delivery may go without ack or heartbeat before JetStream redelivers it */
  ack_wait_ms: number;
  /** deliveries processed at once by this process */
  concurrency: number;
  /** ± fraction of random jitter on each backoff delay (0.1 = ±10 %) */
  jitter?: number;
  handle(payload: T, info: { redelivered: boolean; attempt: number }): Promise<void>;
  onGiveUp?(payload: T, err: unknown): Promise<void>;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Consumes one job kind with explicit acks: ack on success, nak with backoff on failure, term after max_deliver.
 * Safe with any number of processes: the work-queue stream hands each message to one consumer at a time. */
export async function runWorker<T>(bus: Bus, log: Logger, opts: WorkerOptions<T>): Promise<RunningWorker> {
  const durable = `worker_${opts.kind}`;
  const stream = jobsStream(bus.ns);
  const config = {
    durable_name: durable,
    filter_subject: jobSubject(bus.ns, opts.kind),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_deliver: opts.max_deliver,
    ack_wait: nanos(opts.ack_wait_ms),
    max_ack_pending: Math.max(opts.concurrency * 4, 16),
  };
  try {
    await bus.jsm.consumers.info(stream, durable);
    await bus.jsm.consumers.update(stream, durable, config);
  } catch {
    await bus.jsm.consumers.add(stream, config);
  }
  const consumer = await bus.js.consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: opts.concurrency });
  const inflight = new Set<Promise<void>>();

  const process = async (m: JsMsg) => {
    const attempt = m.info.deliveryCount;
    let payload: T;
    try {
      payload = m.json<T>();
    } catch (err) {
      log.error({ err, kind: opts.kind }, 'job payload is not JSON: dropped');
      m.term('invalid payload');
      return;
    }
    // long jobs keep their lease
    const heartbeat = setInterval(() => m.working(), Math.max(1000, opts.ack_wait_ms / 3));
    try {
      await opts.handle(payload, { redelivered: m.redelivered, attempt });
      m.ack();
    } catch (err) {
      if (attempt >= opts.max_deliver) {
        log.error({ err, kind: opts.kind, attempt }, 'job failed for the last time');
        try {
          await opts.onGiveUp?.(payload, err);
        } finally {
          m.term('max deliveries reached');
        }
      } else {
        const base = opts.backoff_ms[Math.min(attempt - 1, opts.backoff_ms.length - 1)] ?? 1000;
        // jitter spreads retries of many failed jobs so they do not hit a recovering receiver together
        const delay = Math.round(base * (1 + (opts.jitter ?? 0) * (Math.random() * 2 - 1)));
        log.warn({ err, kind: opts.kind, attempt, retry_in_ms: delay }, 'job failed; will retry');
        m.nak(delay);
      }
    } finally {
      clearInterval(heartbeat);
    }
  };

  const loop = (async () => {
    for await (const m of messages) {
      const p = process(m).catch((err: unknown) => log.error({ err }, 'job handler crashed'));
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      if (inflight.size >= opts.concurrency) await Promise.race(inflight);
    }
  })();

  return {
    async stop() {
      await messages.close();
      await loop.catch(() => {});
      await Promise.all(inflight);
    },
  };
}
