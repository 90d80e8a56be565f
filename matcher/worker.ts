// Piscina worker: wraps the SharedArrayBuffers posted as workerData.index (no copy) once per thread.
import { workerData } from 'node:worker_threads';
import { openIndex } from './screen.js';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from './types.js';

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

/** Answers once this thread has opened the index (module load): the pool's readiness probe. */
export function ready(): boolean {
  return true;
}
