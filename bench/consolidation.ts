// Entity consolidation on the eight real lists: entries before and after, links per rule, the Tanchon check (one
// entity on the UN, UK and OFAC lists), and the precision of the links on the hand-labelled sample of
// bench/consolidation-sample.ts. Called by bench:matcher (consolidationReport) and runnable alone:
//   npm run build && node dist/bench/consolidation.js [--sample N]   (N: print N links per rule to label by hand)
import { fileURLToPath } from 'node:url';
import type { Entity } from '../ingest/entity.js';
import { type Consolidation, consolidate, LINK_RULES } from '../matcher/consolidate.js';
import { buildIndex, DEFAULT_POLICY, openIndex, type ScreenOptions } from '../matcher/index.js';
import { LABELLED_LINKS } from './consolidation-sample.js';
import { LISTS, loadList, readTable, subjectOf, YENTE_BENCH } from './matcher-data.js';

export interface ConsolidationFigures {
  entities_before: number;
  entities_after: number;
  links: number;
  refused: number;
  by_rule: Record<string, number>;
  /** entities that gained at least one other entry */
  consolidated_groups: number;
  /** labelled sample: links judged, of which correct; links of the sample not found by this build */
  sample: { judged: number; correct: number; missing: number };
  tanchon: { matches: number; sources: string[] };
  /** the UN list's own names (yente's untreated positives) screened against all lists: alerts (matches at or above
   * their threshold) per subject that hit, entry by entry and entity by entity */
  alerts_per_hit: { subjects: number; hits: number; before: number; after: number };
  build_ms: number;
}

const TANCHON_SOURCES = ['gb_fcdo:DPR0195', 'un_sc:690752', 'us_ofac_sdn:9346'];

export function consolidationFigures(entities: readonly Entity[]): {
  figures: ConsolidationFigures;
  result: Consolidation;
} {
  const t = performance.now();
  const result = consolidate(entities);
  const build_ms = Math.round(performance.now() - t);
  const by_rule: Record<string, number> = {};
  for (const r of LINK_RULES) by_rule[r.rule] = 0;
  for (const l of result.links) by_rule[l.rule] = (by_rule[l.rule] ?? 0) + 1;
  const found = new Set(result.links.map((l) => `${l.a}|${l.b}`));
  let judged = 0;
  let correct = 0;
  let missing = 0;
  for (const s of LABELLED_LINKS) {
    if (!found.has(`${s.a}|${s.b}`)) {
      missing++;
      continue;
    }
    judged++;
    if (s.same) correct++;
  }
  // the Tanchon screen: the UN, UK and OFAC lists only, one index with the consolidation
  const three = entities.filter((e) => ['un_sc', 'gb_fcdo', 'us_ofac_sdn'].includes(e.source));
  const screener = openIndex(buildIndex(three, 'bench-consolidation', result.clusterOf));
  const options: ScreenOptions = { datasets: ['sanctions'], policy: DEFAULT_POLICY, limit: 10 };
  const r = screener.screen({ name: 'Tanchon Commercial Bank' }, options);
  const top = r.matches.filter((m) => m.score >= 0.99);
  const alerts_per_hit = alertsPerHit(entities, result);
  return {
    figures: {
      entities_before: result.entities_before,
      entities_after: result.entities_after,
      links: result.links.length,
      refused: result.refused,
      by_rule,
      consolidated_groups: new Set(result.clusterOf.values()).size,
      sample: { judged, correct, missing },
      tanchon: {
        matches: top.length,
        sources: (top[0]?.sources ?? []).map((s) => s.entity_id).sort(),
      },
      alerts_per_hit,
      build_ms,
    },
    result,
  };
}

/** Alerts a screen raises per subject that hit, without and with consolidation: the UN list's names (yente's
 * untreated positives) against every list, the default policy, the sanctions dataset. */
