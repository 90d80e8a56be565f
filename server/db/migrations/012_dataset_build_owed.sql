-- A build requested through the API owes a dataset_build job until it is published (a crash or a NATS error
-- between the commit and the publish is healed by the reconciler in server/datasets/lifecycle.ts).
alter table dataset_versions add column build_job_owed boolean not null default false;
create index dataset_versions_build_owed on dataset_versions (seq) where build_job_owed;
