-- Idempotency-Key records live in Postgres, written in the transaction of the request they answer: the stored
-- request and its key are one decision (a retry after any failure finds either both or neither).
create table idempotency_keys (
  tenant_id uuid not null references tenants (id) on delete cascade,
  scope text not null,
  key text not null,
  body_sha256 text not null,
  status integer not null,
  response jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, scope, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
