// One match per consolidated entity: the matches of entries linked at dataset build (matcher/consolidate.ts) are
// folded into one, and the entity's other entries in the screen's scope are scored against the subject too, so the
// analyst sees every list entry of the entity with the name of each that matched best.
import { AML_DATASETS } from '../ingest/entity.js';
import { bestNames } from './best-names.js';
import type { KindInfo } from './features.js';
import type { IndexView } from './index-view.js';
import { toMatches } from './matches.js';
import type { EntityMetaCache, PreparedNameCache } from './name-cache.js';
import type { QueryName } from './query-names.js';
import type { Scope } from './scope.js';
import type { Match, ScreenOptions, ScreenSubject } from './types.js';

export interface GroupContext {
  view: IndexView;
  names: PreparedNameCache;
  metas: EntityMetaCache;
  subject: ScreenSubject;
  sk: KindInfo;
  queries: QueryName[];
  options: ScreenOptions;
  scope: Scope;
  /** one bit per name: in the screen's scope */
  allowed: Uint32Array;
  identEntities: Set<number>;
  identValues: string[];
}

/** The name ids of entity `e` (an entity's names are consecutive, in entity order). */
export function namesOf(view: IndexView, e: number): number[] {
  const ne = view.nameEntity;
  let lo = 0;
  let hi = view.nNames;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ne[mid]! < e) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let i = lo; i < view.nNames && ne[i] === e; i++) out.push(i);
  return out;
}

const byScore = (a: Match, b: Match) =>
  b.score - a.score || (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0);

/** Folds the matches of each consolidated entity into one (`entities`: the entity number of each match, in order).
 * Only the matched entities' metadata is read (toMatches has it cached): a screen without matches, most of them,
 * costs nothing here. */
export function groupByEntity(ctx: GroupContext, matches: Match[], entities: readonly number[]): Match[] {
  if (matches.length === 0) return matches;
  const { view, metas } = ctx;
  const out: Match[] = [];
  const groups = new Map<string, { members: Match[]; cluster: number[] }>();
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i]!;
    const meta = metas.get(entities[i]!);
    if (meta.cluster === undefined || meta.consolidated_id === undefined) {
      out.push(m);
      continue;
    }
    let g = groups.get(meta.consolidated_id);
    if (g === undefined) {
      g = { members: [], cluster: meta.cluster };
      groups.set(meta.consolidated_id, g);
    }
    g.members.push(m);
  }
  for (const [cid, g] of groups) {
    const have = new Set(g.members.map((m) => m.entity_id));
    const cands: number[] = [];
    for (const e of g.cluster) {
      if (have.has(metas.get(e).entity_id)) continue;
      for (const id of namesOf(view, e))
        if ((ctx.allowed[id >>> 5]! & (1 << (id & 31))) !== 0) cands.push(id);
    }
    const members = g.members.slice();
    if (cands.length > 0) {
      // the entity's other entries, scored whatever their score: they are listed as the same entity
      const floorless = -Number.POSITIVE_INFINITY;
      const extra = bestNames(
        view,
        ctx.names,
        ctx.subject,
        ctx.sk,
        ctx.queries,
        cands,
        ctx.identEntities,
        ctx.options,
        floorless,
      );
      members.push(
        ...toMatches(
          view,
          metas,
          ctx.subject,
          { ...ctx.options, min_score: 0 },
          ctx.scope,
          extra,
          ctx.identEntities,
          ctx.identValues,
          floorless,
        ),
      );
    }
    members.sort(byScore);
    const top = members[0]!;
    const datasets = new Set(members.flatMap((m) => m.datasets));
    const programs: string[] = [];
    for (const m of members) for (const p of m.programs) if (!programs.includes(p)) programs.push(p);
    out.push({
      ...top,
      datasets: AML_DATASETS.filter((d) => datasets.has(d)),
      programs,
      consolidated_id: cid,
      sources: members.flatMap((m) => m.sources),
    });
  }
  return out;
}
