// screen() skips a candidate name whose score bound cannot reach the threshold or beat its entity's best name so
// far, and picks an entity's best name with the weak-alias discount already applied. Both must hold for the feature
// weights in force (the policy allows each in [0, 10]): a weak alias weighs `weak_alias` × its discount against
// `name` × the name score, so a fixed penalty in name-score units lost matches or reported a weaker name.
import { describe, expect, it } from 'vitest';
import type { Entity, EntityName } from '../../ingest/entity.js';
import {
  buildIndex,
  openIndex,
  resolvePolicy,
  type ScreenOptions,
  type ScreenSubject,
} from '../../matcher/index.js';
import { listedEntity as ent } from '../helpers/entities.js';

const primary = (value: string): EntityName => ({ value, kind: 'primary' });
const alias = (value: string): EntityName => ({ value, kind: 'alias' });
const weak = (value: string): EntityName => ({ value, kind: 'weak' });

// names of one entity close to each other, so that a weak alias and a strong name score a few hundredths apart
const ENTITIES: Entity[] = [
  ent('1', 'Person', [primary('Ivan Demovsky'), weak('Ivan Demovskiy'), alias('Ivan Petrovich Demovskoy')], {
    birth_dates: ['1961-04-02'],
    nationalities: ['RU'],
  }),
  ent('2', 'Person', [primary('Ivan Demovskoy'), weak('Ivan Demovski')]),
  ent('3', 'Person', [weak('Ivan Demovsky'), primary('Ivan Petrov Demovskiy')], { nationalities: ['UA'] }),
  ent('4', 'Person', [primary('Ivan Demowski'), weak('Iwan Demovsky'), weak('Ivan Demowska')]),
  ent('5', 'Company', [primary('Demovsky Trading LLC'), weak('Demovsky Trading')]),
  ent('6', 'Person', [primary('Ivan Demovskaya'), weak('Ivan Demovsk')], { birth_dates: ['1961'] }),
];

const SUBJECTS: ScreenSubject[] = [
  { name: 'Ivan Demovsky' },
  { name: 'Ivan Demovskiy', date_of_birth: '1961-04-02', nationality: 'RU' },
  { name: 'Iwan Demowsky' },
  { name: 'Ivan Demovskoi', nationality: 'UA' },
  { name: 'Demovsky Ivan', date_of_birth: '1962' },
  { name: 'Ivan P. Demovsky', type: 'person' },
  { name: 'Demovsky Trading', type: 'company' },
];

const WEIGHTS: Record<string, number>[] = [
  {},
  { weak_alias: 0 },
  { weak_alias: 10 },
  { name: 2 },
  { name: 0.5 },
  { name: 0.5, weak_alias: 3 },
  { name: 2, weak_alias: 0.5, dob: 0, nationality: 0 },
  { name: 1, weak_alias: 0, dob: 0, nationality: 0 },
  { name: 3, weak_alias: 10, dob: 2 },
  { name: 0, weak_alias: 1 },
  { name: 0, weak_alias: 0 },
];

const THRESHOLDS = [0.5, 0.75, 0.85, 0.9, 0.95];

function options(weights: Record<string, number>, min_score: number): ScreenOptions {
  return {
    datasets: ['sanctions'],
    policy: resolvePolicy({ include_weak_aliases: true, feature_weights: weights }),
    min_score,
    limit: 100,
  };
}

/** Each entity's score with no pruning: every name scored alone (an index of the entity with that one name, where
 * no floor applies and no other name competes), the best of them kept. */
function unpruned(e: Entity, subject: ScreenSubject, weights: Record<string, number>): number | undefined {
  let best: number | undefined;
  for (const n of e.names) {
    const one = openIndex(buildIndex([{ ...e, names: [n] }], 'one'));
    const s = one.screen(subject, options(weights, 0)).matches[0]?.score;
    if (s !== undefined && (best === undefined || s > best)) best = s;
  }
  return best;
}

describe('screen with weak aliases and feature weights', () => {
  it("reports each entity's score as scoring every one of its names in full would", () => {
    const diffs: string[] = [];
    let compared = 0;
    for (const e of ENTITIES) {
      const screener = openIndex(buildIndex([e], 'entity'));
      for (const weights of WEIGHTS)
        for (const subject of SUBJECTS) {
          const want = unpruned(e, subject, weights);
          for (const t of THRESHOLDS) {
            const r = screener.screen(subject, options(weights, t));
            // every name is a candidate: the comparison is about the pruning, not about retrieval
            if (r.candidates !== e.names.length)
              diffs.push(`${e.entity_id} ${subject.name}: ${r.candidates} candidates`);
            const got = r.matches[0]?.score;
            const expected = want !== undefined && want >= t ? want : undefined;
            if (got !== expected)
              diffs.push(
                `${e.entity_id} ${subject.name} ${JSON.stringify(weights)} t=${t}: ${got}, unpruned ${expected}`,
              );
            if (expected !== undefined) compared++;
          }
        }
    }
    expect(diffs).toEqual([]);
    expect(compared).toBeGreaterThan(500);
  });
});
