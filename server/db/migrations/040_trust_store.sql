-- The ePassport trust store (issue 28): the CSCA certificates and CRLs an operator loads, deployment-wide (a state's
-- CSCA is public and the same for every tenant). Versioned: every change is a new version, each entry carries the
-- version that added it and the one that removed it, so any version's content can be listed again, and a chip's
-- check records the version that verified it.
create table trust_store_versions (
  version integer primary key,
  change text not null check (change in ('master_list_loaded', 'csca_added', 'crl_added', 'entry_removed')),
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);

create table trust_store_entries (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('csca', 'crl')),
  -- ISO 3166-1 alpha-2: the certificate subject's C, the CRL issuer's C
  country text not null,
  subject text not null,
  issuer text not null,
  serial_number text,
  -- certificates: the validity period; CRLs: thisUpdate and nextUpdate
  not_before timestamptz not null,
  not_after timestamptz,
  fingerprint_sha256 text not null,
  der bytea not null,
  source text not null check (source in ('master_list', 'upload')),
  source_details jsonb not null default '{}',
  added_in_version integer not null references trust_store_versions (version),
  removed_in_version integer references trust_store_versions (version)
);
create unique index trust_store_entries_current on trust_store_entries (fingerprint_sha256)
  where removed_in_version is null;
create index trust_store_entries_country on trust_store_entries (country, kind) where removed_in_version is null;
