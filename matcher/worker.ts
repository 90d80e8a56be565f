// Piscina worker: wraps the SharedArrayBuffers posted as workerData.index (no copy) once per thread.
import { workerData } from 'node:worker_threads';
import { openIndex } from './screen.js';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from './types.js';

const screener = openIndex((workerData as { index: IndexData }).index);

export default function screenTask(task: { subject: ScreenSubject; options: ScreenOptions }): ScreenResult {
  return screener.screen(task.subject, task.options);
}
