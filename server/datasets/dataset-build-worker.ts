import { type Bus, type RunningWorker, runWorker } from '../bus/jetstream.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { buildVersion, type DatasetDeps, markFailed } from './dataset-store.js';

/** Builds dataset versions queued by POST /admin/dataset_versions, on whichever worker process takes the job. */
export function startDatasetBuildWorker(
  deps: DatasetDeps & { bus: Bus; log: Logger; metrics: Metrics },
): Promise<RunningWorker> {
  return runWorker<{ version_id: string }>(deps.bus, deps.log, {
    kind: 'dataset_build',
    max_deliver: 3,
    backoff_ms: [5_000, 30_000],
    ack_wait_ms: 60_000,
    concurrency: 1,
    async handle({ version_id }) {
      const started = performance.now();
      try {
        const v = await buildVersion(deps, version_id);
        deps.metrics.buildDuration.observe({ status: v.status }, (performance.now() - started) / 1000);
        deps.log.info(
          { version: version_id, status: v.status, stats: { entities: v.stats.entities } },
          'dataset version built',
        );
      } catch (err) {
        deps.metrics.buildDuration.observe({ status: 'failed' }, (performance.now() - started) / 1000);
        // a parse failure is final (the version is marked failed inside buildVersion): do not retry it
        deps.log.warn({ err, version: version_id }, 'dataset version build failed');
      }
    },
    async onGiveUp({ version_id }, err) {
      await markFailed(deps.sql, version_id, err);
    },
  });
}
