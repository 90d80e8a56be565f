-- Identity verification (issue 11): what the identity worker read from each verified upload. Personal and
-- biometric data: every table here carries applicant_id and a foreign key to documents, so the erasure purge
-- (applicant-erasure.ts) removes it with the applicant.

-- One row per analysed upload: the MRZ reading (documents) and the faces found, WITHOUT their embeddings.
create table document_readings (
  document_id uuid primary key references documents (id),
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  applicant_id uuid not null,
  kind text not null check (kind in ('document', 'selfie')),
  reading jsonb,
  faces jsonb not null default '[]',
  face_count integer not null default 0,
  -- the analysed image's size after EXIF orientation (face boxes are in these pixels)
  image_width integer,
  image_height integer,
  error text,
  took_ms double precision not null default 0,
  created_at timestamptz not null default now(),
  -- a row names an applicant of its own tenant only (010_tenant_scoped_applicant_refs.sql)
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id)
);
create index document_readings_flow on document_readings (tenant_id, flow_id);
create index document_readings_applicant on document_readings (applicant_id);

-- Face embeddings: their own table, never selected by any API route; stored only with consent.biometric.
create table face_embeddings (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  applicant_id uuid not null,
  document_id uuid not null references documents (id),
  face_index integer not null,
  embedding real[] not null,
  created_at timestamptz not null default now(),
  unique (document_id, face_index),
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id)
);
create index face_embeddings_applicant on face_embeddings (applicant_id);

-- Where each extracted field came from (shape B's extracted_field_sources): field → 'mrz' | 'applicant_input'.
alter table flows add column extracted_field_sources jsonb not null default '{}';

-- ICAO 9303 issuing-state codes (3 letters, as in the MRZ) a template accepts; empty = any.
alter table flow_templates add column allowed_issuing_countries text[] not null default '{}';
