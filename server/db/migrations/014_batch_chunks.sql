-- Issue 14, batches at matcher speed: a batch's subjects are stored one row per chunk (its subjects as one jsonb
-- array) instead of one row per subject, and a chunk is marked done as a whole in the transaction that records its
-- checks, instead of one row update per subject. Records settled one by one (a record that cannot be recorded, or
-- one screened alone after its chunk failed) get a row of their own in batch_records, with the reason of an error.
-- Per 100,000-record batch that is some 400 rows written instead of 200,000 (insert + update per subject).
create table batch_chunks (
  batch_id uuid not null references check_batches (id) on delete cascade,
  from_idx integer not null,
  to_idx integer not null,
  tenant_id uuid not null,
  -- [{applicant_id, external_id, subject}] for idx from_idx … to_idx - 1
  subjects jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'done')),
  primary key (batch_id, from_idx),
  check (to_idx > from_idx)
);
-- read whole, once or twice, never searched: no compression work on the write path
alter table batch_chunks alter column subjects set storage external;

create table batch_records (
  batch_id uuid not null references check_batches (id) on delete cascade,
  idx integer not null,
  status text not null check (status in ('done', 'error')),
  error text,
  primary key (batch_id, idx)
);

-- batches stored before: their subjects regrouped by chunk, the records already settled kept as settled
insert into batch_chunks (batch_id, from_idx, to_idx, tenant_id, subjects, status)
select s.batch_id, (s.idx / b.chunk_size) * b.chunk_size,
       least((s.idx / b.chunk_size) * b.chunk_size + b.chunk_size, b.subject_count), b.tenant_id,
       jsonb_agg(jsonb_build_object('applicant_id', s.applicant_id, 'external_id', s.external_id, 'subject', s.subject)
                 order by s.idx),
       case when bool_and(s.status <> 'pending') then 'done' else 'pending' end
from batch_subjects s join check_batches b on b.id = s.batch_id
group by s.batch_id, s.idx / b.chunk_size, b.chunk_size, b.subject_count, b.tenant_id;
insert into batch_records (batch_id, idx, status, error)
select batch_id, idx, status, error from batch_subjects where status <> 'pending';
drop table batch_subjects;
