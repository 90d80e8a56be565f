// The matcher's speed work, measured without the rest of bench:matcher: all lists in one index, the 100k yente
// negatives screened with bench:matcher's options.
//   node dist/bench/matcher-ab.js hash        sha256 of every match (entity, score, matched name, features, query
//                                             name, threshold) of the negatives at the default threshold and at the
//                                             curve's 0.70, and of the UN/Congress positives at 0.70: quality
//                                             unchanged ⇔ same hash
//   node dist/bench/matcher-ab.js prof [N]    N negatives (default 30,000) after a warm-up, for node --cpu-prof
//   BENCH_BEFORE=/path/to/other/dist node dist/bench/matcher-ab.js ab [N]
//                                             CPU per screen of this build and the other one, alternating blocks
//                                             of 500 of N negatives (default 40,000) in this process
//                                             (one heap for both: blind to what a change does to the garbage
//                                             collector's work, e.g. pretenuring; compare separate processes then)
//   BENCH_WARM=N                              N negatives screened before timing (default 2,000; 100000 leaves
//                                             the caches and the heap as bench:matcher's brute-force line finds them)
//   BENCH_SET=sample with prof or ab          bench:matcher's brute-force sample instead (100 negatives, 100 UN
//                                             treated; N passes over it, default 50, blocks of one pass), the
//                                             sample its ≥ 1,000× line is timed on
//   BENCH_EPOCHS=k with prof                  the timed blocks in k groups, each after two full collections (as
//                                             bench:matcher's CPU-time line): prints each group's figure too
//   node dist/bench/matcher-ab.js seq [N]     bench:matcher's brute-force section in order on the sample (N passes
//                                             timed, BENCH_FUZZ=q fuzzball queries, BENCH_GC=1 two full
//                                             collections, N passes timed twice more); BENCH_CYCLES=c first times
//                                             c × (N passes, two full collections unless BENCH_NOGC=1, N passes)
//   node dist/bench/matcher-ab.js build [N] [R]
//                                             bench:matcher's synthetic list of N entities (default 200,000) built R
//                                             times (default 1), generated as it is indexed (as bench:matcher times
//                                             it): CPU per build (process, GC threads included) and sha256 of the
//                                             index (every buffer and the metadata but its build time: index
//                                             unchanged ⇔ same hash); with BENCH_BEFORE the other build's too,
//                                             alternating who goes first; BENCH_SET=lists: the real lists instead
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AML_DATASETS, type Entity } from '../ingest/entity.js';
import type { IndexData, Screener, ScreenOptions, ScreenSubject } from '../matcher/index.js';
import * as ours from '../matcher/index.js';
import {
  bruteSample,
  LISTS,
  loadList,
  negativeSubjects,
  readTable,
  subjectOf,
  syntheticSet,
  YENTE_BENCH,
} from './matcher-data.js';

type Matcher = Pick<typeof ours, 'buildIndex' | 'openIndex' | 'DEFAULT_POLICY'>;

const mode = process.argv[2] ?? 'hash';
const onSample = process.env.BENCH_SET === 'sample';
const n = Number(process.argv[3] ?? (onSample ? 50 : mode === 'ab' ? 40_000 : 30_000));
const log = (s: string): void => {
  process.stderr.write(
    `[matcher-ab] ${s} (load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})\n`,
  );
};

/** V8's gc(), as bench:matcher gets it. */
const exposeGc = (): (() => void) => {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};
/** sha256 of an index: its buffers by name and its metadata but the build time. */
const indexHash = (idx: IndexData): string => {
  const h = createHash('sha256');
  for (const name of Object.keys(idx.buffers).sort()) {
    h.update(name);
    h.update(new Uint8Array(idx.buffers[name]!));
  }
  const { build_ms: _, ...meta } = idx.meta;
  h.update(JSON.stringify(meta));
  return h.digest('hex').slice(0, 16);
};

/** The real lists' entities, as the other modes index them. */
async function listEntities(): Promise<Entity[]> {
  const all: Entity[] = [];
  for (const l of LISTS) all.push(...((await loadList(l.format, l.path)) ?? []));
  return all;
}

if (mode === 'build') {
  const count = Number(process.argv[3] ?? 200_000);
  const rounds = Number(process.argv[4] ?? 1);
  const gcFn = exposeGc();
  const sides: { label: string; m: Matcher; cpu: number; builds: number; hash: string }[] = [
    { label: 'after', m: ours, cpu: 0, builds: 0, hash: '' },
  ];
  if (process.env.BENCH_BEFORE) {
    const url = pathToFileURL(path.join(process.env.BENCH_BEFORE, 'matcher/index.js')).href;
    sides.unshift({ label: 'before', m: (await import(url)) as Matcher, cpu: 0, builds: 0, hash: '' });
  }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      const lists = process.env.BENCH_SET === 'lists' ? await listEntities() : undefined;
      gcFn();
      gcFn();
      // the synthetic list generated as it is indexed, as bench:matcher times it
      const t = process.cpuUsage();
      const idx = side.m.buildIndex(lists ?? syntheticSet(count).entities(), 'synthetic') as IndexData;
      const u = process.cpuUsage(t);
      side.cpu += (u.user + u.system) / 1000;
      side.builds++;
      side.hash = indexHash(idx);
      log(`${side.label}: build ${((u.user + u.system) / 1000).toFixed(0)} ms CPU, index ${side.hash}`);
    }
  }
  for (const s of sides)
    log(
      `${s.label}: ${process.env.BENCH_SET === 'lists' ? 'the lists' : `${count} entities`}, ${(s.cpu / s.builds / 1000).toFixed(2)} s CPU per build, index ${s.hash}`,
    );
  process.exit(0);
}