function alertsPerHit(
  entities: readonly Entity[],
  result: Consolidation,
): ConsolidationFigures['alerts_per_hit'] {
  const subjects = readTable(`${YENTE_BENCH}positives_un_untreated.csv`).map(subjectOf);
  const options: ScreenOptions = { datasets: ['sanctions'], policy: DEFAULT_POLICY, limit: 50 };
  const count = (clusterOf?: ReadonlyMap<string, string>) => {
    const s = openIndex(buildIndex(entities, 'bench-alerts', clusterOf));
    let hits = 0;
    let alerts = 0;
    for (const subject of subjects) {
      const n = s.screen(subject, options).matches.filter((m) => m.score >= m.evidence.threshold).length;
      if (n > 0) hits++;
      alerts += n;
    }
    return { hits, alerts };
  };
  const before = count();
  const after = count(result.clusterOf);
  return {
    subjects: subjects.length,
    hits: after.hits,
    before: before.hits ? before.alerts / before.hits : 0,
    after: after.hits ? after.alerts / after.hits : 0,
  };
}

/** The report lines (markdown table rows) of the figures. */
export function consolidationLines(f: ConsolidationFigures): string[] {
  const precision = f.sample.judged ? f.sample.correct / f.sample.judged : 0;
  const tanchonOk =
    f.tanchon.matches === 1 && f.tanchon.sources.join(',') === [...TANCHON_SOURCES].sort().join(',');
  return [
    `| entities before → after consolidation | ${f.entities_before} → ${f.entities_after} | ${f.entities_before - f.entities_after} entries joined another |`,
    `| links (refused: would join one source twice) | ${f.links} (${f.refused}) | ${Object.entries(f.by_rule)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| consolidated entities of ≥ 2 entries | ${f.consolidated_groups} | linking took ${f.build_ms} ms |`,
    `| link precision on the labelled sample | ${(100 * precision).toFixed(1)} % (${f.sample.correct}/${f.sample.judged}) | target ≥ 99 %; ${f.sample.missing} labelled links not found |`,
    `| alerts per hit, UN names against all lists | ${f.alerts_per_hit.before.toFixed(2)} → ${f.alerts_per_hit.after.toFixed(2)} | ${f.alerts_per_hit.hits} of ${f.alerts_per_hit.subjects} subjects hit; entry by entry → entity by entity |`,
    `| Tanchon Commercial Bank on UN + UK + OFAC | ${f.tanchon.matches} match, ${f.tanchon.sources.length} sources | ${tanchonOk ? 'ok' : 'NOT MET'}: ${f.tanchon.sources.join(', ')} |`,
  ];
}

async function main(): Promise<void> {
  const entities: Entity[] = [];
  for (const l of LISTS) {
    const ents = await loadList(l.format, l.path);
    if (ents) entities.push(...ents);
    else process.stderr.write(`list ${l.format} missing\n`);
  }
  const { figures, result } = consolidationFigures(entities);
  process.stdout.write(`${consolidationLines(figures).join('\n')}\n`);
  const at = process.argv.indexOf('--sample');
  if (at > 0) {
    // a deterministic sample to label: every k-th link of each rule
    const n = Number(process.argv[at + 1] ?? 20);
    const byId = new Map(entities.map((e) => [e.entity_id, e]));
    const brief = (id: string) => {
      const e = byId.get(id)!;
      return `${id} ${e.schema} "${e.names[0]?.value}" dob=${e.birth_dates.join('/')} nat=${[...e.nationalities, ...e.countries].join('/')}`;
    };
    for (const r of LINK_RULES) {
      const ls = result.links.filter((l) => l.rule === r.rule);
      const step = Math.max(1, Math.floor(ls.length / n));
      for (let i = 0; i < ls.length && i / step < n; i += step) {
        const l = ls[i]!;
        process.stdout.write(`${r.rule}\t${l.score}\t${brief(l.a)}\n\t\t${brief(l.b)}\n\t\t${l.reason}\n`);
      }
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
