// The matches of a screen: each entity's best name score with its features (dates of birth, countries,
// identifiers, type, weak alias) combined, kept when it reaches its effective threshold, with its evidence.
import type { AmlDataset } from '../ingest/entity.js';
import type { EntityBest } from './best-names.js';
import { belowFloor } from './candidate-bound.js';
import { combine, countryFeature, dobFeature, subjectCountries } from './features.js';
import type { IndexView } from './index-view.js';
import { NAME_KINDS } from './layout.js';
import type { EntityMetaCache } from './name-cache.js';
import { effectiveThreshold } from './policy.js';
import type { Scope } from './scope.js';
import type { Match, ScreenOptions, ScreenSubject } from './types.js';

const WEAK_KIND = NAME_KINDS.indexOf('weak');

/** Adds the features (dates of birth, countries, identifiers, type, weak alias) to each entity's best name score
 * and keeps those at or above their effective threshold. `entities`, when given, receives each match's entity number
 * in the matches' order (groupByEntity reads the entity's metadata by it). */
export function toMatches(
  view: IndexView,
  metas: EntityMetaCache,
  subject: ScreenSubject,
  options: ScreenOptions,
  scope: Scope,
  best: Map<number, EntityBest>,
  identEntities: Set<number>,
  identValues: string[],
  minThreshold: number,
  entities?: number[],
): Match[] {
  const { policy } = options;
  const weights = policy.feature_weights;
  const schemaPen = scope.schemaPen;
  const below = belowFloor(options, minThreshold);
  const sCountries = subjectCountries(subject);
  const matches: Match[] = [];
  for (const b of [...best.values()].sort((x, y) => x.entity - y.entity)) {
    const ident = identEntities.has(b.entity);
    if (!ident && below(b.score)) continue;
    const m = metas.get(b.entity);
    const weak = view.nameKind[b.name] === WEAK_KIND;
    const identifier =
      ident &&
      m.identifiers.some((i) => identValues.includes(i.value.toUpperCase().replace(/[^A-Z0-9]/g, '')));
    const combined = combine(
      b.nameScore,
      {
        dob: dobFeature(subject.date_of_birth, m.birth_dates),
        country: countryFeature(sCountries, [...m.nationalities, ...m.countries]),
        identifier,
        type: schemaPen[view.entSchema[b.entity]!],
        weak,
      },
      weights,
    );
    const inScope = m.datasets.filter((d: AmlDataset) => options.datasets.includes(d));
    const threshold = effectiveThreshold(policy, inScope, options.use_case);
    const floor = options.min_score ?? threshold;
    if (combined.score < floor) continue;
    const matchedName = view.origName(b.name);
    const matchedKind = NAME_KINDS[view.nameKind[b.name]!] ?? 'alias';
    entities?.push(b.entity);
    matches.push({
      entity_id: m.entity_id,
      source: m.source,
      source_id: m.source_id,
      schema: m.schema,
      name: m.name,
      score: combined.score,
      // copies: the parsed metadata is shared by later screens
      datasets: m.datasets.slice(),
      programs: m.programs.slice(),
      evidence: {
        query_name: b.query,
        matched_name: matchedName,
        matched_name_kind: matchedKind,
        features: combined.features,
        threshold,
        dataset_version: view.version,
      },
      consolidated_id: m.consolidated_id ?? m.entity_id,
      sources: [
        {
          entity_id: m.entity_id,
          source: m.source,
          source_id: m.source_id,
          schema: m.schema,
          name: m.name,
          score: combined.score,
          datasets: m.datasets.slice(),
          programs: m.programs.slice(),
          matched_name: matchedName,
          matched_name_kind: matchedKind,
        },
      ],
    });
  }
  return matches;
}
