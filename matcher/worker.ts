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
