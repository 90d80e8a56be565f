-- A presigned upload issued just before an erasure can still land afterwards: each completed erasure sweeps the
-- applicant's storage prefix once more after every such URL has expired.
alter table applicant_erasures add column resweep_done_at timestamptz;
create index applicant_erasures_resweep on applicant_erasures (requested_at)
  where status = 'completed' and resweep_done_at is null;
