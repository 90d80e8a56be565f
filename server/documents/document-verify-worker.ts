import { type RunningWorker, runWorker } from '../bus/jetstream.js';
import { type DocumentDeps, verifyDocument } from './document-service.js';

/** Verifies completed uploads (HeadObject, size, magic bytes) on whichever worker process takes the job. */
export function startDocumentVerifyWorker(deps: DocumentDeps): Promise<RunningWorker> {
  return runWorker<{ document_id: string }>(deps.bus, deps.log, {
    kind: 'document_verify',
    max_deliver: 8,
    backoff_ms: [1_000, 5_000, 30_000],
    ack_wait_ms: 30_000,
    concurrency: 4,
    async handle({ document_id }, { log }) {
      const status = await verifyDocument({ ...deps, log }, document_id);
      log.debug({ status }, 'document verified');
    },
    async onGiveUp(_job, err, log) {
      // S3 unreachable for long: the document stays `uploaded`; calling complete again re-queues it
      log.error({ err }, 'document verification gave up');
    },
  });
}
