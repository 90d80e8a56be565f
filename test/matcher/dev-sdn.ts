// Dev script (not a test): screens the Putin spellings and a few checks against the real OFAC SDN list.
// Run: npx vite-node test/matcher/dev-sdn.ts
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Entity } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';
import { buildIndex, DEFAULT_POLICY, indexStats, openIndex } from '../../matcher/index.js';

const shared =
  process.env.VERISCREEN_SHARED_DATA ?? path.resolve(import.meta.dirname, '../../../shared/data');
const entities: Entity[] = [];
let issues = 0;
for await (const e of readSource('ofac_sdn_csv', path.join(shared, 'ofac_sdn'), () => issues++))
  entities.push(e);
const t0 = performance.now();
const idx = buildIndex(entities, 'sdn');
console.log(
  'entities',
  entities.length,
  'issues',
  issues,
  'build ms',
  (performance.now() - t0).toFixed(0),
  indexStats(idx).names,
);
const sc = openIndex(idx);
const putin = entities.find((e) => e.names.some((n) => /PUTIN, Vladimir/i.test(n.value)));
console.log(
  'putin entity',
  putin?.entity_id,
  putin?.names.map((n) => n.value),
);
const names = readFileSync(path.join(shared, 'matching_cases/nomenklatura/putin_names.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);
let hit = 0;
const opts = { datasets: ['sanctions'] as const, policy: DEFAULT_POLICY };
const times: number[] = [];
for (const n of names) {
  const t = performance.now();
  const r = sc.screen({ name: n }, opts);
  times.push(performance.now() - t);
  if (r.matches.some((m) => m.entity_id === putin?.entity_id)) hit++;
  else console.log('miss', n, r.matches[0]?.name, r.matches[0]?.score);
}
times.sort((a, b) => a - b);
console.log(`putin ${hit}/${names.length}; median ${times[times.length >> 1]!.toFixed(3)}ms`);
for (const q of [
  'Ivan Petrov',
  'Acme Trading LLC',
  'Global Trading LLC',
  'Osama bin Laden',
  'Rosneft',
  'John Smith',
]) {
  const r = sc.screen({ name: q }, opts);
  console.log(
    q,
    '→',
    r.matches.slice(0, 3).map((m) => `${m.name} ${m.score}`),
  );
}
if (process.argv.includes('--debug')) {
  const r = sc.screen({ name: 'Vladimiras Putinas' }, opts);
  console.log(JSON.stringify(r.matches[0], null, 1));
  const k = entities.find((e) => e.entity_id === r.matches[0]?.entity_id);
  console.log(k?.names);
}
