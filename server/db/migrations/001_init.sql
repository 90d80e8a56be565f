-- Foundation schema. Forward-only: later changes go in new numbered files.

create table tenants (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  plan text not null check (plan in ('self_serve', 'contract')),
  status text not null default 'active' check (status in ('active', 'pending_verification', 'suspended')),
  allowance integer check (allowance is null or allowance >= 0),
  consumed integer not null default 0,
  allowed_origins text[] not null default '{}',
  is_demo boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  kind text not null check (kind in ('secret', 'publishable')),
  -- sha256 of the whole key; the key itself is shown once and never stored
  key_hash bytea not null unique,
  -- first characters, to recognise a key in logs and listings
  key_prefix text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_tenant on api_keys (tenant_id);

create table dataset_versions (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null unique,
  name text not null,
  status text not null check (status in ('building', 'ready', 'failed', 'active')),
  sources jsonb not null default '[]',
  stats jsonb not null default '{}',
  notes text,
  error text,
  created_at timestamptz not null default now(),
  ready_at timestamptz,
  promoted_at timestamptz,
  retired_at timestamptz
);
-- at most one active version at a time
create unique index dataset_versions_one_active on dataset_versions ((true)) where status = 'active';

create table dataset_entities (
  version_id uuid not null references dataset_versions (id) on delete cascade,
  entity_id text not null,
  data jsonb not null,
  primary key (version_id, entity_id)
);

create table applicants (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  external_id text,
  entity_type text not null default 'individual' check (entity_type in ('individual', 'business')),
  legal_name_first text,
  legal_name_middle text,
  legal_name_last text,
  business_name text,
  dob text,
  nationality text,
  email_hash text,
  address jsonb not null default '{}',
  consent jsonb,
  custom_attributes jsonb not null default '{}',
  internal_status text not null default 'active',
  risk_tier text,
  erased_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index applicants_tenant_seq on applicants (tenant_id, seq desc);

create table flow_templates (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  slug text not null,
  name text not null,
  description text,
  required_checks text[] not null,
  allowed_document_types text[] not null default '{}',
  default_datasets text[],
  document_capture_mode text not null default 'live_or_upload',
  passport_nfc_behavior text not null default 'optional',
  intake_fields text[] not null default '{}',
  required_documents jsonb not null default '[]',
  default_decision text not null default 'AUTO_APPROVED',
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, slug)
);

create table flows (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  applicant_id uuid not null references applicants (id),
  flow_template_id uuid references flow_templates (id),
  template_slug text,
  type text not null,
  status text not null,
  decision text,
  decision_reason_codes text[] not null default '{}',
  execution_mode text not null check (execution_mode in ('sync', 'async')),
  datasets text[] not null,
  client_metadata jsonb not null default '{}',
  extracted_fields jsonb not null default '{}',
  failure_reason text,
  policy_version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index flows_tenant_seq on flows (tenant_id, seq desc);
create index flows_applicant on flows (applicant_id);

create table checks (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  flow_id uuid references flows (id),
  applicant_id uuid references applicants (id),
  applicant_name text,
  batch_id uuid,
  check_type text not null,
  status text not null,
  result text not null,
  decision text,
  mode text not null,
  use_case text,
  input_ref text,
  latency_ms double precision not null,
  dataset_versions text[] not null default '{}',
  datasets text[] not null default '{}',
  policy_version text,
  error text,
  evidence jsonb not null default '{}',
  alert_count integer not null default 0,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index checks_tenant_seq on checks (tenant_id, seq desc);
create index checks_flow on checks (flow_id);
create index checks_applicant on checks (tenant_id, applicant_id, seq desc);
create index checks_type on checks (tenant_id, check_type, seq desc);

-- Checks are immutable records: a rerun records a new check. Erasure deletes rows; nothing updates them.
create function checks_insert_only() returns trigger language plpgsql as $$
begin
  raise exception 'checks are insert-only (check %)', old.id using errcode = 'P0001';
end $$;
create trigger checks_no_update before update on checks for each row execute function checks_insert_only();
