import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  screenDuration: Histogram<'version'>;
  screensTotal: Counter<'version'>;
  matcherBusySeconds: Counter;
  poolQueueDepth: Gauge;
  activeVersion: Gauge<'version'>;
  buildDuration: Histogram<'status'>;
  swapDuration: Histogram;
  indexBytes: Gauge;
}

export function createMetrics(poolQueueDepth: () => number): Metrics {
  // own registry: several apps in one process (tests) must not collide on the global one
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
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
