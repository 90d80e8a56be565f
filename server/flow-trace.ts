// Opt-in timing of what a sync flow's latency is made of: each flow's stages (received, checks screened, queued for
// the flow writer, its statement sent and committed, the answer built), the main thread's GC pauses, the writer's
// statements, the matcher tasks and the worker's GIN merges, written to `${FLOW_TRACE_FILE}.${ROLE}.json` when the
// process exits. bench:flows sets it with BENCH_TRACE=1 and prints the slowest flows' make-up (bench/flow-tail.ts).
// Off unless FLOW_TRACE_FILE is set: every call is then one test of a constant. On, it keeps a small record a flow in
// memory until exit, so it is a bench tool, not for a service.
import { writeFileSync } from 'node:fs';
import { type PerformanceEntry, PerformanceObserver, performance } from 'node:perf_hooks';

/** A flow's stages, in the order they happen (performance.now() of the process, ms). */
export const FLOW_STAGES = [
  'received',
  'started',
  'screened',
  'queued',
  'sent',
  'committed',
  'stored',
  'answered',
] as const;
export type FlowStage = (typeof FLOW_STAGES)[number];

/** What one process wrote: times in ms of its performance.now(), `origin` its performance.timeOrigin (epoch ms). */
export interface FlowTraceFile {
  role: string;
  origin: number;
  /** flow id → the time of each FLOW_STAGES entry (null: not reached) */
  flows: [string, (number | null)[]][];
  /** [start, duration, kind] of each main-thread GC (kind: perf_hooks' NODE_PERFORMANCE_GC_*: 1 minor, 4 major) */
  gcs: [number, number, number][];
  /** [sent, committed, flows] of each flow-writer statement */
  statements: [number, number, number][];
  /** [submitted, settled, screens] of each matcher task */
  screenTasks: [number, number, number][];
  /** [start, end] of each GIN pending-list merge */
  merges: [number, number][];
}

const file = process.env.FLOW_TRACE_FILE;
const on = !!file;
/** Whether this process traces (FLOW_TRACE_FILE set). */
export const flowTracing = on;
const flows = new Map<string, (number | null)[]>();
const gcs: FlowTraceFile['gcs'] = [];
const statements: FlowTraceFile['statements'] = [];
const screenTasks: FlowTraceFile['screenTasks'] = [];
const merges: FlowTraceFile['merges'] = [];

if (on) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      gcs.push([
        e.startTime,
        e.duration,
        (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0,
      ]);
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const out: FlowTraceFile = {
      role: process.env.ROLE ?? 'all',
      origin: performance.timeOrigin,
      flows: [...flows],
      gcs,
      statements,
      screenTasks,
      merges,
    };
    writeFileSync(`${file}.${out.role}.json`, JSON.stringify(out));
  });
}

/** Now, on the trace's clock (0 when tracing is off). */
export const traceNow = (): number => (on ? performance.now() : 0);

/** Records that flow `id` reached `stage` at `at` (now by default). */
export function traceFlow(id: string, stage: FlowStage, at?: number): void {
  if (!on) return;
  let times = flows.get(id);
  if (!times) {
    times = FLOW_STAGES.map(() => null);
    flows.set(id, times);
  }
  times[FLOW_STAGES.indexOf(stage)] = at ?? performance.now();
}

/** A flow-writer statement that carried `n` flows, from `sent` to now. */
export function traceStatement(sent: number, n: number): void {
  if (on) statements.push([sent, performance.now(), n]);
}

/** A matcher task of `n` screens, from `submitted` to now. */
export function traceScreenTask(submitted: number, n: number): void {
  if (on) screenTasks.push([submitted, performance.now(), n]);
}

/** A GIN pending-list merge, from `start` to now. */
export function traceMerge(start: number): void {
  if (on) merges.push([start, performance.now()]);
}
