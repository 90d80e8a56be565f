-- Monitors: subjects rescreened on a schedule and, on every dataset promotion, against what changed.
create table monitors (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  applicant_id uuid,
  external_id text,
  subjects jsonb not null,
  datasets text[] not null,
  status text not null default 'active' check (status in ('active', 'paused', 'failed')),
  use_case text not null default 'ongoing',
  policy_version text not null,
  failure_reason text,
  interval_hours integer not null default 24,
  last_check_id uuid,
  last_checked_at timestamptz,
  last_dataset_partition text,
  next_due_at timestamptz,
  -- lower-cased subject names and ids, for the list's search filter
  search_text text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index monitors_tenant_seq on monitors (tenant_id, seq desc);
create index monitors_due on monitors (next_due_at) where status = 'active';
create index monitors_active_seq on monitors (seq) where status = 'active';
create index monitors_search_trgm on monitors using gin (search_text gin_trgm_ops);
create index alerts_subject_entity on alerts (tenant_id, subject_ref, source_entity_id, created_at desc);
