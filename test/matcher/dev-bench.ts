// Dev script (not a test): synthetic 100k-name index build time and per-query latency.
// Run: npx vite-node test/matcher/dev-bench.ts
import type { Entity } from '../../ingest/entity.js';
import { buildIndex, DEFAULT_POLICY, indexStats, openIndex } from '../../matcher/index.js';

let seed = 42;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
const syll = [
  'ka',
  'ri',
  'mo',
  'ha',
  'med',
  'al',
  'ser',
  'gei',
  'vla',
  'di',
  'mir',
  'pu',
  'tin',
  'an',
  'dr',
  'ov',
  'ev',
  'in',
  'sh',
  'ab',
  'dul',
  'lah',
  'na',
  'ze',
  'ro',
  'lu',
  'ko',
  'ba',
  'ni',
  'to',
  'os',
  'ma',
  'ra',
];
const word = (): string => {
  const n = 2 + Math.floor(rnd() * 3);
  let w = '';
  for (let i = 0; i < n; i++) w += pick(syll);
  return w[0]!.toUpperCase() + w.slice(1);
};
const given = Array.from({ length: 800 }, word);
const family = Array.from({ length: 20000 }, word);
const orgWords = [
  'Trading',
  'Group',
  'Holding',
  'International',
  'Shipping',
  'Bank',
  'Industries',
  'Energy',
  'Petroleum',
  'Services',
];
const forms = ['LLC', 'Ltd', 'JSC', 'GmbH', 'SA', 'Inc', 'Corporation', 'Company'];
const entities: Entity[] = [];
const names: string[] = [];
for (let i = 0; names.length < 100_000; i++) {
  const person = rnd() < 0.65;
  const primary = person
    ? `${pick(given)} ${rnd() < 0.4 ? pick(given) + 'ovich ' : ''}${pick(family)}`
    : `${pick(family)} ${pick(orgWords)} ${pick(forms)}`;
  const ns: Entity['names'] = [{ value: primary, kind: 'primary' }];
  if (rnd() < 0.3)
    ns.push({
      value: person ? `${pick(family)}, ${pick(given)}` : `${pick(family)} ${pick(orgWords)}`,
      kind: 'alias' as const,
    });
  names.push(...ns.map((n) => n.value));
  entities.push({
    entity_id: `syn:${i}`,
    source: i % 2 ? 'us_ofac_sdn' : 'un_sc',
    source_id: String(i),
    schema: person ? 'Person' : 'Company',
    names: ns,
    birth_dates: person ? [String(1940 + Math.floor(rnd() * 60))] : [],
    birth_places: [],
    countries: [],
    nationalities: [],
    identifiers: [],
    programs: ['SDGT'],
    datasets: ['sanctions'],
  });
}
const t0 = performance.now();
const idx = buildIndex(entities, 'bench');
console.log('build ms', (performance.now() - t0).toFixed(0), indexStats(idx));
const sc = openIndex(idx);
const typo = (s: string): string => {
  const i = 1 + Math.floor(rnd() * (s.length - 2));
  return s.slice(0, i) + s.slice(i + 1);
};
const queries: string[] = [];
for (let i = 0; i < 3000; i++) {
  const r = rnd();
  const n = pick(names);
  queries.push(r < 0.4 ? n : r < 0.7 ? typo(n) : `${pick(given)} ${word()}`);
}
const opts = { datasets: ['sanctions'] as const, policy: DEFAULT_POLICY };
for (const q of queries.slice(0, 300)) sc.screen({ name: q }, opts);
const times: number[] = [];
let hits = 0;
for (const q of queries) {
  const t = performance.now();
  const r = sc.screen({ name: q }, opts);
  times.push(performance.now() - t);
  if (r.matches.length) hits++;
}
times.sort((a, b) => a - b);
const q = (p: number): string => times[Math.floor(p * (times.length - 1))]!.toFixed(3);
console.log(
  `queries=${times.length} hits=${hits} p50=${q(0.5)}ms p90=${q(0.9)}ms p99=${q(0.99)}ms max=${q(1)}ms`,
);
