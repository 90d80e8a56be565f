import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  screenDuration: Histogram<'version'>;
  screensTotal: Counter<'version'>;
  matcherBusySeconds: Counter;
  poolTasks: Counter;
  poolQueueDepth: Gauge;
  activeVersion: Gauge<'version'>;
  buildDuration: Histogram<'status'>;
  swapDuration: Histogram;
  indexBytes: Gauge;
  webhookDeliveries: Counter<'outcome'>;
  batchRecords: Counter<'outcome'>;
  /** applicant sessions reaching each journey step, per template slug (docs/journey.md) */
  verificationSteps: Counter<'template' | 'step'>;
  /** Deployment-wide readings collected at scrape time; set once the bus and database are up. */
  sources: MetricSources;
}

export interface JobConsumerStats {
  kind: string;
  /** `first` (first attempts) or `retry` (retries waiting for their time or running) */
  lane: 'first' | 'retry';
  /** stored, not yet delivered to any worker */
  pending: number;
  /** delivered, not yet acknowledged (running, or in the retry lane waiting for their time) */
  ack_pending: number;
}

export interface MetricSources {
  jobs?: () => Promise<JobConsumerStats[]>;
  outbox?: () => Promise<{ pending: number; oldest_age_seconds: number }>;
}

/** prom-client's default `nodejs_active_{handles,requests,resources}_total` are gauges named like counters (promtool:
 * "non-counter metrics should not have _total suffix"); the same readings stay as the `nodejs_active_*` gauges. */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export function createMetrics(poolQueueDepth: () => number, poolTasks: () => number): Metrics {
  // own registry: several apps in one process (tests) must not collide on the global one
  const registry = new Registry();
  // includes the event-loop delay gauges nodejs_eventloop_lag_{p50,p90,p99,max,…}_seconds, sampled by
  // perf_hooks.monitorEventLoopDelay at 10 ms resolution
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const sources: MetricSources = {};
  /** A reading that cannot be taken (NATS or Postgres down) leaves the series out of this scrape, never fails it. */
  const read = async <T>(what: () => Promise<T> | undefined): Promise<T | undefined> => {
    try {
      return await what();
    } catch {
      return undefined;
    }
  };
  const jobGauge = (name: string, help: string, field: 'pending' | 'ack_pending') =>
    new Gauge({
      name,
      help,
      labelNames: ['kind', 'lane'],
      registers: [registry],
      async collect() {
        const stats = await read(() => sources.jobs?.());
        this.reset();
        for (const s of stats ?? []) this.set({ kind: s.kind, lane: s.lane }, s[field]);
      },
    });
  jobGauge(
    'jobs_pending',
    'Background jobs stored and not yet delivered to a worker, by job kind and lane (deployment-wide)',
    'pending',
  );
  jobGauge(
    'jobs_ack_pending',
    'Background jobs delivered and not yet acknowledged (running, or retries waiting for their time), by kind and lane',
    'ack_pending',
  );
  new Gauge({
    name: 'outbox_pending_events',
    help: 'Outbox events not yet relayed to webhook deliveries (deployment-wide)',
    registers: [registry],
    async collect() {
      const o = await read(() => sources.outbox?.());
      this.reset();
      if (o) this.set(o.pending);
    },
  });
  new Gauge({
    name: 'outbox_lag_seconds',
    help: 'Age of the oldest outbox event not yet relayed (0 when none waits)',
    registers: [registry],
    async collect() {
      const o = await read(() => sources.outbox?.());
      this.reset();
      if (o) this.set(o.oldest_age_seconds);
    },
  });
  const metrics: Metrics = {
    registry,
    sources,
    webhookDeliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: succeeded, failed (will retry), gave_up (schedule exhausted), deferred (endpoint busy, not an attempt)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    batchRecords: new Counter({
      name: 'batch_records_total',
      help: 'Check batch subjects finished by this process, by outcome: screened or error',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    verificationSteps: new Counter({
      name: 'veriscreen_verification_steps_total',
      help: "Applicant sessions (verification links opened) reaching each step of the journey, by the flow's template slug",
      labelNames: ['template', 'step'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    screenDuration: new Histogram({
      name: 'matcher_screen_duration_seconds',
      help: 'Time from submitting a screen to the matcher pool until its result, by dataset version',
      labelNames: ['version'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
    screensTotal: new Counter({
      name: 'matcher_screens_total',
      help: 'Screens answered, by dataset version',
      labelNames: ['version'],
      registers: [registry],
    }),
    matcherBusySeconds: new Counter({
      name: 'matcher_busy_seconds_total',
      help: 'Time matcher threads spent screening (excludes queueing); rate ÷ threads = utilisation',
      registers: [registry],
    }),
    poolTasks: new Counter({
      name: 'matcher_tasks_total',
      help: 'Tasks sent to the matcher threads (a micro-batch of screens is one task): matcher_screens_total ÷ this = screens per task',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(poolTasks());
      },
    }),
    poolQueueDepth: new Gauge({
      name: 'matcher_pool_queue_depth',
      help: 'Screens waiting for a matcher thread',
      registers: [registry],
      collect() {
        this.set(poolQueueDepth());
      },
    }),
    activeVersion: new Gauge({
      name: 'matcher_active_dataset_version_info',
      help: 'The dataset version this process screens against (value 1)',
      labelNames: ['version'],
      registers: [registry],
    }),
    buildDuration: new Histogram({
      name: 'dataset_build_duration_seconds',
      help: 'Dataset version builds (parse, store, index, upload) by outcome',
      labelNames: ['status'],
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    swapDuration: new Histogram({
      name: 'matcher_swap_duration_seconds',
      help: 'Time to load a dataset version (artifact download, deserialise, start threads) and swap to it',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    indexBytes: new Gauge({
      name: 'matcher_index_bytes',
      help: 'SharedArrayBuffer bytes of the active index (shared by all matcher threads)',
      registers: [registry],
    }),
  };
  bornAtZero(metrics);
  return metrics;
}

/** The label values of the series that alert rules watch with increase() or rate() (deploy/prometheus/alerts.yml). */
export const WEBHOOK_OUTCOMES = ['succeeded', 'failed', 'gave_up', 'deferred'] as const;
export const BATCH_RECORD_OUTCOMES = ['screened', 'error'] as const;
export const BUILD_STATUSES = ['ready', 'failed'] as const;

/** Every labelled series an alert rule watches exists at 0 from the start: increase() needs a sample before the
 * event, and a series born at 1 by its first event shows no increase, so that alert could never fire on it
 * (test/http/alerts-fire.test.ts loads the rules into a real Prometheus). */
function bornAtZero(m: Metrics): void {
  for (const outcome of WEBHOOK_OUTCOMES) m.webhookDeliveries.inc({ outcome }, 0);
  for (const outcome of BATCH_RECORD_OUTCOMES) m.batchRecords.inc({ outcome }, 0);
  for (const status of BUILD_STATUSES) m.buildDuration.zero({ status });
}

/** Drops the matcher series (screen duration, screens) of every dataset version but `keep`: a process serves one
 * version, and label values of retired versions must not accumulate with every promotion. */
export async function forgetOtherVersions(metrics: Metrics, keep: string): Promise<void> {
  for (const metric of [metrics.screenDuration, metrics.screensTotal] as const) {
    const versions = new Set<string>();
    for (const v of (await metric.get()).values) {
      const version = v.labels.version;
      if (typeof version === 'string' && version !== keep) versions.add(version);
    }
    for (const version of versions) metric.remove({ version });
  }
}
