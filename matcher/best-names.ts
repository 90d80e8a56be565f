// Best-name choice: every candidate name scored against every query name, the best name kept per entity, with the
// candidates whose score bound cannot make them their entity's match skipped (candidate-bound.ts, name-bound.ts).

import { ENTITY_SCHEMAS, type EntitySchema } from '../ingest/entity.js';
import { nameSimilarity } from './alignment.js';
import {
  BOUND_MARGIN,
  belowFloor,
  type NameTerms,
  nameFloor,
  nameTerm,
  nameTerms,
  nameWeightMonotone,
  scoreBound,
} from './candidate-bound.js';
import type { KindInfo } from './features.js';
import type { IndexView } from './index-view.js';
import { NAME_KINDS } from './layout.js';
import { alternativesLeftOut, alternativesPartBound, cheapBound, exactBound } from './name-bound.js';
import type { PreparedNameCache } from './name-cache.js';
import type { PreparedName } from './prepared-name.js';
import { prepared, type QueryName } from './query-names.js';
import type { ScreenOptions, ScreenSubject } from './types.js';
import { SCORE_PARAMS } from './weights.js';

const WEAK_KIND = NAME_KINDS.indexOf('weak');
const ORG_SCHEMAS = new Set<EntitySchema>(['Company', 'Organization']);

export interface EntityBest {
  entity: number;
  name: number;
  /** the name's contribution to the entity's score: its name score weighted, less the weighted weak-alias discount
   * for a weak alias (nameTerms) */
  score: number;
  /** the name score itself */
  nameScore: number;
  query: string;
}

/** What decides a candidate's bounds, for one screen (terms, below) and one candidate (the rest): one object per
 * screen, its candidate fields set before each candidate is bounded. */
interface Decision {
  terms: NameTerms;
  /** toMatches' first test (belowFloor) */
  below: (scoreBound: number) => boolean;
  /** the name-score bound from which the exact pass is worth running */
  exactFrom: number;
  weakName: boolean;
  /** the score of the candidate's entity's best name so far (−∞ when none): only a higher score replaces it */
  prevScore: number;
}

/** Whether a name-score bound decides the next step: for the cheap pass (`exact` false), that the exact pass is
 * due; for the exact pass, that the candidate is scored (its score bound passes toMatches' first test and beats its
 * entity's best so far). Both tests are non-decreasing in the bound. */
function decides(bound: number, exact: boolean, d: Decision): boolean {
  const sb = scoreBound(d.terms, bound, d.weakName);
  if (sb <= d.prevScore) return false;
  return exact ? !d.below(sb) : bound >= d.exactFrom;
}

/**
 * The cheap (`exact` false) or exact bound of query name `qi` against the candidate, memoised in m. The bound
 * without nameSimilarity's acronym and glued-particle alternatives comes first: when it already decides (decides),
 * the full bound (never lower) would too, and the alternatives' part of the pass (as costly as the pair's own; in the
 * exact pass computed again by nameSimilarity anyway) is not computed. Returns the full bound, or the bound without
 * the alternatives when that decides; the decisions are the ones the full bound gives.
 */
function boundPass(
  m: ContentMemo,
  exact: boolean,
  qi: number,
  q: PreparedName,
  cand: PreparedName,
  arena: Int32Array,
  at: number,
  org: boolean,
  d: Decision,
): number {
  const partial = exact ? m.exactMain : m.main;
  const full = exact ? m.exact : m.cheap;
  let main = partial[qi];
  if (main === undefined) {
    main = exact
      ? exactBound(q, cand, arena, at, org, SCORE_PARAMS, false)
      : cheapBound(q.packed, 0, arena, at, org, SCORE_PARAMS, q, cand, false);
    if (!alternativesLeftOut()) {
      full[qi] = main;
      return main;
    }
    partial[qi] = main;
  }
  if (decides(main, exact, d)) return main;
  const alt = alternativesPartBound(q, cand, org, exact);
  const b = alt >= 1 ? 1 : Math.max(main, alt);
  full[qi] = b;
  return b;
}

/** What bestNames computed for one content (and org flag) in a screen: per query name the cheap and the exact
 * bound (undefined until computed), and the best name score over the query names (−1 until computed) with the index
 * of the query name that gave it (the first with that score). */
