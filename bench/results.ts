// Bench results as data. Every bench run writes one JSON file, bench/results/<bench>-<UTC time>.json (what ran,
// when, on which commit and machine, at what load, its headline figures and the targets they answer to), and
// `npm run bench:report` renders the headline table at the top of bench/RESULTS.md from the newest file of each
// bench (bench/report.ts). Commit the file of a run worth keeping with the change it measures.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, from bench/ as source (vitest) or from dist/bench/ (compiled). */
export function repoRoot(): string {
  return rootAbove(dirname(fileURLToPath(import.meta.url)));
}

/** The nearest directory at or above `start` that holds a package.json; throws when there is none up to the
 * file system's root (a compiled bench copied out of the repository). */
export function rootAbove(start: string): string {
  let dir = resolve(start);
  while (!readdirSync(dir).includes('package.json')) {
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`no package.json at or above ${start}: run the bench from the repository`);
    dir = up;
  }
  return dir;
}

export const RESULTS_DIR = join(repoRoot(), 'bench', 'results');

/** One headline figure. A series of runs gives its median as `value` (unless `note` says otherwise), with its range
 * and count. */
export interface Figure {
  label: string;
  value: number;
  unit: string;
  min?: number;
  max?: number;
  runs?: number;
  note?: string;
}

/** A target a figure answers to: `figure` (a key of `figures`) `op` `value`. */
export interface Target {
  figure: string;
  op: '>=' | '<=';
  value: number;
}

export interface BenchResult {
  /** the npm script's name after `bench:` */
  bench: string;
  /** when the run ended, ISO 8601 UTC; for a transcribed series, when its last run ended */
  date: string;
  /** git HEAD the bench ran on (`+changes` when the work tree differed from it) */
  commit: string;
  machine: string;
  /** the 1-minute load average around the run (before and after; for a series, least and greatest); absent when
   * a transcribed run did not record it */
  load?: { min: number; max: number };
  /** `measured`: written by the bench itself; `transcribed`: copied by hand from a dated history file */
  source: 'measured' | 'transcribed';
  /** for a transcribed result, the history file and section it was copied from */
  from?: string;
  figures: Record<string, Figure>;
  targets: Target[];
  notes?: string;
}

/**
 * The targets each bench's figures answer to (from the issues that set them: #3, #6, #11, #14, #15, #29, #30, #33). A bench with
 * no entry reports figures only. Change a target here, with the issue that moved it.
 */
export const TARGETS: Record<string, Target[]> = {
  flows: [
    { figure: 'closed_flows_per_s', op: '>=', value: 1200 },
    { figure: 'open_p99_ms', op: '<=', value: 20 },
    { figure: 'closed_cpu_ms_per_flow', op: '<=', value: 0.8 },
  ],
  batch: [
    { figure: 'end_to_end_s', op: '<=', value: 20 },
    { figure: 'matcher_utilisation_pct', op: '>=', value: 70 },
  ],
  matcher: [
    // issue #30 raised F1, the perturbed recall and the false-positive bar, and set the links' precision
    { figure: 'f1_cases', op: '>=', value: 0.94 },
    { figure: 'cross_script', op: '>=', value: 22 },
    { figure: 'un_untreated_recall_pct', op: '>=', value: 99 },
    { figure: 'un_treated_recall_pct', op: '>=', value: 99 },
    { figure: 'congress_recall_pct', op: '>=', value: 98 },
    { figure: 'putin_spellings', op: '>=', value: 79 },
    { figure: 'negatives_fp_pct', op: '<=', value: 0.5 },
    { figure: 'perturbed_recall_pct', op: '>=', value: 98.5 },
    { figure: 'consolidation_precision_pct', op: '>=', value: 99 },
    { figure: 'negatives_p50_ms', op: '<=', value: 0.25 },
    { figure: 'negatives_p99_ms', op: '<=', value: 1 },
    { figure: 'brute_force_ratio', op: '>=', value: 1000 },
    { figure: 'synthetic_build_s', op: '<=', value: 60 },
    { figure: 'synthetic_index_mb', op: '<=', value: 1536 },
    { figure: 'synthetic_p99_ms', op: '<=', value: 5 },
  ],
  promotion: [
    { figure: 'non_2xx', op: '<=', value: 0 },
    { figure: 'p99_ratio', op: '<=', value: 2 },
    { figure: 'mixed_version_checks', op: '<=', value: 0 },
  ],
  'identity:faces': [
    { figure: 'auc_pairs', op: '>=', value: 0.99 },
    { figure: 'auc_pairs_pivot', op: '>=', value: 0.99 },
    { figure: 'tmr_at_fmr1_pct', op: '>=', value: 95 },
  ],
  'identity:documents': [
    { figure: 'accepted', op: '>=', value: 18 },
    { figure: 'specimens_exact', op: '>=', value: 4 },
    { figure: 'accepted_wrong_field', op: '<=', value: 0 },
    // issue #29, on a quiet machine
    { figure: 'p50_ms', op: '<=', value: 1500 },
    { figure: 'p99_ms', op: '<=', value: 5000 },
    { figure: 'first_ms', op: '<=', value: 3000 },
    // the capture step's synchronous verdict on one image
    { figure: 'quality_p99_ms', op: '<=', value: 1000 },
  ],
  journey: [
    { figure: 'interactive_ms', op: '<=', value: 2500 },
    { figure: 'page_js_gzip_kb', op: '<=', value: 150 },
    { figure: 'submit_p50_ms', op: '<=', value: 8000 },
    { figure: 'submit_p99_ms', op: '<=', value: 20000 },
  ],
};

