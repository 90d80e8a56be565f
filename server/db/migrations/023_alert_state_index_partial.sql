-- Issue 14: an alert is inserted 'open' (two a hit sync flow), and its (tenant_id, state, seq desc) index took an
-- entry for every one. Now it holds only the alerts in another state (server/db/list-filters.ts names 'open' as
-- the common value, as migration 020 did for checks, flows, applicants and the audit log): GET /v1/alerts?state=open
-- walks (tenant_id, seq desc) newest first and keeps the open ones; any other state uses this index.
drop index if exists alerts_tenant_state_seq;
create index alerts_tenant_state_seq on alerts (tenant_id, state, seq desc) where state <> 'open';
