-- List feeds (server/datasets/feeds.ts): sources fetched on a schedule, built into a version when their content
-- changed, validated, and promoted per the feed's policy.
create table dataset_feeds (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null unique,
  name text not null,
  format text not null,
  uri text not null,
  interval_minutes integer not null check (interval_minutes between 1 and 10080),
  promote text not null check (promote in ('auto', 'manual')),
  max_shrink_fraction double precision not null check (max_shrink_fraction between 0 and 1),
  enabled boolean not null default true,
  etag text,
  last_modified text,
  content_sha256 text,
  next_due_at timestamptz not null default now(),
  last_checked_at timestamptz,
  last_status text check (last_status in ('unchanged', 'ready', 'promoted', 'refused', 'failed', 'error')),
  last_error text,
  last_version_id uuid references dataset_versions (id) on delete set null,
  -- the snapshot of this feed in its last accepted version (replaced by the next one) and its entity count
  last_source_uri text,
  last_entities integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index dataset_feeds_due on dataset_feeds (next_due_at) where enabled;

alter table dataset_versions add column feed_id uuid references dataset_feeds (id) on delete set null;
create index dataset_versions_feed_building on dataset_versions (feed_id) where status = 'building';