const entities: Entity[] = [];
for (const l of LISTS) entities.push(...((await loadList(l.format, l.path)) ?? []));
const negatives = negativeSubjects();
const options = (m: Matcher): ScreenOptions => ({
  datasets: [...AML_DATASETS],
  policy: m.DEFAULT_POLICY,
  limit: 10,
});
/** This (the main) thread's CPU time in ms, as bench:matcher's brute-force line reads it (schedstat run time), or
 * the process's where /proc is not there. */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const threadCpuMs = (): number => {
  if (!existsSync(SCHEDSTAT)) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;
};
const open = (m: Matcher): Screener => m.openIndex(m.buildIndex(entities, 'all') as IndexData);
log(`${entities.length} entities, ${negatives.length} negatives`);

/** The warm-up and the timed blocks of prof and ab: the negatives after the first 2,000 in blocks of 500, or passes
 * over the brute-force sample (after the 2,000 negatives and two passes). */
function workload(): { warm: ScreenSubject[]; blocks: ScreenSubject[][]; unit: string } {
  const warm = negatives.slice(0, Number(process.env.BENCH_WARM ?? 2000));
  const blocks: ScreenSubject[][] = [];
  if (onSample) {
    const { negSample, posSample } = bruteSample(negatives, 200);
    const sample = [...negSample, ...posSample];
    warm.push(...sample, ...sample);
    for (let i = 0; i < n; i++) blocks.push(sample);
    return { warm, blocks, unit: `${n} passes over the brute-force sample (${sample.length} queries)` };
  }
  const qs = negatives.slice(2000, 2000 + n);
  for (let b = 0; b * 500 < qs.length; b++) blocks.push(qs.slice(b * 500, (b + 1) * 500));
  return { warm, blocks, unit: `${qs.length} negatives, blocks of 500` };
}

