-- Webhook endpoints, deliveries and attempts. Deliveries come from the transactional outbox (003) through JetStream.

-- events that concern every tenant (dataset_version.promoted) have no tenant
alter table outbox_events alter column tenant_id drop not null;

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  seq bigserial not null,
  url text not null,
  events text[] not null,
  enabled boolean not null default true,
  disabled_reason text,
  -- AES-256-GCM sealed: signatures need the secret itself, so it cannot be a one-way hash
  secret_sealed text not null,
  -- the secret before the last rotation stays valid (a second v1 signature) until previous_secret_expires_at
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  consecutive_failures integer not null default 0,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_tenant on webhook_endpoints (tenant_id, seq desc) where deleted_at is null;

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null,
  tenant_id uuid not null references tenants (id),
  endpoint_id uuid not null references webhook_endpoints (id),
  event_id uuid not null references outbox_events (id),
  event_type text not null,
  status text not null default 'pending' check (status in ('pending', 'retrying', 'succeeded', 'failed')),
  attempts integer not null default 0,
  last_status_code integer,
  last_error text,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  -- set once the delivery's job is on JetStream; a relay pass republishes rows left unpublished by a crash
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_unpublished on webhook_deliveries (created_at) where published_at is null;
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, seq desc);

create table webhook_attempts (
  id bigserial primary key,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  status_code integer,
  error text,
  duration_ms integer not null,
  created_at timestamptz not null default now()
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, id);
