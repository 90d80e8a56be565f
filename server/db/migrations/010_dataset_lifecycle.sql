-- Dataset lifecycle (server/datasets/lifecycle.ts): each promotion is a row written in the promotion's
-- transaction, so the monitor-delta job it owes is queued until published (a lost publish heals by itself).
create table dataset_promotions (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null unique,
  from_version uuid references dataset_versions (id) on delete cascade,
  to_version uuid not null references dataset_versions (id) on delete cascade,
  promoted_at timestamptz not null default now(),
  delta_queued_at timestamptz
);
create index dataset_promotions_delta_pending on dataset_promotions (seq) where delta_queued_at is null;

-- sources are URIs (the API's own pattern): bare absolute paths written by older CLI/demo loaders become file://
update dataset_versions
set sources = (
  select coalesce(jsonb_agg(
    case when s ->> 'uri' like '/%' then jsonb_set(s, '{uri}', to_jsonb('file://' || (s ->> 'uri'))) else s end
    order by n), '[]'::jsonb)
  from jsonb_array_elements(sources) with ordinality as e (s, n)
)
where exists (select 1 from jsonb_array_elements(sources) s where s ->> 'uri' like '/%');
