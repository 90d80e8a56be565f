// bench:flows' BENCH_TRACE breakdown (bench/flow-tail.ts): which flows are the slowest 1 %, what their stages took, and
// which of them overlapped a GC pause or a GIN merge, from traces shaped as server/flow-trace.ts writes them.
import { describe, expect, it } from 'vitest';
import { flowTailRows } from '../../bench/flow-tail.js';
import type { FlowTraceFile } from '../../server/flow-trace.js';

/** 200 flows received 5 ms apart from t = 1,000 (ms of the api's clock), each 4 ms long (2 of them in the statement),
 * but the two at 1,500 and 1,505, which wait 50 ms more in their statement, across a 30 ms mark-compact. */
function apiTrace(): FlowTraceFile {
  const flows: FlowTraceFile['flows'] = [];
  for (let i = 0; i < 200; i++) {
    const r = 1000 + 5 * i;
    const slow = r === 1500 || r === 1505;
    const committed = r + 3 + (slow ? 50 : 0);
    flows.push([`f${i}`, [r, r + 0.5, r + 1, r + 1, r + 1, committed, committed, committed + 1]]);
  }
  return {
    role: 'api',
    origin: 1_000_000,
    flows,
    gcs: [
      [1510, 30, 4],
      [1800, 2, 1],
    ],
    statements: [[1001, 1006, 1]],
    screenTasks: [[1000.5, 1001, 1]],
    merges: [],
  };
}

const row = (rows: [string, string][], start: string) => rows.find(([k]) => k.startsWith(start))?.[1];

describe('flow tail breakdown', () => {
  it('names the slowest 1 %, their stages, and the GC pause they overlapped', () => {
    const worker: FlowTraceFile = {
      role: 'worker',
      // the worker started 100 ms after the api: its merge at 1,700 of its clock is at 1,800 of the api's
      origin: 1_000_100,
      flows: [],
      gcs: [],
      statements: [],
      screenTasks: [],
      merges: [[1700, 1710]],
    };
    const rows = flowTailRows([apiTrace(), worker], 1_000_000, 1_010_000);
    expect(row(rows, 'flows traced')).toBe('200');
    expect(row(rows, 'server time')).toBe('4.0 / 4.0 / 54.0 / 54.0');
    expect(row(rows, 'statement sent → committed')).toBe('2.0 / 52.0, 52.0');
    expect(row(rows, 'queued → its statement sent')).toBe('0.0 / 0.0, 0.0');
    expect(row(rows, 'slowest 1 % / all flows overlapping a major GC (mark-compact) (1 in the phase')).toBe(
      '100 % / 4 %',
    );
    expect(row(rows, 'slowest 1 % / all flows overlapping a minor GC (scavenge) (1 in the phase')).toBe(
      '0 % / 1 %',
    );
    // the flows at 1,800 and 1,805 of the api's clock overlap the worker's merge
    expect(row(rows, 'slowest 1 % / all flows overlapping a GIN merge (1 in the phase')).toBe('0 % / 1 %');
    expect(row(rows, 'flow-writer statements')).toBe('1, 1.00, 5.0 / 5.0 / 5.0');
  });

  it('counts only the flows received in the phase', () => {
    const rows = flowTailRows([apiTrace()], 1_001_000, 1_001_099);
    expect(row(rows, 'flows traced')).toBe('20');
    expect(flowTailRows([apiTrace()], 2_000_000, 2_000_001)).toEqual([['flows traced in the phase', '0']]);
    expect(flowTailRows([], 0, 1)).toEqual([['flow trace', 'not written']]);
  });
});
