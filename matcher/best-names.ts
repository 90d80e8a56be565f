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

/**
 * The cheap bound of query name `qi` against the candidate, for bestNames' test of whether the exact pass is needed
 * (`b >= exactFrom && scoreBound(terms, b, weakName) > prevScore`), memoised in m. The bound without
 * nameSimilarity's acronym and glued-particle alternatives comes first: when it already passes that test, the full
 * cheap bound (never lower) would too, and the exact pass replaces either, so the alternatives' cheap part (as
 * costly as the pair's own) is not computed. Returns the full cheap bound, or the bound without the alternatives
 * when that passes the test; the decisions are the ones the full cheap bound gives.
 */
function cheapPass(
  m: ContentMemo,
  qi: number,
  q: PreparedName,
  cand: PreparedName,
  arena: Int32Array,
  at: number,
  org: boolean,
  exactFrom: number,
  terms: NameTerms,
  weakName: boolean,
  prevScore: number,
): number {
  let main = m.main[qi];
  if (main === undefined) {
    main = cheapBound(q.packed, 0, arena, at, org, SCORE_PARAMS, q, cand, false);
    if (!alternativesLeftOut()) {
      m.cheap[qi] = main;
      return main;
    }
    m.main[qi] = main;
  }
  if (main >= exactFrom && scoreBound(terms, main, weakName) > prevScore) return main;
  const alt = alternativesPartBound(q, cand, org, false);
  const b = alt >= 1 ? 1 : Math.max(main, alt);
  m.cheap[qi] = b;
  return b;
}

/**
 * The exact bound of query name `qi` against the candidate, memoised in m as cheapPass memoises the cheap one: the
 * bound without the acronym and glued-particle alternatives comes first, and when it already makes the candidate
 * one that is scored (its score bound passes toMatches' first test, `below`, and beats its entity's best so far),
 * the alternatives' exact part (the split or collapsed pair's token similarities, which nameSimilarity computes
 * again anyway) is not computed. Returns the full exact bound, or the bound without the alternatives when that is
 * scored: the candidate is scored whenever the full bound would make it so, and only then.
 */
function exactPass(
  m: ContentMemo,
  qi: number,
  q: PreparedName,
  cand: PreparedName,
  arena: Int32Array,
  at: number,
  org: boolean,
  terms: NameTerms,
  weakName: boolean,
  prevScore: number,
  below: (scoreBound: number) => boolean,
): number {
  let main = m.exactMain[qi];
  if (main === undefined) {
    main = exactBound(q, cand, arena, at, org, SCORE_PARAMS, false);
    if (!alternativesLeftOut()) {
      m.exact[qi] = main;
      return main;
    }
    m.exactMain[qi] = main;
  }
  const sb = scoreBound(terms, main, weakName);
  if (!below(sb) && sb > prevScore) return main;
  const alt = alternativesPartBound(q, cand, org, true);
  const b = alt >= 1 ? 1 : Math.max(main, alt);
  m.exact[qi] = b;
  return b;
}

/** What bestNames computed for one content (and org flag) in a screen: per query name the cheap and the exact
 * bound (undefined until computed), and the best name score over the query names (−1 until computed) with the index
 * of the query name that gave it (the first with that score). */
interface ContentMemo {
  cheap: number[];
  /** the cheap bound without the alternatives, where cheapPass left them out (undefined otherwise) */
  main: number[];
  exact: number[];
  /** the exact bound without the alternatives, where exactPass left them out (undefined otherwise) */
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
      const exactFrom = (weakName ? weakFloor : floor) - BOUND_MARGIN;
      const prevScore = prev === undefined ? Number.NEGATIVE_INFINITY : prev.score;
      const arena = names.arena.data;
      const at = names.arena.at[id]!;
      let ub = 0;
      for (let qi = 0; qi < qs.length; qi++) {
        const q = qs[qi]!;
        let b = m.cheap[qi];
        if (b === undefined) {
          b = cheapPass(m, qi, q, cand, arena, at, org, exactFrom, terms, weakName, prevScore);
        }
        if (b >= exactFrom && scoreBound(terms, b, weakName) > prevScore) {
          let x = m.exact[qi];
          if (x === undefined)
            x = exactPass(m, qi, q, cand, arena, at, org, terms, weakName, prevScore, below);
          b = x;
        }
        if (b > ub) ub = b;
      }
      const sb = scoreBound(terms, ub, weakName);
      if (below(sb) || sb <= prevScore) continue;
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
