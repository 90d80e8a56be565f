// validatePolicy (server/policy/check-policy.ts): the cross-field rules JSON Schema cannot say, one test each; and
// the false-positive memory's rule for one (subject, entity) pair (server/alerts/alert-memory.ts).
import { describe, expect, it } from 'vitest';
import { type LastAlert, verdictFor } from '../../server/alerts/alert-memory.js';
import { ValidationError } from '../../server/errors.js';
import { DEFAULT_CHECK_POLICY, validatePolicy } from '../../server/policy/check-policy.js';

const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map((i) => i.loc);
    throw e;
  }
  return [];
};

describe('validatePolicy', () => {
  it('fills every field left out from the default policy', () => {
    const p = validatePolicy({ default_datasets: ['sanctions'] });
    const { policy_version: _v, ...defaults } = DEFAULT_CHECK_POLICY;
    expect(p).toEqual({ ...defaults, default_datasets: ['sanctions'] });
  });

  it('refuses an unknown matching algorithm, naming the field', () => {
    expect(
      issuesOf(() => validatePolicy({ default_datasets: ['pep'], aml_match_policy: { algorithm: 'nope' } })),
    ).toEqual([['body', 'aml_match_policy', 'algorithm']]);
  });

  it('refuses a fail threshold below the review threshold', () => {
    expect(
      issuesOf(() =>
        validatePolicy({
          default_datasets: ['pep'],
          aml_match_policy: { review_threshold: 0.9, fail_threshold: 0.8 },
        }),
      ),
    ).toEqual([['body', 'aml_match_policy', 'fail_threshold']]);
  });

  it('refuses a source both included and excluded', () => {
    expect(
      issuesOf(() =>
        validatePolicy({
          default_datasets: ['pep'],
          aml_match_policy: { include_sources: ['us_ofac_sdn'], exclude_sources: ['us_ofac_sdn'] },
        }),
      ),
    ).toEqual([['body', 'aml_match_policy', 'exclude_sources']]);
  });

  it('refuses a blocked country that is not an ISO 3166-1 alpha-2 code, naming its index', () => {
    expect(
      issuesOf(() => validatePolicy({ default_datasets: ['pep'], blocked_countries: ['ir', 'XX'] })),
    ).toEqual([['body', 'blocked_countries', 1]]);
  });

  it('stores blocked countries upper-cased, unique and sorted', () => {
    expect(
      validatePolicy({ default_datasets: ['pep'], blocked_countries: ['kp', 'IR'] }).blocked_countries,
    ).toEqual(['IR', 'KP']);
  });

  it('reports every broken rule at once', () => {
    expect(
      issuesOf(() =>
        validatePolicy({
          default_datasets: ['pep'],
          aml_match_policy: { algorithm: 'nope', review_threshold: 0.9, fail_threshold: 0.5 },
          blocked_countries: ['XX'],
        }),
      ),
    ).toHaveLength(3);
  });
});

describe('false-positive memory', () => {
  const last = (state: LastAlert['state'], fp: string | null): LastAlert => ({
    id: 'a1',
    state,
    fp,
    check_id: 'c1',
    assigned_to: null,
    disposition: null,
  });

  it('raises an alert for a pair never alerted before', () => {
    expect(verdictFor(undefined, 'fp1')).toEqual({ kind: 'raise', fingerprint: 'fp1' });
  });

  it('raises nothing for an unchanged hit on a pair with a working alert', () => {
    expect(verdictFor(last('in_review', 'fp1'), 'fp1').kind).toBe('skip');
  });

  it("refreshes a working alert's evidence when the entity's list data changed", () => {
    expect(verdictFor(last('pending_approval', 'fp1'), 'fp2')).toMatchObject({
      kind: 'refresh',
      alert_id: 'a1',
    });
  });

  it('remembers a closed alert (false positive or true match) while the list data is unchanged', () => {
    expect(verdictFor(last('closed_false_positive', 'fp1'), 'fp1').kind).toBe('skip');
    expect(verdictFor(last('closed_true_match', 'fp1'), 'fp1').kind).toBe('skip');
  });

  it('raises a new alert after a close once the list data changed', () => {
    expect(verdictFor(last('closed_false_positive', 'fp1'), 'fp2').kind).toBe('raise');
  });
});