if (mode === 'hash') {
  const sc = open(ours);
  const opt = options(ours);
  const curve: ScreenOptions = { ...opt, min_score: 0.7 };
  const positives = [
    ...readTable(YENTE_BENCH + 'positives_un_untreated.csv'),
    ...readTable(YENTE_BENCH + 'positives_un_treated.csv'),
    ...readTable(YENTE_BENCH + 'positives_us_congress_untreated.csv'),
  ].map(subjectOf);
  const runs: [string, ScreenSubject[], ScreenOptions][] = [
    ['negatives at the default threshold', negatives, opt],
    ['negatives at 0.70', negatives, curve],
    ['positives at 0.70', positives, curve],
  ];
  const all = createHash('sha256');
  for (const [label, subjects, o] of runs) {
    const h = createHash('sha256');
    let matches = 0;
    for (const s of subjects) {
      const r = sc.screen(s, o);
      const line = r.matches.map((m) => [
        m.entity_id,
        m.score,
        m.evidence.matched_name,
        m.evidence.query_name,
        m.evidence.threshold,
        m.evidence.features,
      ]);
      matches += r.matches.length;
      h.update(`${JSON.stringify(line)}\n`);
    }
    const d = h.digest('hex');
    all.update(d);
    process.stdout.write(
      `${label}: ${subjects.length} queries, ${matches} matches, sha256 ${d.slice(0, 16)}\n`,
    );
  }
  process.stdout.write(`all: sha256 ${all.digest('hex').slice(0, 16)}\n`);
} else if (mode === 'prof') {
  const sc = open(ours);
  const opt = options(ours);
  const { warm, blocks, unit } = workload();
  for (const s of warm) sc.screen(s, opt);
  // BENCH_EPOCHS=k: the blocks in k groups, each after two full collections and one untimed block, as
  // bench:matcher's CPU-time line times ours (a full collection moves the heap, and the figure with it)
  const epochs = Math.max(1, Number(process.env.BENCH_EPOCHS ?? 1));
  const gcFn = epochs > 1 ? exposeGc() : undefined;
  log('warm-up done, timing');
  let count = 0;
  let cpu = 0;
  let th = 0;
  const per: string[] = [];
  for (let g = 0; g < epochs; g++) {
    const group = blocks.slice(
      Math.floor((g * blocks.length) / epochs),
      Math.floor(((g + 1) * blocks.length) / epochs),
    );
    if (gcFn) {
      gcFn();
      gcFn();
      for (const s of group[0] ?? []) sc.screen(s, opt);
    }
    let c = 0;
    const t = process.cpuUsage();
    const th0 = threadCpuMs();
    for (const block of group) {
      for (const s of block) sc.screen(s, opt);
      c += block.length;
    }
    const dth = threadCpuMs() - th0;
    const u = process.cpuUsage(t);
    cpu += (u.user + u.system) / 1000;
    th += dth;
    count += c;
    per.push((dth / Math.max(1, c)).toFixed(4));
  }
  log(
    `${unit}: ${(cpu / count).toFixed(4)} ms CPU per screen (main thread ${(th / count).toFixed(4)} ms` +
      `${epochs > 1 ? `; ${epochs} groups after a GC each: ${per.join(', ')}` : ''})`,
  );
} else if (mode === 'ab') {
  const beforeDir = process.env.BENCH_BEFORE;
  if (!beforeDir) throw new Error('ab needs BENCH_BEFORE=<the other build’s dist directory>');
  const before = (await import(pathToFileURL(path.join(beforeDir, 'matcher/index.js')).href)) as Matcher;
  const sides: { label: string; sc: Screener; opt: ScreenOptions; cpu: number; count: number }[] = [
    { label: 'before', sc: open(before), opt: options(before), cpu: 0, count: 0 },
    { label: 'after', sc: open(ours), opt: options(ours), cpu: 0, count: 0 },
  ];
  const { warm, blocks, unit } = workload();
  for (const side of sides) for (const s of warm) side.sc.screen(s, side.opt);
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    // alternate which side goes first, so neither always follows the other's garbage
    for (const side of b % 2 === 0 ? sides : [...sides].reverse()) {
      const t = process.cpuUsage();
      for (const s of block) side.sc.screen(s, side.opt);
      const u = process.cpuUsage(t);
      side.cpu += (u.user + u.system) / 1000;
      side.count += block.length;
    }
  }
  const [b, a] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const per = (s: typeof b): number => s.cpu / s.count;
  log(
    `CPU per screen over ${unit}, alternating: before ${per(b).toFixed(4)} ms, ` +
      `after ${per(a).toFixed(4)} ms, ratio ${(per(a) / per(b)).toFixed(3)}`,
  );
} else if (mode === 'seq') {
  // bench:matcher's brute-force section in order, to see what it does to our figure: the sample timed (main
  // thread CPU, OUR passes), then fuzzball's loop over BENCH_FUZZ queries of it (its garbage), then (BENCH_GC=1) two
  // full collections as the bench does, one untimed pass, and the sample timed again
  const fuzz = await import('fuzzball');
  const gcFn = exposeGc();
  const sc = open(ours);
  const opt = options(ours);
  const { negSample, posSample } = bruteSample(negatives, 200);
  const sample = [...negSample, ...posSample];
  const warm = negatives.slice(0, Number(process.env.BENCH_WARM ?? 2000));
  for (const s of warm) sc.screen(s, opt);
  for (const s of sample) sc.screen(s, opt);
  const timed = (label: string): void => {
    const t0 = threadCpuMs();
    for (let pass = 0; pass < n; pass++) for (const s of sample) sc.screen(s, opt);
    log(`${label}: ${((threadCpuMs() - t0) / (n * sample.length)).toFixed(4)} ms main-thread CPU per screen`);
  };
  if (process.env.BENCH_CYCLES) {
    for (let c = 0; c < Number(process.env.BENCH_CYCLES); c++) {
      timed(`cycle ${c} pre-gc`);
      if (process.env.BENCH_NOGC !== '1') {
        gcFn();
        gcFn();
      }
      for (const s of sample) sc.screen(s, opt);
      timed(`cycle ${c} post-gc`);
    }
  }
  timed(`before fuzzball, ${n} passes`);
  const nFuzz = Number(process.env.BENCH_FUZZ ?? 0);
  if (nFuzz > 0) {
    const proc = (s: string): string =>
      fuzz.full_process(s, { force_ascii: false }).split(' ').filter(Boolean).sort().join(' ');
    const choices: string[] = [];
    for (const e of entities)
      for (const nm of e.names) {
        const p = proc(nm.value);
        if (p) choices.push(p);
      }
    let sink = 0;
    for (let si = 0; si < nFuzz; si++) {
      const q = proc(sample[(si * 7) % sample.length]!.name);
      for (const c of choices) sink += fuzz.ratio(q, c, { full_process: false });
    }
    log(`fuzzball over ${nFuzz} queries (${sink})`);
  }
  if (process.env.BENCH_GC === '1') {
    gcFn();
    gcFn();
  }
  for (const s of sample) sc.screen(s, opt);
  timed(`after, ${n} passes`);
  timed(`again, ${n} passes`);
} else throw new Error(`unknown mode ${mode}: hash, prof, ab or seq`);
