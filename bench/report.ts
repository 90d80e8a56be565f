// npm run bench:report — the headline table at the top of bench/RESULTS.md, rendered from bench/results/*.json:
// the newest result of each bench, each figure against its target, met or not. Data → template: the table is
// never edited by hand (test/bench/report.test.ts fails when it differs from what the files render).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BenchResult, type Figure, readResults, repoRoot, type Target } from './results.js';

export const REPORT_START = '<!-- bench:report start: rendered by `npm run bench:report`, do not edit -->';
export const REPORT_END = '<!-- bench:report end -->';

/** Benches in the order a reader looks for them; a bench not listed comes after, by name. */
const ORDER = [
  'flows',
  'floor',
  'http',
  'batch',
  'promotion',
  'matcher',
  'applicants',
  'identity:documents',
  'identity:faces',
  'identity:flow',
];

export function fmt(n: number): string {
  if (Number.isInteger(n)) return n.toLocaleString('en');
  const digits = Math.abs(n) >= 1000 ? 0 : Math.abs(n) >= 100 ? 1 : Math.abs(n) >= 1 ? 2 : 3;
  return Number(n.toFixed(digits)).toLocaleString('en', { maximumFractionDigits: digits });
}

function figureText(f: Figure): string {
  const unit = f.unit ? ` ${f.unit}` : '';
  const range =
    f.runs !== undefined && f.runs > 1 && f.min !== undefined && f.max !== undefined
      ? ` (${fmt(f.min)}–${fmt(f.max)}, ${f.runs} runs)`
      : '';
  return `${fmt(f.value)}${unit}${range}`;
}

export function met(f: Figure, t: Target): boolean {
  return t.op === '>=' ? f.value >= t.value : f.value <= t.value;
}

const rank = (b: string) => (ORDER.includes(b) ? ORDER.indexOf(b) : ORDER.length);

/**
 * What the table shows of each bench: its newest result, and, for a target figure that result lacks (a run that
 * left a part out), the newest older result that has it.
 */
export function latest(results: readonly BenchResult[]): { bench: string; runs: BenchResult[] }[] {
  const byBench = new Map<string, BenchResult[]>();
  for (const r of [...results].sort((a, b) => b.date.localeCompare(a.date)))
    byBench.set(r.bench, [...(byBench.get(r.bench) ?? []), r]);
  return [...byBench.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([bench, newestFirst]) => {
      const [newest, ...older] = newestFirst as [BenchResult, ...BenchResult[]];
      const runs = [newest];
      const shown = new Set(Object.keys(newest.figures));
      for (const r of older) {
        const missing = r.targets.filter((t) => !shown.has(t.figure) && r.figures[t.figure]);
        if (!missing.length) continue;
        runs.push({
          ...r,
          figures: Object.fromEntries(missing.map((t) => [t.figure, r.figures[t.figure] as Figure])),
        });
        for (const t of missing) shown.add(t.figure);
      }
      return { bench, runs };
    });
}

function runText(r: BenchResult): string {
  const load = !r.load
    ? 'load not recorded'
    : `load ${r.load.min === r.load.max ? fmt(r.load.min) : `${fmt(r.load.min)}–${fmt(r.load.max)}`}`;
  const how = r.source === 'transcribed' ? `; transcribed from ${r.from ?? 'the history'}` : '';
  return `${r.date.slice(0, 16).replace('T', ' ')} UTC, ${r.commit}, ${load}${how}`;
}

/** The markdown between the report markers. */
export function renderReport(results: readonly BenchResult[]): string {
  const rows: string[] = [];
  const notes: string[] = [];
  let targets = 0;
  let metCount = 0;
  for (const { bench, runs } of latest(results)) {
    runs.forEach((r, ri) => {
      Object.entries(r.figures).forEach(([key, f], i) => {
        const t = r.targets.find((x) => x.figure === key);
        const ok = t ? met(f, t) : undefined;
        if (t) targets++;
        if (ok) metCount++;
        const target = t ? `${t.op === '>=' ? '≥' : '≤'} ${fmt(t.value)}` : '';
        const verdict = ok === undefined ? '' : ok ? '✔' : '✘';
        const first = i === 0;
        rows.push(
          `| ${first && ri === 0 ? `**${bench}**` : ''} | ${f.label} | ${figureText(f)} | ${target} | ${verdict} | ${first ? `${ri > 0 ? 'older run: ' : ''}${runText(r)}` : ''} |`,
        );
        if (f.note) notes.push(`- ${bench}, ${f.label}: ${f.note}`);
      });
      if (r.notes) notes.push(`- ${bench}${ri > 0 ? ' (older run)' : ''}: ${r.notes}`);
    });
  }
  return [
    `The newest result of each bench: ${metCount} of ${targets} targets met.`,
    '',
    '| bench | figure | latest | target | met | run |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...(notes.length ? ['', ...notes] : []),
  ].join('\n');
}

/** `doc` with the block between the markers replaced by `body`. */
export function replaceReport(doc: string, body: string): string {
  const start = doc.indexOf(REPORT_START);
  const end = doc.indexOf(REPORT_END);
  if (start < 0 || end < start) throw new Error('bench/RESULTS.md has no report markers');
  return `${doc.slice(0, start + REPORT_START.length)}\n${body}\n${doc.slice(end)}`;
}

export const RESULTS_MD = join(repoRoot(), 'bench', 'RESULTS.md');

function main(): void {
  const doc = readFileSync(RESULTS_MD, 'utf8');
  const next = replaceReport(doc, renderReport(readResults()));
  writeFileSync(RESULTS_MD, next);
  process.stdout.write(next === doc ? 'bench/RESULTS.md is up to date\n' : 'bench/RESULTS.md rewritten\n');
}

if (process.argv[1]?.endsWith('report.js')) main();
