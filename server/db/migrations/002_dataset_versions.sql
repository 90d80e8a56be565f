-- Dataset versions are built by workers and stored as index artifacts in S3; FATF listings are versioned.
alter table dataset_versions add column artifact_key text;
alter table dataset_versions add column checksum text;

create table fatf_listings (
  version serial primary key,
  listings jsonb not null,
  created_at timestamptz not null default now()
);
