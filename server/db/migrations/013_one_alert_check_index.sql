-- Issue 14: alerts by check are found through the unique (check_id, source_entity_id) index (a check has a few
-- alerts; the tenant is a filter on them): alerts_tenant_check was one more index entry per alert for nothing.
drop index if exists alerts_tenant_check;
