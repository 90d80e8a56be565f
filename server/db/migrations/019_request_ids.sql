-- The request that caused an event (and so its webhook deliveries): the deliveries' job log lines carry its id.
alter table outbox_events add column request_id text;
alter table webhook_deliveries add column request_id text;
