-- Chip data of identity documents (issue 28): what a reader app sent for a passport or ID card, and what the
-- identity worker made of it. Personal and biometric data (DG1 is the MRZ, DG2 the portrait): every table carries
-- applicant_id, so the erasure purge removes it with the applicant.

-- One row per document whose chip was submitted; the verification fills report … verified_at.
create table document_chips (
  document_id uuid primary key references documents (id),
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  applicant_id uuid not null,
  data_groups integer[] not null,
  active_authentication boolean not null default false,
  submitted_at timestamptz not null default now(),
  -- the identity worker's report (identity/chip ChipReport) and the trust-store version it was verified against
  report jsonb,
  verified boolean,
  trust_store_version integer,
  -- the chip portrait as JPEG in the object store (under the applicant's prefix)
  portrait_key text,
  face_count integer,
  error text,
  checked_at timestamptz,
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id)
);
create index document_chips_flow on document_chips (tenant_id, flow_id);
create index document_chips_applicant on document_chips (applicant_id);

-- The bytes as read from the chip: sod, dg1 … dg16, document_signer, aa_challenge, aa_signature.
create table document_chip_files (
  document_id uuid not null references document_chips (document_id),
  tenant_id uuid not null references tenants (id),
  applicant_id uuid not null,
  name text not null,
  bytes bytea not null,
  primary key (document_id, name),
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id)
);
create index document_chip_files_applicant on document_chip_files (applicant_id);

-- Active Authentication challenges: a random 8-byte nonce for one document, single use, short-lived.
create table chip_challenges (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  document_id uuid not null references documents (id),
  applicant_id uuid not null,
  nonce bytea not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id)
);
create index chip_challenges_applicant on chip_challenges (applicant_id);

-- The chip portrait's face embedding sits beside the printed portrait's, told apart by its source.
alter table face_embeddings add column source text not null default 'image' check (source in ('image', 'chip'));
alter table face_embeddings drop constraint face_embeddings_document_id_face_index_key;
alter table face_embeddings add constraint face_embeddings_document_source_face unique (document_id, source, face_index);
