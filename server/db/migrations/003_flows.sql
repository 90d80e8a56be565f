-- Flows issue: check policy versions, template listing, processing runs, review, alerts, transactional outbox.

-- Every PUT stores a new version; the newest row per tenant is the policy in force (no row = documented defaults).
create table check_policies (
  tenant_id uuid not null references tenants (id),
  version integer not null,
  policy jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, version)
);

alter table flow_templates add column seq bigserial not null;
create index flow_templates_tenant_seq on flow_templates (tenant_id, seq desc);

-- process_run counts PENDING/AWAITING_INPUT → PROCESSING moves; a job carries the run it was published for.
alter table flows add column process_run integer not null default 0;
alter table flows add column reviewed_by text;
alter table flows add column reviewed_at timestamptz;
alter table flows add column input_ref text;
create index flows_tenant_status on flows (tenant_id, status, seq desc);
create index flows_tenant_decision on flows (tenant_id, decision, seq desc);
create index flows_tenant_type on flows (tenant_id, type, seq desc);

-- run_key makes check recording idempotent: a redelivered job finds the check its first delivery recorded.
alter table checks add column run_key text;
alter table checks add column reason_codes text[] not null default '{}';
create unique index checks_flow_run_key on checks (flow_id, run_key) where run_key is not null;
create index checks_tenant_status on checks (tenant_id, status, seq desc);
create index checks_tenant_result on checks (tenant_id, result, seq desc);
create index checks_tenant_decision on checks (tenant_id, decision, seq desc);
create index checks_tenant_use_case on checks (tenant_id, use_case, seq desc);
create index checks_tenant_input_ref on checks (tenant_id, input_ref, seq desc);
create index checks_tenant_flow on checks (tenant_id, flow_id, seq desc);
create index checks_datasets on checks using gin (datasets);
-- search and reference: trigram matching over the screened name and the applicant's external reference
create extension if not exists pg_trgm;
alter table checks add column reference text;
create index checks_tenant_reference on checks (tenant_id, reference, seq desc);
create index checks_applicant_name_trgm on checks using gin (lower(applicant_name) gin_trgm_ops);
create index checks_reference_trgm on checks using gin (lower(reference) gin_trgm_ops);

create table alerts (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  check_id uuid not null references checks (id),
  flow_id uuid references flows (id),
  applicant_id uuid references applicants (id),
  state text not null default 'open',
  subject_ref text not null,
  source_entity_id text not null,
  evidence jsonb not null,
  four_eyes_required boolean not null,
  assigned_to text,
  reviewed_by text,
  disposed_by text,
  disposed_at timestamptz,
  disposition_reason text,
  disposition_evidence jsonb not null default '[]',
  escalated_at timestamptz,
  queue_sla_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- one alert per matched entity per check, however often a job is delivered
  unique (check_id, source_entity_id)
);
create index alerts_tenant_seq on alerts (tenant_id, seq desc);

-- Transactional outbox: written in the same transaction as the change it describes; the webhooks issue delivers it.
create table outbox_events (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null,
  tenant_id uuid not null references tenants (id),
  type text not null,
  resource_id uuid not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index outbox_undelivered on outbox_events (seq) where delivered_at is null;
create index outbox_tenant_resource on outbox_events (tenant_id, resource_id);
