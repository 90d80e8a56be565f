// Piscina worker: wraps the SharedArrayBuffers posted as workerData.index (no copy) once per thread.
import { writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { AML_DATASETS } from '../ingest/entity.js';
import { DEFAULT_POLICY } from './policy.js';
import { openIndex } from './screen.js';
import { MATCHER_THREAD_NAME } from './thread-name.js';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from './types.js';

try {
  writeFileSync('/proc/thread-self/comm', MATCHER_THREAD_NAME);
} catch {
  // not Linux, or no /proc: the threads keep their default name
}

const screener = openIndex((workerData as { index: IndexData }).index);

export default function screenTask(task: { subject: ScreenSubject; options: ScreenOptions }): ScreenResult {
  const started = performance.now();
  const result = screener.screen(task.subject, task.options);
  result.screen_ms = performance.now() - started;
  return result;
}

/** Several screens, each with its own options, in one task (concurrent requests micro-batched by the pool): one
 * message each way instead of one per screen. Results in the order of `items`. */
export function screenEach(task: {
  items: { subject: ScreenSubject; options: ScreenOptions }[];
}): ScreenResult[] {
  return task.items.map(screenTask);
}

/** Names of the shapes screens meet (person, company, vessel-like, Cyrillic, Han), for the readiness probe. */
const WARM_NAMES = [
  'Vladimir Putin',
  'Maria Gonzalez Lopez',
  'Ali Hassan',
  'ACME TRADING COMPANY LIMITED',
  'Ocean Star',
  'Иван Петров',
  '习近平',
];

/** The pool's readiness probe: answers once this thread has opened the index (module load) and run a few screens
 * through every scoring path, so the first screens a new generation serves do not also pay for compiling them. */
export function ready(): boolean {
  const options: ScreenOptions = { datasets: AML_DATASETS, policy: DEFAULT_POLICY };
  for (let round = 0; round < 20; round++) for (const name of WARM_NAMES) screener.screen({ name }, options);
  return true;
}
