-- Entity consolidation (matcher/consolidate.ts): the links between entries of different sources that are the same
-- entity, found when a version is built and kept with it, so that a rebuilt index (another process, another
-- format) groups the entries exactly as the build did. `consolidated_id` is the entity id the group is known by
-- (alerts are raised per consolidated entity).
create table dataset_entity_links (
  version_id uuid not null references dataset_versions (id) on delete cascade,
  seq integer not null,
  entity_a text not null,
  entity_b text not null,
  consolidated_id text not null,
  rule text not null,
  score double precision not null,
  reason text not null,
  primary key (version_id, seq)
);
create index dataset_entity_links_entity on dataset_entity_links (version_id, entity_a);
create index dataset_entity_links_entity_b on dataset_entity_links (version_id, entity_b);
create index dataset_entity_links_consolidated on dataset_entity_links (version_id, consolidated_id);
