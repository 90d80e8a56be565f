// bench/RESULTS.md's headline table is data rendered by a template: these cases hold the template's rules, and the
// last one holds the document to the files it is rendered from.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  latest,
  met,
  REPORT_END,
  REPORT_START,
  RESULTS_MD,
  renderReport,
  replaceReport,
} from '../../bench/report.js';
import { type BenchResult, readResults, series } from '../../bench/results.js';

const result = (over: Partial<BenchResult> & Pick<BenchResult, 'bench' | 'date'>): BenchResult => ({
  commit: 'abc1234',
  machine: 'test',
  load: { min: 1, max: 2 },
  source: 'measured',
  figures: {},
  targets: [],
  ...over,
});

describe('bench report', () => {
  it.each([
    { op: '>=' as const, target: 1200, value: 1200, met: true },
    { op: '>=' as const, target: 1200, value: 1199, met: false },
    { op: '<=' as const, target: 20, value: 20, met: true },
    { op: '<=' as const, target: 20, value: 20.5, met: false },
  ])('$value against $op $target is met: $met', ({ op, target, value, met: expected }) => {
    expect(met({ label: 'x', unit: '', value }, { figure: 'x', op, value: target })).toBe(expected);
  });

  it('a series is its median, with its range and run count', () => {
    expect(series('rate', 'flows/s', [3, 1, 2, 10])).toMatchObject({ value: 2.5, min: 1, max: 10, runs: 4 });
  });

  it('shows the newest result of a bench, and a target figure it lacks from the newest older run that has it', () => {
    const targets = [
      { figure: 'a', op: '>=' as const, value: 1 },
      { figure: 'b', op: '<=' as const, value: 5 },
    ];
    const old = result({
      bench: 'x',
      date: '2026-01-01T00:00:00.000Z',
      targets,
      figures: { a: { label: 'A', unit: '', value: 0 }, b: { label: 'B', unit: 's', value: 4 } },
    });
    const newer = result({
      bench: 'x',
      date: '2026-01-02T00:00:00.000Z',
      targets,
      figures: { a: { label: 'A', unit: '', value: 2 } },
    });
    const [shown] = latest([newer, old]);
    expect(shown?.runs.map((r) => [r.date.slice(0, 10), Object.keys(r.figures)])).toEqual([
      ['2026-01-02', ['a']],
      ['2026-01-01', ['b']],
    ]);
    const md = renderReport([old, newer]);
    expect(md).toContain('2 of 2 targets met');
    expect(md).toMatch(/\| \*\*x\*\* \| A \| 2 \| ≥ 1 \| ✔ \| 2026-01-02 00:00 UTC, abc1234, load 1–2 \|/);
    expect(md).toMatch(/\| {2}\| B \| 4 s \| ≤ 5 \| ✔ \| older run: 2026-01-01 00:00 UTC/);
  });

  it('says when a transcribed run recorded no load average', () => {
    const md = renderReport([
      result({
        bench: 'y',
        date: '2026-01-01T00:00:00.000Z',
        load: undefined,
        source: 'transcribed',
        from: 'bench/history/y.md',
        figures: { f: { label: 'F', unit: 'ms', value: 1.25 } },
      }),
    ]);
    expect(md).toContain('load not recorded; transcribed from bench/history/y.md');
  });

  it('every result file names its bench, time, commit, machine and figures', () => {
    const results = readResults();
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(r.date, r.bench).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.commit, r.bench).toBeTruthy();
      expect(r.machine, r.bench).toBeTruthy();
      expect(Object.keys(r.figures).length, r.bench).toBeGreaterThan(0);
      if (r.source === 'transcribed') expect(r.from, r.bench).toMatch(/^bench\/history\//);
      for (const t of r.targets) expect(['>=', '<='], r.bench).toContain(t.op);
    }
  });

  it('bench/RESULTS.md shows what the result files render (run npm run bench:report after adding one)', () => {
    const doc = readFileSync(RESULTS_MD, 'utf8');
    expect(doc.indexOf(REPORT_START)).toBeGreaterThan(0);
    expect(doc.indexOf(REPORT_END)).toBeGreaterThan(doc.indexOf(REPORT_START));
    expect(replaceReport(doc, renderReport(readResults()))).toBe(doc);
  });
});