interface ContentMemo {
  cheap: number[];
  /** the cheap bound without the alternatives, where boundPass left them out (undefined otherwise) */
  main: number[];
  exact: number[];
  /** the exact bound without the alternatives, where boundPass left them out (undefined otherwise) */
  exactMain: number[];
  score: number;
  qi: number;
}

/** Scores every candidate name against every query name; keeps the best name per entity. A name whose score
 * bound (nameSimilarityBound) cannot pass toMatches' first test, or cannot exceed the score of its entity's best
 * name so far, is not scored: it could not be its entity's match, so the matches are the same (identifier hits
 * are always scored). */
export function bestNames(
  view: IndexView,
  names: PreparedNameCache,
  subject: ScreenSubject,
  sk: KindInfo,
  queries: QueryName[],
  cands: number[],
  identEntities: Set<number>,
  options: ScreenOptions,
  minThreshold: number,
): Map<number, EntityBest> {
  const best = new Map<number, EntityBest>();
  const bounded = nameWeightMonotone(options);
  const below = belowFloor(options, minThreshold);
  const terms = nameTerms(options);
  const floor = nameFloor(options, minThreshold);
  // the name score from which a weak alias's term can pass the floor (where its bound is worth tightening)
  const weakFloor = floor + (terms.wName > 0 ? terms.weakPenalty / terms.wName : 0);
  const qs = queries.map((q) => prepared(q, sk.kind));
  const decision: Decision = {
    terms,
    below,
    exactFrom: 0,
    weakName: false,
    prevScore: Number.NEGATIVE_INFINITY,
  };
  // the bounds and scores of each content (contentOf) and org flag met in this screen: a name with the content
  // of an earlier candidate takes its values instead of computing them again (they are the same numbers, and the
  // decisions below are taken as before)
  const memo = new Map<number, ContentMemo>();
  for (const id of cands) {
    const e = view.nameEntity[id]!;
    const schema = ENTITY_SCHEMAS[view.entSchema[e]!]!;
    const org = sk.org || (subject.type === undefined && ORG_SCHEMAS.has(schema));
    const cand = names.get(id);
    const memoKey = names.contentOf[id]! * 2 + (org ? 1 : 0);
    let m = memo.get(memoKey);
    if (m === undefined) {
      m = { cheap: [], main: [], exact: [], exactMain: [], score: -1, qi: 0 };
      memo.set(memoKey, m);
    }
    const weakName = view.nameKind[id] === WEAK_KIND;
    const prev = best.get(e);
    if (bounded && !identEntities.has(e)) {
      // nameSimilarityBound in two calls: the cheap pass from the arena, the exact pass where the cheap one does
      // not rule the name out. A name is ruled out when its bound cannot pass toMatches' first test, or cannot
      // beat its entity's best name so far (only a higher score replaces it)
      decision.exactFrom = (weakName ? weakFloor : floor) - BOUND_MARGIN;
      decision.weakName = weakName;
      decision.prevScore = prev === undefined ? Number.NEGATIVE_INFINITY : prev.score;
      const arena = names.arena.data;
      const at = names.arena.at[id]!;
      let ub = 0;
      for (let qi = 0; qi < qs.length; qi++) {
        const q = qs[qi]!;
        let b = m.cheap[qi] ?? boundPass(m, false, qi, q, cand, arena, at, org, decision);
        if (decides(b, false, decision))
          b = m.exact[qi] ?? boundPass(m, true, qi, q, cand, arena, at, org, decision);
        if (b > ub) ub = b;
      }
      if (!decides(ub, true, decision)) continue;
    }
    if (m.score < 0) {
      let v0 = 0;
      for (let qi = 0; qi < qs.length; qi++) {
        const v = nameSimilarity(qs[qi]!, cand, org);
        if (v > v0) {
          v0 = v;
          m.qi = qi;
        }
      }
      m.score = v0;
    }
    const s = nameTerm(terms, m.score, weakName);
    const qBest = queries[m.qi]?.shown ?? subject.name;
    if (!prev || s > prev.score)
      best.set(e, { entity: e, name: id, score: s, nameScore: m.score, query: qBest });
  }

  return best;
}
