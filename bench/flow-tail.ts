// What the slowest flows of a bench:flows phase are made of (BENCH_TRACE=1): the api's and the worker's
// FLOW_TRACE_FILE records (server/flow-trace.ts) over the phase's wall-clock window, as table rows: the server time of
// every flow and of the slowest 1 %, each stage's share, and how many of the slowest overlapped a main-thread GC pause
// or a GIN merge against all flows. Server time only: a request waiting in the load generator for a free connection is
// not in it.
import { existsSync, readFileSync } from 'node:fs';
import { FLOW_STAGES, type FlowTraceFile } from '../server/flow-trace.js';

/** The api's (or the one all-roles process's) trace and the worker's, when written. */
export function readFlowTraces(prefix: string): FlowTraceFile[] {
  return ['api', 'worker', 'all']
    .map((role) => `${prefix}.${role}.json`)
    .filter((f) => existsSync(f))
    .map((f) => JSON.parse(readFileSync(f, 'utf8')) as FlowTraceFile);
}

/** An event on the epoch clock, [start, end] in ms. */
type Span = [number, number];

const quantile = (sorted: number[], q: number): number =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) : Number.NaN;
const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const ms = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');
const pct = (part: number, all: number): string => (all ? `${Math.round((100 * part) / all)} %` : '–');
const overlaps = (a: Span, spans: Span[]): boolean => spans.some((s) => s[0] < a[1] && s[1] > a[0]);

/** The stages between two FLOW_STAGES entries that the table names. */
const PARTS: [label: string, from: (typeof FLOW_STAGES)[number], to: (typeof FLOW_STAGES)[number]][] = [
  ['received → flow started (auth, body, validation)', 'received', 'started'],
  ['flow started → screened (template, matcher hand-off and screen)', 'started', 'screened'],
  ['screened → queued for the writer (records, alert memory, graph)', 'screened', 'queued'],
  ['queued → its statement sent (waiting for the one in flight)', 'queued', 'sent'],
  ['statement sent → committed', 'sent', 'committed'],
  ['committed → answered (resume, reply built)', 'committed', 'answered'],
];

/** Rows [what, value] describing the flows received in [from, to] (epoch ms). */
export function flowTailRows(traces: FlowTraceFile[], from: number, to: number): [string, string][] {
  const api = traces.find((t) => t.role !== 'worker');
  if (!api) return [['flow trace', 'not written']];
  const at = (t: number) => api.origin + t;
  const idx = (s: (typeof FLOW_STAGES)[number]) => FLOW_STAGES.indexOf(s);
  const flows = api.flows
    .map(([, times]) => times)
    .filter((t) => {
      const r = t[idx('received')];
      return r != null && t[idx('answered')] != null && at(r) >= from && at(r) <= to;
    }) as number[][];
  if (!flows.length) return [['flows traced in the phase', '0']];
  const total = (t: number[]) => (t[idx('answered')] as number) - (t[idx('received')] as number);
  const byTotal = [...flows].sort((a, b) => total(a) - total(b));
  const totals = byTotal.map(total);
  const slow = byTotal.slice(Math.floor(0.99 * byTotal.length));
  const rows: [string, string][] = [
    ['flows traced in the phase (server side)', String(flows.length)],
    [
      'server time p50 / p90 / p99 / max ms',
      [0.5, 0.9, 0.99, 1].map((q) => ms(quantile(totals, q))).join(' / '),
    ],
  ];
  for (const [label, a, b] of PARTS) {
    const part = (t: number[]) => (t[idx(b)] ?? Number.NaN) - (t[idx(a)] ?? Number.NaN);
    const all = flows
      .map(part)
      .filter(Number.isFinite)
      .sort((x, y) => x - y);
    const ofSlow = slow.map(part).filter(Number.isFinite);
    rows.push([
      `${label}: p50 / p99 ms, mean in the slowest 1 %`,
      `${ms(quantile(all, 0.5))} / ${ms(quantile(all, 0.99))}, ${ms(mean(ofSlow))}`,
    ]);
  }
  const spanOf = (t: number[]): Span => [at(t[idx('received')] as number), at(t[idx('answered')] as number)];
  const gcSpans = (kind: (k: number) => boolean): Span[] =>
    api.gcs.filter((g) => kind(g[2])).map((g) => [at(g[0]), at(g[0] + g[1])]);
  const worker = traces.find((t) => t.role === 'worker') ?? api;
  const events: [string, Span[]][] = [
    ['a minor GC (scavenge)', gcSpans((k) => k === 1)],
    ['a major GC (mark-compact)', gcSpans((k) => k !== 1)],
    ['a GIN merge', worker.merges.map(([s, e]): Span => [worker.origin + s, worker.origin + e])],
  ];
  for (const [name, spans] of events) {
    const inPhase = spans.filter((s) => s[1] >= from && s[0] <= to);
    const longest = Math.max(0, ...inPhase.map((s) => s[1] - s[0]));
    rows.push([
      `slowest 1 % / all flows overlapping ${name} (${inPhase.length} in the phase, longest ${ms(longest)} ms)`,
      `${pct(slow.filter((t) => overlaps(spanOf(t), spans)).length, slow.length)} / ${pct(
        flows.filter((t) => overlaps(spanOf(t), spans)).length,
        flows.length,
      )}`,
    ]);
  }
  const within = <T extends [number, number, number]>(xs: T[]) =>
    xs.filter((x) => at(x[0]) >= from && at(x[0]) <= to);
  for (const [name, xs, unit] of [
    ['flow-writer statements', within(api.statements), 'flows'],
    ['matcher tasks', within(api.screenTasks), 'screens'],
  ] as const) {
    const d = xs.map((x) => x[1] - x[0]).sort((a, b) => a - b);
    rows.push([
      `${name}: count, ${unit} each, p50 / p99 / max ms`,
      `${xs.length}, ${mean(xs.map((x) => x[2])).toFixed(2)}, ${ms(quantile(d, 0.5))} / ${ms(quantile(d, 0.99))} / ${ms(quantile(d, 1))}`,
    ]);
  }
  return rows;
}
