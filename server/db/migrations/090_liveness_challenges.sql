-- Selfie liveness challenges (docs/journey.md, "Selfie liveness challenge"): a random sequence of head poses issued
-- for one flow, valid a few minutes; each pose gets one selfie frame (documents.liveness_challenge_id + pose).
-- No personal data: the frames are documents, erased with their applicant (applicant-erasure.ts follows the
-- foreign keys from flows).
create table liveness_challenges (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  flow_id uuid not null references flows (id),
  nonce text not null,
  poses text[] not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index liveness_challenges_flow on liveness_challenges (tenant_id, flow_id, created_at);

alter table documents
  add column liveness_challenge_id uuid references liveness_challenges (id),
  add column pose text;
-- one frame per pose of a challenge; a frame names both or neither
create unique index documents_one_frame_per_pose on documents (liveness_challenge_id, pose)
  where liveness_challenge_id is not null;
alter table documents add constraint documents_frame_has_pose
  check ((liveness_challenge_id is null) = (pose is null));
