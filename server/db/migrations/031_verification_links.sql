-- The applicant's journey (issue 33, docs/journey.md): one-time verification links, the applicant sessions they
-- open (held here, so a reload or another API process resumes them), the journey steps each session reached (the
-- funnel), and how each document was captured.

create table verification_links (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  flow_id uuid not null references flows (id),
  purpose text not null check (purpose in ('verification', 'handoff')),
  -- SHA-256 of the 128-bit token; the token itself is only in the link given out once
  token_hash bytea not null unique,
  redirect_url text,
  locale text,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  used_at timestamptz,
  revoked_at timestamptz,
  -- a hand-off link: the session that asked for it (applicant_sessions.id)
  parent_session_id uuid
);
create index verification_links_flow on verification_links (tenant_id, flow_id, seq desc);
create index verification_links_created on verification_links (tenant_id, created_at) where purpose = 'verification';

create table applicant_sessions (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  link_id uuid not null references verification_links (id),
  purpose text not null check (purpose in ('verification', 'handoff')),
  token_hash bytea not null unique,
  transport text not null check (transport in ('cookie', 'bearer')),
  locale text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz,
  end_reason text check (end_reason in ('revoked', 'cancelled')),
  submitted_at timestamptz
);
create index applicant_sessions_flow on applicant_sessions (flow_id);
create index applicant_sessions_link on applicant_sessions (link_id);
-- a hand-off link names the session that made it (no foreign key: links and sessions would reference each other)
create index verification_links_parent_session on verification_links (parent_session_id)
  where parent_session_id is not null;

create table applicant_session_steps (
  session_id uuid not null references applicant_sessions (id),
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  step text not null,
  reached_at timestamptz not null default now(),
  primary key (session_id, step)
);
create index applicant_session_steps_flow on applicant_session_steps (flow_id);

-- api: registered with a tenant credential; hosted_camera / hosted_upload: by an applicant session, which says how
alter table documents add column capture text not null default 'api'
  check (capture in ('api', 'hosted_camera', 'hosted_upload'));

-- applicant sessions write audit rows too (consent, intake, uploads)
alter table audit_log drop constraint if exists audit_log_actor_type_check;
alter table audit_log add constraint audit_log_actor_type_check
  check (actor_type in ('secret_key', 'publishable_key', 'operator', 'admin', 'system', 'applicant_session'));