/** The median of a series (its values in any order). */
/** The target of one figure as the bench prints it beside the figure ("target ≥ 0.94", "target ≤ 0.5 %"): printed from
 * TARGETS, so the printed line and the recorded verdict cannot disagree. */
export function targetText(bench: string, figure: string, unit = ''): string {
  const t = TARGETS[bench]?.find((x) => x.figure === figure);
  if (!t) throw new Error(`bench ${bench} has no target for ${figure}`);
  return `target ${t.op === '>=' ? '≥' : '≤'} ${t.value.toLocaleString('en')}${unit}`;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** A figure over a series of runs: median, range and count. */
export function series(label: string, unit: string, values: readonly number[], note?: string): Figure {
  return {
    label,
    unit,
    value: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values.length,
    ...(note ? { note } : {}),
  };
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot() }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot() })
      .toString()
      .trim();
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

export function machineName(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** The 1-minute load average now: take it before a run and pass it to `recordResult` as `loadBefore`. */
export function load1(): number {
  return Number((loadavg()[0] ?? 0).toFixed(2));
}

/** A file name's time part: 2026-11-24T01:37:00.000Z → 2026-11-24T0137Z. */
export function fileStamp(date: string): string {
  return `${date.slice(0, 10)}T${date.slice(11, 13)}${date.slice(14, 16)}Z`;
}

/**
 * Writes a measured run's result and returns its path. `loadBefore` is `load1()` taken before the run; the load
 * after is read now. `BENCH_RESULTS=0` writes nothing (an A/B run whose figures are not a bench's result).
 */
export function recordResult(
  bench: string,
  figures: Record<string, Figure>,
  opts: { loadBefore: number; notes?: string },
): string | undefined {
  if (process.env.BENCH_RESULTS === '0') return undefined;
  const after = load1();
  const result: BenchResult = {
    bench,
    date: new Date().toISOString(),
    commit: gitCommit(),
    machine: machineName(),
    load: { min: Math.min(opts.loadBefore, after), max: Math.max(opts.loadBefore, after) },
    source: 'measured',
    figures,
    targets: TARGETS[bench] ?? [],
    ...(opts.notes ? { notes: opts.notes } : {}),
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${bench.replaceAll(':', '-')}-${fileStamp(result.date)}.json`);
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`result written to ${path}; npm run bench:report puts it in bench/RESULTS.md\n`);
  return path;
}

/** Every result file under `dir`, parsed. */
export function readResults(dir = RESULTS_DIR): BenchResult[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.sort().map((n) => JSON.parse(readFileSync(resolve(dir, n), 'utf8')) as BenchResult);
}
