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
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { isPermanentDbError } from '../db/pg-errors.js';
import { outageError } from '../errors.js';
import { currentRequestId, type Logger, payloadIds, withRequestId } from '../log.js';
import type { JobConsumerStats } from '../metrics.js';
import { type ConnectionState, trackConnection } from './nats.js';

/** One work-queue stream per deployment (namespace) for every background job kind; each kind has its own subject
 * and durable consumer. */
export const JOB_KINDS = [
  'dataset_build',
  'dataset_feed',
  'applicant_erase',
  'document_verify',
  'document_analyze',
  'chip_verify',
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
  /** Publishes a job (carrying the current request id, see withRequestId) and waits for JetStream's ack. While NATS is unreachable it fails at once (and after
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
      // the request (or job) publishing this job: its id goes on to every log line of the job
      const requestId = currentRequestId();
      const h = requestId ? headers() : undefined;
      if (h && requestId) h.set(REQUEST_ID_HEADER, requestId);
      try {
        await js.publish(jobSubject(ns, kind), JSON.stringify(payload), {
          msgID,
          timeout: PUBLISH_TIMEOUT_MS,
          ...(h ? { headers: h } : {}),
        });
      } catch (err) {
        const e = outageError('nats');
        e.cause = err;
        throw e;
      }
    },
  };
}

/** What a job's handler gets besides its payload. */
export interface JobInfo {
  redelivered: boolean;
  attempt: number;
  /** the job's logger: every line carries kind, job_id, attempt, the payload's ids (tenant_id, flow_id, batch_id,
   * delivery_id, monitor_id, ...) and the request id of the request that caused the job, if any. Log through it (or
   * pass it on as deps.log), and add ids learnt on the way with setBindings. */
  log: Logger;
}

export interface WorkerOptions<T> {
  kind: JobKind;
  /** attempts before giving up (the handler's onGiveUp records the failure) */
  max_deliver: number;
  /** delay before each retry after a failure */
  backoff_ms: number[];
  /** how long a delivery may go without ack or heartbeat before JetStream redelivers it */
  ack_wait_ms: number;
  /** deliveries processed at once by this process (per lane: first attempts and retries each get this many) */
  concurrency: number;
  /** ± fraction of random jitter on each backoff delay (0.1 = ±10 %) */
  jitter?: number;
  /** failures no retry can cure: given up at once (default: Postgres data and integrity errors) */
  isPermanent?(err: unknown): boolean;
  handle(payload: T, info: JobInfo): Promise<void>;
  onGiveUp?(payload: T, err: unknown, log: Logger): Promise<void>;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Thrown by a handler that cannot run the job now for a reason that is not the job's fault (e.g. its webhook
 * endpoint already has its share of deliveries in flight): the job is retried without counting an attempt, after
 * `delay_ms` doubled for each time it was deferred before (at most MAX_DEFER_MS, ±50 % jitter), so a large
 * backlog behind one busy endpoint does not cycle through the retry lane every few seconds. */
export class JobDeferred extends Error {
  constructor(
    readonly delay_ms: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** A failure the job expects on some attempts (e.g. its trigger was published inside a transaction that has not
 * committed yet): retried and given up like any failure, but logged at debug, not as a warning or an error — it is
 * not something an operator should act on. */
export class ExpectedRetry extends Error {}

/** Retries wait outside the first-attempt lane: a waiting retry never holds one of the slots (max_ack_pending) that
 * new jobs of its kind are delivered through. */
export const retrySubject = (ns: string, kind: JobKind) => `${jobSubject(ns, kind)}.retry`;
const ATTEMPT_HEADER = 'Veriscreen-Attempt';
const NOT_BEFORE_HEADER = 'Veriscreen-Not-Before';
const JOB_ID_HEADER = 'Veriscreen-Job-Id';
const DEFERRALS_HEADER = 'Veriscreen-Deferrals';
const REQUEST_ID_HEADER = 'Veriscreen-Request-Id';
const MAX_DEFER_MS = 60_000;
/** Retries waiting for their time, per consumer: only this many can be scheduled before new retries queue behind. */
const RETRY_LANE_MAX_ACK_PENDING = 100_000;

async function ensureConsumer(
  bus: Bus,
  durable: string,
  config: Omit<Parameters<JetStreamManager['consumers']['add']>[1], 'durable_name'>,
): Promise<void> {
  const stream = jobsStream(bus.ns);
  const full = { ...config, durable_name: durable };
  try {
    await bus.jsm.consumers.info(stream, durable);
    await bus.jsm.consumers.update(stream, durable, full);
  } catch {
    await bus.jsm.consumers.add(stream, full);
  }
}

/** Consumes one job kind with explicit acks, in two lanes. First attempts arrive on the kind's subject through a
 * consumer whose max_ack_pending bounds what one process holds; a failure is re-published to the kind's retry
 * subject with its attempt number and the time it is due (msgID-deduplicated, then the original is acked), so a
 * failing job never occupies a first-attempt slot while it waits. The retry lane naks a job that is not yet due with
 * the remaining delay and runs it once it is. A permanent failure (isPermanent) or the last attempt gives up at once
 * (onGiveUp, then term). A process killed mid-job has the job redelivered by JetStream after ack_wait (max_deliver
 * bounds such crash loops in the first lane). Safe with any number of processes: the work-queue stream hands each
 * message to one consumer at a time. */
export async function runWorker<T>(bus: Bus, log: Logger, opts: WorkerOptions<T>): Promise<RunningWorker> {
  const isPermanent = opts.isPermanent ?? isPermanentDbError;
  const { fresh, retry } = await ensureLanes(bus, opts);
  const delayFor = (attempt: number) => {
    const base = opts.backoff_ms[Math.min(attempt - 1, opts.backoff_ms.length - 1)] ?? 1000;
    // jitter spreads retries of many failed jobs so they do not hit a recovering receiver together
    return Math.round(base * (1 + (opts.jitter ?? 0) * (Math.random() * 2 - 1)));
  };

  /** Schedules `attempt` of the job in the retry lane, then acks this delivery; nak with the delay when NATS
   * refuses the publish (the job then waits in its current lane, as before). */
  const scheduleRetry = async (
    m: JsMsg,
    jobLog: Logger,
    jobId: string,
    attempt: number,
    delay: number,
    counted: boolean,
  ) => {
    try {
      const h = headers();
      const requestId = m.headers?.get(REQUEST_ID_HEADER);
      if (requestId) h.set(REQUEST_ID_HEADER, requestId);
      const deferrals = counted ? 0 : Number(m.headers?.get(DEFERRALS_HEADER) || 0) + 1;
      if (!counted) {
        h.set(DEFERRALS_HEADER, String(deferrals));
        const base = Math.min(delay * 2 ** (deferrals - 1), MAX_DEFER_MS);
        delay = Math.round(base * (0.5 + Math.random()));
      }
      h.set(ATTEMPT_HEADER, String(attempt));
      h.set(NOT_BEFORE_HEADER, String(Date.now() + delay));
      h.set(JOB_ID_HEADER, jobId);
      await bus.js.publish(retrySubject(bus.ns, opts.kind), m.data, {
        msgID: `${jobId}:${counted ? 'attempt' : `deferred:${m.info.streamSequence}`}:${attempt}`,
        headers: h,
      });
      m.ack();
    } catch (err) {
      jobLog.warn({ err }, 'could not schedule a retry; the job waits in its lane');
      m.nak(delay);
    }
  };

  const process = async (m: JsMsg, lane: 'fresh' | 'retry') => {
    const h = m.headers;
    const jobId = h?.get(JOB_ID_HEADER) || h?.get('Nats-Msg-Id') || `${opts.kind}:${m.info.streamSequence}`;
    if (lane === 'retry') {
      const wait = Number(h?.get(NOT_BEFORE_HEADER) ?? 0) - Date.now();
      if (wait > 0) {
        m.nak(wait);
        return;
      }
    }
    const attempt =
      lane === 'retry' ? Math.max(1, Number(h?.get(ATTEMPT_HEADER) ?? 1)) : m.info.deliveryCount;
    const requestId = h?.get(REQUEST_ID_HEADER) || undefined;
    const base = { kind: opts.kind, job_id: jobId, attempt, ...(requestId ? { request_id: requestId } : {}) };
    let payload: T;
    try {
      payload = m.json<T>();
    } catch (err) {
      log.error({ err, ...base }, 'job payload is not JSON: dropped');
      m.term('invalid payload');
      return;
    }
    const jobLog = log.child({ ...base, ...payloadIds(payload) });
    // long jobs keep their lease
    const heartbeat = setInterval(() => m.working(), Math.max(1000, opts.ack_wait_ms / 3));
    const started = performance.now();
    try {
      // jobs this one publishes carry the same request id
      await withRequestId(requestId, () =>
        opts.handle(payload, { redelivered: m.redelivered || attempt > 1, attempt, log: jobLog }),
      );
      m.ack();
      jobLog.debug({ took_ms: Math.round(performance.now() - started) }, 'job done');
    } catch (err) {
      if (err instanceof JobDeferred) {
        jobLog.debug({ reason: err.message }, 'job deferred');
        await scheduleRetry(m, jobLog, jobId, attempt, err.delay_ms, false);
        return;
      }
      const permanent = isPermanent(err);
      const expected = err instanceof ExpectedRetry;
      if (permanent || attempt >= opts.max_deliver) {
        jobLog[expected ? 'debug' : 'error']({ err, permanent }, 'job failed for the last time');
        try {
          await withRequestId(requestId, () => opts.onGiveUp?.(payload, err, jobLog));
          m.term(permanent ? 'permanent failure' : 'max deliveries reached');
        } catch (giveUpErr) {
          // the failure could not be recorded (e.g. Postgres down): try again later
          jobLog.warn({ err: giveUpErr }, 'recording a failed job failed; will retry');
          m.nak(delayFor(1));
        }
      } else {
        const delay = delayFor(attempt);
        jobLog[expected ? 'debug' : 'warn']({ err, retry_in_ms: delay }, 'job failed; will retry');
        await scheduleRetry(m, jobLog, jobId, attempt + 1, delay, true);
      }
    } finally {
      clearInterval(heartbeat);
    }
  };

  const consume = (durable: string, lane: 'fresh' | 'retry') =>
    consumeLane(bus, durable, opts.concurrency, (m) =>
      process(m, lane).catch((err: unknown) => log.error({ err, kind: opts.kind }, 'job handler crashed')),
    );
  const stops = [await consume(fresh, 'fresh'), await consume(retry, 'retry')];

  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}

/** The two durable consumers of a job kind: first attempts (max_deliver bounds crash loops) and retries (attempts
 * are counted in a header). */
async function ensureLanes(
  bus: Bus,
  opts: Pick<WorkerOptions<unknown>, 'kind' | 'max_deliver' | 'ack_wait_ms' | 'concurrency'>,
): Promise<{ fresh: string; retry: string }> {
  const fresh = `worker_${opts.kind}`;
  const retry = `worker_${opts.kind}_retry`;
  await ensureConsumer(bus, fresh, {
    filter_subject: jobSubject(bus.ns, opts.kind),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_deliver: opts.max_deliver,
    ack_wait: nanos(opts.ack_wait_ms),
    max_ack_pending: Math.max(opts.concurrency * 4, 16),
  });
  await ensureConsumer(bus, retry, {
    filter_subject: retrySubject(bus.ns, opts.kind),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    // every "not yet due" nak is a delivery: attempts are counted in the header instead
    max_deliver: -1,
    ack_wait: nanos(opts.ack_wait_ms),
    max_ack_pending: RETRY_LANE_MAX_ACK_PENDING,
  });
  return { fresh, retry };
}

/** Runs `handle` on the messages of one consumer, at most `concurrency` at once; returns how to stop (stop taking
 * messages, then wait for those in hand). `handle` must not reject. */
async function consumeLane(
  bus: Bus,
  durable: string,
  concurrency: number,
  handle: (m: JsMsg) => Promise<void>,
): Promise<() => Promise<void>> {
  const consumer = await bus.js.consumers.get(jobsStream(bus.ns), durable);
  const messages = await consumer.consume({ max_messages: concurrency });
  const inflight = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const m of messages) {
      const p = handle(m);
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      if (inflight.size >= concurrency) await Promise.race(inflight);
    }
  })();
  return async () => {
    await messages.close();
    await loop.catch(() => {});
    await Promise.all(inflight);
  };
}

/** Pending and ack-pending counts of every job kind's two consumers (first attempts, retries): deployment-wide
 * readings of JetStream, the same from every process. Consumers not created yet (no worker started) are left out. */
export async function jobConsumerStats(bus: Bus): Promise<JobConsumerStats[]> {
  if (!bus.connection.up()) return [];
  const stream = jobsStream(bus.ns);
  const lanes = JOB_KINDS.flatMap((kind) => [
    { kind, lane: 'first' as const, durable: `worker_${kind}` },
    { kind, lane: 'retry' as const, durable: `worker_${kind}_retry` },
  ]);
  const stats = await Promise.all(
    lanes.map(async ({ kind, lane, durable }): Promise<JobConsumerStats | undefined> => {
      try {
        const info = await bus.jsm.consumers.info(stream, durable);
        return { kind, lane, pending: info.num_pending, ack_pending: info.num_ack_pending };
      } catch {
        return undefined;
      }
    }),
  );
  return stats.filter((s): s is JobConsumerStats => s !== undefined);
}
