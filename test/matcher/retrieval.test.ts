// Retrieval's early stop: once the keys still to walk cannot lift a name to topCandidates' cutoff, retrieval stops
// taking new names and accumulates only the names that still can. The candidates must be the ones a full walk gives.
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../ingest/entity.js';
import { buildIndex, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { cannotReach } from '../../matcher/retrieval.js';
import { personEntity } from '../helpers/entities.js';

/** A deterministic generator (xorshift32) in [0, 1). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/** The weight retrieval keeps: each addition rounded to float32. */
function accumulate(start: number, adds: readonly number[]): number {
  const acc = new Float32Array(1);
  acc[0] = start;
  for (const a of adds) acc[0] = acc[0]! + a;
  return acc[0]!;
}

describe('cannotReach (retrieval early stop)', () => {
  it('never rules out a name whose float32 weight reaches the cut', () => {
    const r = rng(15);
    let ruledOut = 0;
    let roundedUp = 0;
    for (let trial = 0; trial < 20_000; trial++) {
      const keys = 1 + Math.floor(r() * 40);
      const adds = Array.from({ length: keys }, () => (r() < 0.5 ? r() * 0.01 : r() * 20));
      const start = Math.fround(r() * 50);
      const rest = adds.reduce((a, b) => a + b, 0);
      const final = accumulate(start, adds);
      if (final > start + rest) roundedUp++;
      // cuts around the exact sum, from just below to just above it
      for (const rel of [-1e-3, -1e-6, 0, 1e-7, 1e-6, 1e-5, 1e-3]) {
        const cut = (start + rest) * (1 + rel);
        if (cannotReach(start, rest, keys, cut)) {
          ruledOut++;
          expect(final).toBeLessThan(cut);
        }
      }
    }
    // the float32 sums do exceed the exact ones (the slack is needed), and the test does rule names out
    expect(roundedUp).toBeGreaterThan(0);
    expect(ruledOut).toBeGreaterThan(1000);
  });

  it('rules out names when the rest is small against the cut, not when it may reach it', () => {
    expect(cannotReach(0, 1, 3, 3)).toBe(true);
    expect(cannotReach(2, 1, 3, 3)).toBe(false);
    expect(cannotReach(1.9, 1, 3, 3)).toBe(true);
  });
});

describe('screen with retrieval stopping early', () => {
  const person = (id: string, name: string): Entity => personEntity('us_ofac_sdn', id, name);
  const others = [
    ...'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron'.split(' '),
    ...'pi rho sigma tau upsilon phi chi psi omega mercury venus earth mars jupiter saturn'.split(' '),
    ...'uranus neptune pluto'.split(' '),
  ];
  // 1,000 names of the common token, then 33 of the rare one with other tokens, then the rare one with the common
  // one, indexed last: tied with the 33 on the rare keys, so it is among the 32 candidates only if the common keys
  // walked after the stop still add to it
  const entities: Entity[] = [
    ...Array.from({ length: 1000 }, (_, i) => person(`m${i}`, 'Mohammed')),
    ...others.map((t, i) => person(`z${i}`, `Zyxwvut ${t}`)),
    person('target', 'Zyxwvut Mohammed'),
  ];
  const screener = openIndex(buildIndex(entities, 'stop-v1'));

  it('keeps accumulating the names that can still be candidates', () => {
    expect(others.length).toBe(33);
    const r = screener.screen(
      { name: 'Zyxwvut Mohammed' },
      { datasets: ['sanctions'], policy: DEFAULT_POLICY },
    );
    expect(r.candidates).toBe(32);
    expect(r.matches.map((m) => m.entity_id)).toEqual(['us_ofac_sdn:target']);
  });
});
