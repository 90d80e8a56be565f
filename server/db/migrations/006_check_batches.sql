-- Check batches: one row per batch, one row per subject to screen; each screened subject records one check.
create table check_batches (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  status text not null default 'queued' check (status in ('queued', 'processing', 'completed', 'failed')),
  use_case text not null,
  datasets text[] not null,
  mode text not null default 'async',
  policy_version text not null,
  subject_count integer not null,
  completed_count integer not null default 0,
  error_count integer not null default 0,
  chunk_size integer not null,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index check_batches_tenant_seq on check_batches (tenant_id, seq desc);
create index check_batches_queued on check_batches (created_at) where status = 'queued';

create table batch_subjects (
  batch_id uuid not null references check_batches (id) on delete cascade,
  idx integer not null,
  tenant_id uuid not null,
  applicant_id uuid,
  external_id text,
  subject jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'done', 'error')),
  check_id uuid,
  error text,
  primary key (batch_id, idx)
);
create index checks_tenant_batch on checks (tenant_id, batch_id, seq desc) where batch_id is not null;
