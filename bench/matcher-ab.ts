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
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AML_DATASETS, type Entity } from '../ingest/entity.js';
import type { IndexData, Screener, ScreenOptions, ScreenSubject } from '../matcher/index.js';
import * as ours from '../matcher/index.js';
import { LISTS, loadList, negativeSubjects, readTable, subjectOf, YENTE_BENCH } from './matcher-data.js';

type Matcher = Pick<typeof ours, 'buildIndex' | 'openIndex' | 'DEFAULT_POLICY'>;

const mode = process.argv[2] ?? 'hash';
const n = Number(process.argv[3] ?? (mode === 'ab' ? 40_000 : 30_000));
const log = (s: string): void => {
  process.stderr.write(
    `[matcher-ab] ${s} (load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})\n`,
  );
};

const entities: Entity[] = [];
for (const l of LISTS) entities.push(...((await loadList(l.format, l.path)) ?? []));
const negatives = negativeSubjects();
const options = (m: Matcher): ScreenOptions => ({
  datasets: [...AML_DATASETS],
  policy: m.DEFAULT_POLICY,
  limit: 10,
});
const open = (m: Matcher): Screener => m.openIndex(m.buildIndex(entities, 'all') as IndexData);
log(`${entities.length} entities, ${negatives.length} negatives`);

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
  for (const s of negatives.slice(0, 2000)) sc.screen(s, opt);
  const t = process.cpuUsage();
  for (const s of negatives.slice(2000, 2000 + n)) sc.screen(s, opt);
  const u = process.cpuUsage(t);
  log(`${n} negatives: ${((u.user + u.system) / 1000 / n).toFixed(4)} ms CPU per screen`);
} else if (mode === 'ab') {
  const beforeDir = process.env.BENCH_BEFORE;
  if (!beforeDir) throw new Error('ab needs BENCH_BEFORE=<the other build’s dist directory>');
  const before = (await import(pathToFileURL(path.join(beforeDir, 'matcher/index.js')).href)) as Matcher;
  const sides: { label: string; sc: Screener; opt: ScreenOptions; cpu: number; count: number }[] = [
    { label: 'before', sc: open(before), opt: options(before), cpu: 0, count: 0 },
    { label: 'after', sc: open(ours), opt: options(ours), cpu: 0, count: 0 },
  ];
  for (const side of sides) for (const s of negatives.slice(0, 2000)) side.sc.screen(s, side.opt);
  const BLOCK = 500;
  const qs = negatives.slice(2000, 2000 + n);
  for (let b = 0; b * BLOCK < qs.length; b++) {
    const block = qs.slice(b * BLOCK, (b + 1) * BLOCK);
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
    `CPU per screen over ${a.count} negatives, blocks of ${BLOCK} alternating: before ${per(b).toFixed(4)} ms, ` +
      `after ${per(a).toFixed(4)} ms, ratio ${(per(a) / per(b)).toFixed(3)}`,
  );
} else throw new Error(`unknown mode ${mode}: hash, prof or ab`);
