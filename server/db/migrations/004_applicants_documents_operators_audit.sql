-- Applicant search and erasure, documents on S3, operators and sessions, native apps, audit log.

create extension if not exists pg_trgm;

-- What an operator needs to recognise an e-mail address without storing it: "j•••@example.com".
alter table applicants add column email_hint text;
-- One lower-cased text per applicant for `q`: substring search over external_id, email_hash and the names,
-- indexed with trigrams so that '%q%' stays fast at millions of rows.
alter table applicants add column search_text text generated always as (
  lower(
    coalesce(external_id, '') || ' ' || coalesce(email_hash, '') || ' ' || coalesce(legal_name_first, '') || ' ' ||
    coalesce(legal_name_middle, '') || ' ' || coalesce(legal_name_last, '') || ' ' || coalesce(business_name, '')
  )
) stored;
create index applicants_search_trgm on applicants using gin (search_text gin_trgm_ops);
create index applicants_tenant_status_seq on applicants (tenant_id, internal_status, seq desc);
create index applicants_email_hash on applicants (tenant_id, email_hash) where email_hash is not null;

-- Erasure requests: the durable record that drives the (resumable) purge job. No foreign key to applicants:
-- the applicant row is deleted by the purge; this row (identifiers and hashes only) stays.
create table applicant_erasures (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  applicant_id uuid not null unique,
  external_id_hash text,
  status text not null default 'scheduled' check (status in ('scheduled', 'completed')),
  actor_type text not null,
  actor_id text,
  request_id text,
  attempts integer not null default 0,
  stats jsonb not null default '{}',
  requested_at timestamptz not null default now(),
  completed_at timestamptz
);
create index applicant_erasures_open on applicant_erasures (requested_at) where status <> 'completed';

-- Documents: bytes live in S3 under tenants/<tenant_id>/applicants/<applicant_id>/documents/<document_id>.
create table documents (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  flow_id uuid not null references flows (id),
  applicant_id uuid not null references applicants (id),
  doc_type text not null,
  side text not null,
  mime_type text not null,
  storage_key text not null unique,
  upload_status text not null default 'pending'
    check (upload_status in ('pending', 'uploaded', 'verified', 'rejected')),
  rejection_reason text,
  size_bytes bigint,
  upload_expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  verified_at timestamptz
);
create index documents_flow on documents (tenant_id, flow_id, seq);
create index documents_applicant on documents (applicant_id);

-- Operators: staff of a tenant who use the dashboard. Their e-mail is a login name (staff data, not data-subject
-- PII) and is stored; the password only as an scrypt hash.
create table operators (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  email text not null,
  name text not null,
  role text not null check (role in ('analyst', 'supervisor', 'admin')),
  password_hash text not null,
  disabled_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index operators_tenant_email on operators (tenant_id, lower(email));
create index operators_tenant_seq on operators (tenant_id, seq desc);

create table operator_sessions (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  operator_id uuid not null references operators (id),
  -- sha256 of the cookie value; the value itself is never stored
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index operator_sessions_operator on operator_sessions (operator_id);

create table native_apps (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  platform text not null check (platform in ('ios', 'android')),
  identifier text not null,
  tenant_path text not null,
  ios_team_id text,
  android_signing_fingerprints text[] not null default '{}',
  enabled boolean not null default true,
  environments text[] not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, platform, identifier)
);
create index native_apps_tenant_seq on native_apps (tenant_id, seq desc);

-- Audit log: identifiers and hashes only, never personal data; no foreign keys so that rows survive erasure.
create table audit_log (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null,
  tenant_id uuid,
  actor_type text not null check (actor_type in ('secret_key', 'publishable_key', 'operator', 'admin', 'system')),
  actor_id text,
  action text not null,
  resource_type text not null,
  resource_id text,
  request_id text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_tenant_seq on audit_log (tenant_id, seq desc);
create index audit_log_tenant_action on audit_log (tenant_id, action, seq desc);
create index audit_log_tenant_resource on audit_log (tenant_id, resource_id, seq desc);

-- The audit log is append-only.
create function audit_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only' using errcode = 'P0001';
end $$;
create trigger audit_log_no_change before update or delete on audit_log
  for each row execute function audit_log_append_only();
