// Screening against a shared index, in phases: the scope (scope.ts), the query names and their keys
// (query-names.ts), retrieval of candidate names (retrieval.ts), best-name choice with candidate bounding
// (best-names.ts), features, thresholds and the matches (matches.ts), then one match per consolidated entity
// (entity-groups.ts). openIndex holds a thread's state as named
// objects: the index view, the scope cache, the retrieval scratch, the prepared-name cache with its arena, and the
// entity metadata cache.
import { bestNames } from './best-names.js';
import { groupByEntity } from './entity-groups.js';
import { IndexView } from './index-view.js';
import { assertIndexFormat } from './layout.js';
import { toMatches } from './matches.js';
import { EntityMetaCache, PreparedNameCache } from './name-cache.js';
import { effectiveThreshold } from './policy.js';
import { oneShape, queryKeys } from './query-names.js';
import { Retrieval } from './retrieval.js';
import { ScopeCache, scopeOf } from './scope.js';
import type { IndexData, ScreenOptions, ScreenResult, ScreenSubject } from './types.js';

export interface Screener {
  readonly version: string;
  screen(subject: ScreenSubject, options: ScreenOptions): ScreenResult;
}

export function openIndex(data: IndexData): Screener {
  // an index built by other code (older normalisation or layout) is never searched: its owner rebuilds it
  assertIndexFormat(data);
  const view = new IndexView(data);
  const scopes = new ScopeCache(view);
  const retrieval = new Retrieval(view);
  const names = new PreparedNameCache(view);
  const metas = new EntityMetaCache(view);
  const version = data.version;

  /** One screen: scope, query keys, retrieval, the best candidates, the best name per entity, the matches. */
  function screen(input: ScreenSubject, options: ScreenOptions): ScreenResult {
    const subject = oneShape(input);
    const scope = scopeOf(view, subject, options);
    const { sk, queries, keys, identValues } = queryKeys(view, subject);
    const allowed = scopes.allowedBits(scope);
    const { nTouched, identEntities } = retrieval.retrieve(keys, allowed);
    const cands = retrieval.topCandidates(nTouched, identEntities);
    const minThreshold =
      options.min_score ??
      effectiveThreshold(options.policy, options.datasets as readonly string[], options.use_case);
    const best = bestNames(view, names, subject, sk, queries, cands, identEntities, options, minThreshold);
    const entryEntities: number[] = [];
    const entryMatches = toMatches(
      view,
      metas,
      subject,
      options,
      scope,
      best,
      identEntities,
      identValues,
      minThreshold,
      entryEntities,
    );
    // one match per consolidated entity (entries of several lists linked at dataset build)
    const matches = groupByEntity(
      { view, names, metas, subject, sk, queries, options, scope, allowed, identEntities, identValues },
      entryMatches,
      entryEntities,
    );
    matches.sort(
      (a, b) => b.score - a.score || (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0),
    );
    return {
      matches: matches.slice(0, Math.max(0, options.limit ?? 10)),
      dataset_version: version,
      candidates: cands.length,
    };
  }

  return { version, screen };
}
