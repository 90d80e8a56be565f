-- Issue 14: fewer index entries per sync flow and per batch record (bench:flows counted 53 a flow: applicants 5,
-- flows 6, checks 10, alerts 8 an alert, outbox 2 an event, audit 4; ~13 µs of Postgres CPU and ~70 bytes of WAL
-- each).
--
-- The list filters on a low-cardinality column (GET /v1/checks status, result, decision, check_type; GET /v1/flows
-- status, decision, type; GET /v1/applicants status; GET /v1/audit action, below) had a (tenant_id, <column>, seq desc) index holding every row.
-- Now each holds only the rows without the column's common value (server/db/list-filters.ts names them: the one
-- place the list queries take them from). A filter on a rare value repeats the index's predicate as literal text,
-- so that every plan may use the partial index (generic plans too, where the value is a parameter); a filter on the
-- common value walks (tenant_id, seq desc) newest first and keeps the matching rows, which are most of them.
drop index if exists checks_tenant_status;
create index checks_tenant_status on checks (tenant_id, status, seq desc) where status <> 'completed';
drop index if exists checks_tenant_result;
create index checks_tenant_result on checks (tenant_id, result, seq desc) where result <> 'clear';
drop index if exists checks_tenant_decision;
create index checks_tenant_decision on checks (tenant_id, decision, seq desc) where decision <> 'AUTO_APPROVED';
drop index if exists checks_type;
create index checks_type on checks (tenant_id, check_type, seq desc) where check_type <> 'aml_screen';
drop index if exists flows_tenant_status;
create index flows_tenant_status on flows (tenant_id, status, seq desc) where status <> 'APPROVED';
drop index if exists flows_tenant_decision;
create index flows_tenant_decision on flows (tenant_id, decision, seq desc) where decision <> 'AUTO_APPROVED';
drop index if exists flows_tenant_type;
create index flows_tenant_type on flows (tenant_id, type, seq desc) where type <> 'kyc';
drop index if exists applicants_tenant_status_seq;
create index applicants_tenant_status_seq on applicants (tenant_id, internal_status, seq desc)
  where internal_status <> 'active';

-- A batch's checks have no applicant and no flow: their applicant and flow indexes hold only the checks that have
-- one. Every query on them compares by equality (GET /v1/checks applicant_id and flow_id, the flow's checks, the
-- erasure's lookup), which implies "is not null".
drop index if exists checks_applicant;
create index checks_applicant on checks (tenant_id, applicant_id, seq desc) where applicant_id is not null;
drop index if exists checks_flow;
create index checks_flow on checks (flow_id) where flow_id is not null;

-- Outbox events by resource: only the erasure reads them (the events about the rows it deletes), so a btree entry
-- for every event (six a sync flow) was paid for a rare job. The ids are time-ordered (UUIDv7) and an event is
-- written with (or soon after) the row it is about, so a BRIN summary of resource_id by block range finds them;
-- minmax-multi keeps a range narrow when an event about an older row (alert.updated) lands in it.
drop index if exists outbox_tenant_resource;
create index outbox_resource on outbox_events using brin (resource_id uuid_minmax_multi_ops) with (autosummarize = on);

-- The audit row of a flow created by an operator or key (action createFlow, one a sync flow) is the bulk of a
-- flow-heavy tenant's audit log: its (tenant_id, action) index holds the other actions only, the same way.
drop index if exists audit_log_tenant_action;
create index audit_log_tenant_action on audit_log (tenant_id, action, seq desc) where action <> 'createFlow';
