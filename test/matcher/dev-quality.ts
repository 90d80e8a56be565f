// Dev script (not a test): measures name-matching quality on the development sets.
// Run: npx vite-node test/matcher/dev-quality.ts [--errors]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCsvText } from '../../ingest/csv.js';
import { compare } from '../../matcher/compare.js';

const shared =
  process.env.VERISCREEN_SHARED_DATA ?? path.resolve(import.meta.dirname, '../../../shared/data');
const showErrors = process.argv.includes('--errors');

const rows = parseCsvText(
  readFileSync(path.join(shared, 'matching_cases/nomenklatura/cases.csv'), 'utf8'),
).slice(1);
const scored = rows
  .filter((r) => r.length >= 5)
  .map((r) => ({
    schema: r[1]!,
    a: r[2]!,
    b: r[3]!,
    y: r[4] === 'true',
    s: compare(r[1]!, r[2]!, r[3]!).score,
  }));
for (const t of [0.7, 0.75, 0.78, 0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9]) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const c of scored) {
    if (c.s >= t && c.y) tp++;
    else if (c.s >= t) fp++;
    else if (c.y) fn++;
  }
  const p = tp / (tp + fp);
  const r = tp / (tp + fn);
  console.log(
    `t=${t} P=${p.toFixed(3)} R=${r.toFixed(3)} F1=${((2 * p * r) / (p + r)).toFixed(3)} fp=${fp} fn=${fn}`,
  );
}
const T = Number(process.env.T ?? 0.8);
if (showErrors) {
  for (const c of scored) {
    if (c.s >= T !== c.y) console.log(`${c.y ? 'FN' : 'FP'} ${c.s.toFixed(3)} ${c.schema} | ${c.a} | ${c.b}`);
  }
}
const cross = readFileSync(path.join(shared, 'matching_cases/watchman/cross_script_pairs.csv'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => l.split(','));
let pass = 0;
for (const [q, m, min] of cross) {
  const s = compare('Person', q!, m!).score;
  if (s >= Number(min)) pass++;
  else console.log(`cross FAIL ${s.toFixed(3)} < ${min} ${q} | ${m}`);
}
console.log(`cross-script ${pass}/${cross.length}`);
const putin = readFileSync(path.join(shared, 'matching_cases/nomenklatura/putin_names.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);
let ph = 0;
for (const n of putin) {
  const s = compare('Person', n, 'PUTIN, Vladimir Vladimirovich').score;
  if (s >= T) ph++;
  else console.log(`putin MISS ${s.toFixed(3)} ${n}`);
}
console.log(`putin ${ph}/${putin.length}`);
if (process.argv.includes('--grid')) {
  const { SCORE_PARAMS } = await import('../../matcher/weights.js');
  const res: string[] = [];
  for (const curve of [1, 1.3]) {
    for (const minTokenSim of [0.55, 0.6, 0.67]) {
      for (const substMult of [1, 1.5, 2, 3]) {
        for (const qe of [0.04, 0.06]) {
          for (const ms of [0, 0.03]) {
            const orgExtra = 0.16;
            Object.assign(SCORE_PARAMS, {
              curve,
              minTokenSim,
              substMult,
              candExtraMulti: qe,
              candExtraSingle: 0.07 + ms,
            });
            const sc = rows
              .filter((r) => r.length >= 5)
              .map((r) => ({ y: r[4] === 'true', s: compare(r[1]!, r[2]!, r[3]!).score }));
            for (let t = 0.7; t <= 0.9; t += 0.01) {
              let tp = 0;
              let fp = 0;
              let fn = 0;
              for (const c of sc) {
                if (c.s >= t && c.y) tp++;
                else if (c.s >= t) fp++;
                else if (c.y) fn++;
              }
              const p = tp / (tp + fp);
              const r = tp / (tp + fn);
              res.push(
                `${((2 * p * r) / (p + r)).toFixed(3)} P=${p.toFixed(3)} R=${r.toFixed(3)} t=${t.toFixed(2)} curve=${curve} minTok=${minTokenSim} subst=${substMult} org=${orgExtra} qe=${qe} ms=${ms}`,
              );
            }
          }
        }
      }
    }
  }
  res.sort();
  console.log(res.slice(-15).join('\n'));
}
