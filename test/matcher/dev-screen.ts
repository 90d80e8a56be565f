// Dev script (not a test): the quality half of bench:matcher without its speed half, for working on rules.
// Screens every perturbation class (bench/perturb.ts) and the 100k negatives against all lists, scores
// cases.csv, the Putin spellings and the cross-script pairs. Prints per-class recall and writes the misses and
// false positives to DEV_OUT (default /tmp/dev-screen) for reading.
// Run: npx vite-node test/matcher/dev-screen.ts   (DEV_CLASSES=a,b to screen only those classes; DEV_NEG=0 skips
// the negatives)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { LISTS, loadList, negativeSubjects, readTable, SHARED } from '../../bench/matcher-data.js';
import { type ListName, PERTURB_CLASSES, perturb } from '../../bench/perturb.js';
import { AML_DATASETS, type Entity } from '../../ingest/entity.js';
import {
  buildIndex,
  compare,
  DEFAULT_POLICY,
  openIndex,
  type ScreenOptions,
  type ScreenSubject,
} from '../../matcher/index.js';

const OUT = process.env.DEV_OUT ?? '/tmp/dev-screen';
mkdirSync(OUT, { recursive: true });
const CACHE = path.join(OUT, 'entities.v8');
const T = DEFAULT_POLICY.review_threshold;

let entities: Entity[];
if (existsSync(CACHE)) entities = v8.deserialize(readFileSync(CACHE)) as Entity[];
else {
  entities = [];
  for (const l of LISTS) entities.push(...((await loadList(l.format, l.path)) ?? []));
  writeFileSync(CACHE, v8.serialize(entities));
}
const screener = openIndex(buildIndex(entities, 'all'));
const OPTIONS: ScreenOptions = { datasets: [...AML_DATASETS], policy: DEFAULT_POLICY, limit: 10 };
const LOW: ScreenOptions = { ...OPTIONS, min_score: 0.7 };

// cases.csv, Putin, cross-script (pairwise, as bench:matcher)
{
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const errs: string[] = [];
  for (const c of readTable('matching_cases/nomenklatura/cases.csv')) {
    const s = compare(c['schema']!, c['name1']!, c['name2']!).score;
    const y = c['is_match'] === 'true';
    if (s >= T && y) tp++;
    else if (s >= T) fp++;
    else if (y) fn++;
    if (s >= T !== y)
      errs.push(`${y ? 'FN' : 'FP'} ${s.toFixed(3)} ${c['schema']} | ${c['name1']} | ${c['name2']}`);
  }
  writeFileSync(path.join(OUT, 'cases-errors.txt'), `${errs.join('\n')}\n`);
  const p = tp / (tp + fp);
  const r = tp / (tp + fn);
  console.log(
    `cases F1 ${((2 * p * r) / (p + r)).toFixed(4)} P ${p.toFixed(3)} R ${r.toFixed(3)} fp ${fp} fn ${fn}`,
  );
  const cross = readFileSync(path.join(SHARED, 'matching_cases/watchman/cross_script_pairs.csv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('Query,'));
  const pass = cross.filter((l) => {
    const [q, m, min] = l.split(',');
    return compare('Person', q!, m!).score >= Number(min);
  }).length;
  const sdn = entities.filter((e) => e.source.startsWith('us_ofac_sdn'));
  const sc = openIndex(buildIndex(sdn, 'sdn'));
  const target = sdn.find((e) => e.names.some((n) => /^PUTIN, Vladimir Vladimirovich$/i.test(n.value)));
  const putin = readFileSync(path.join(SHARED, 'matching_cases/nomenklatura/putin_names.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const ph = putin.filter((n) =>
    sc.screen({ name: n }, OPTIONS).matches.some((m) => m.entity_id === target?.entity_id),
  ).length;
  console.log(`cross-script ${pass}/${cross.length}; Putin ${ph}/${putin.length}`);
}

// perturbed list names, per class
{
  const names: ListName[] = [];
  for (const src of ['us_ofac_sdn', 'un_sc', 'gb_fcdo'])
    for (const e of entities)
      if (e.source === src && e.names[0])
        names.push({ schema: e.schema, name: e.names[0].value, entityId: e.entity_id });
  const only = process.env.DEV_CLASSES?.split(',');
  const cases = perturb(names, 300, 15).filter((c) => !only || only.includes(c.cls));
  const misses: string[] = [];
  const hits = new Map<string, [number, number]>();
  for (const c of cases) {
    const subject: ScreenSubject = { name: c.query };
    subject.type = c.schema === 'Person' ? 'person' : c.schema === 'Vessel' ? 'vessel' : 'company';
    const s = screener.screen(subject, LOW).matches.find((m) => m.entity_id === c.entityId)?.score ?? 0;
    const h = hits.get(c.cls) ?? [0, 0];
    h[1]++;
    if (s >= T) h[0]++;
    else misses.push(`${c.cls} ${s.toFixed(3)} ${c.schema} | ${c.query} | ${c.name}`);
    hits.set(c.cls, h);
  }
  writeFileSync(path.join(OUT, 'misses.txt'), `${misses.join('\n')}\n`);
  let all = 0;
  let n = 0;
  for (const cls of PERTURB_CLASSES) {
    const h = hits.get(cls);
    if (!h) continue;
    all += h[0];
    n += h[1];
    console.log(`  ${cls.padEnd(22)} ${h[0]}/${h[1]}`);
  }
  console.log(`perturbed ${all}/${n} = ${((100 * all) / n).toFixed(2)} %`);
}

if (process.env.DEV_NEG !== '0') {
  const neg = negativeSubjects();
  const fps: string[] = [];
  let fp = 0;
  for (const s of neg) {
    const m = screener.screen(s, OPTIONS).matches[0];
    if (m) {
      fp++;
      fps.push(
        `${m.score.toFixed(3)} ${s.name} | ${m.evidence.matched_name} | ${m.entity_id} ${JSON.stringify(m.evidence.features)}`,
      );
    }
  }
  writeFileSync(path.join(OUT, 'fps.txt'), `${fps.join('\n')}\n`);
  console.log(`negatives FP ${fp}/${neg.length} = ${((100 * fp) / neg.length).toFixed(3)} %`);
}
