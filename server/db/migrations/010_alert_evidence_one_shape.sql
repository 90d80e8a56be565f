-- One alert evidence shape (server/checks/check-type.ts AlertEvidence): monitor alerts written before the screening
-- recorder nested the match under "match" (the dashboard reads "features" at the top level). Rewritten in place;
-- a pending four-eyes proposal made on the old evidence keeps its validity (its hash is carried over).
-- Safe to run again: only rows still in the old shape change.
with old as (
  select a.id, a.evidence as ev, a.evidence -> 'match' as m,
    coalesce((
      select (p.policy -> 'aml_match_policy' ->> 'fail_threshold')::float8
      from check_policies p join checks c on c.id = a.check_id
      where p.tenant_id = a.tenant_id and 'v' || p.version = c.policy_version
    ), 0.95) as fail_threshold
  from alerts a
  where a.evidence ? 'match' and jsonb_typeof(a.evidence -> 'match') = 'object'
), migrated as (
  select id, ev, jsonb_build_object(
      'name', m -> 'name',
      'source', m -> 'source',
      'source_id', m -> 'source_id',
      'score', m -> 'score',
      'threshold', m -> 'evidence' -> 'threshold',
      'strong', coalesce((m ->> 'score')::float8 >= fail_threshold, false),
      'datasets', coalesce(m -> 'datasets', '[]'::jsonb),
      'programs', coalesce(m -> 'programs', '[]'::jsonb),
      'features', coalesce(m -> 'evidence' -> 'features', '{}'::jsonb),
      'matched_name', m -> 'evidence' -> 'matched_name',
      'dataset_version', coalesce(ev -> 'dataset_version', m -> 'evidence' -> 'dataset_version'),
      'entity_fingerprint', ev -> 'entity_fingerprint'
    ) || case when ev ? 'refreshed_by_check_id'
              then jsonb_build_object('refreshed_by_check_id', ev -> 'refreshed_by_check_id')
              else '{}'::jsonb end as evidence
  from old
)
update alerts a set
  evidence = n.evidence,
  proposed_evidence_hash = case
    when a.proposed_evidence_hash = encode(sha256(convert_to(n.ev::text, 'UTF8')), 'hex')
      then encode(sha256(convert_to(n.evidence::text, 'UTF8')), 'hex')
    else a.proposed_evidence_hash end
from migrated n
where a.id = n.id;
