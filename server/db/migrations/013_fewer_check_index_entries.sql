-- Issue 14: fewer index entries per check (every sync flow writes one check per check type, batches one per record).
-- (tenant_id, flow_id) is answered by checks_flow (flow_id): a flow has a handful of checks, sorted in memory.
drop index if exists checks_tenant_flow;
-- Columns that a flow's check leaves null are indexed only where set. Every query on them filters by equality or
-- LIKE on the column (GET /v1/checks: use_case, input_ref, reference, search), which implies "is not null", so the
-- partial indexes serve the same queries.
drop index if exists checks_tenant_use_case;
create index checks_tenant_use_case on checks (tenant_id, use_case, seq desc) where use_case is not null;
drop index if exists checks_tenant_input_ref;
create index checks_tenant_input_ref on checks (tenant_id, input_ref, seq desc) where input_ref is not null;
drop index if exists checks_tenant_reference;
create index checks_tenant_reference on checks (tenant_id, reference, seq desc) where reference is not null;
drop index if exists checks_reference_trgm;
create index checks_reference_trgm on checks using gin (lower(reference) gin_trgm_ops) where reference is not null;
