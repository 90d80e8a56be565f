import { type RunningWorker, runWorker } from '../bus/jetstream.js';
import type { Logger } from '../log.js';
import { type FlowDeps, type FlowJob, giveUpFlowJob, handleFlowJob } from './flow-service.js';

/** How long a delivery may go silent before JetStream hands it to another worker (a killed worker's job is
 * redelivered after this); live handlers heartbeat well within it. */
export const FLOW_JOB_ACK_WAIT_MS = 5_000;

/** Runs flow_process jobs queued by POST /v1/flows/{id}/process, on whichever worker process takes them. */
export function startFlowWorker(deps: FlowDeps & { log: Logger }): Promise<RunningWorker> {
  return runWorker<FlowJob>(deps.bus, deps.log, {
    kind: 'flow_process',
    max_deliver: 5,
    backoff_ms: [200, 1_000, 5_000, 15_000],
    ack_wait_ms: FLOW_JOB_ACK_WAIT_MS,
    concurrency: 8,
    async handle(job) {
      await handleFlowJob(deps, job);
    },
    async onGiveUp(job, err) {
      await giveUpFlowJob(deps, job, err);
    },
  });
}
