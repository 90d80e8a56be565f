-- Issue 14: a flow's flow.created, flow.completed and flow.decided events carry the same payload; in an outbox_sets
-- row (migration 021) an event whose payload equals an earlier event's of the same set stores {"p": <that event's
-- index in events>} instead of the payload (server/outbox/outbox.ts), ~2 × 170 bytes less a sync flow. The view reads
-- the payload through the index: every event is still one row with its payload, as before.
create or replace view outbox_events as
  select id, seq, tenant_id, type, resource_id, payload, created_at, delivered_at, request_id from outbox_rows
  union all
  select e.id, e.seq, s.tenant_id, e.type, coalesce(e.resource_id, s.flow_id),
    case when e.p is null then e.payload else s.events -> e.p -> 'payload' end,
    s.created_at, s.created_at, coalesce(s.request_id, e.request_id)
  from outbox_sets s
    cross join lateral rows from (
      jsonb_to_recordset(s.events) as (id uuid, type text, resource_id uuid, payload jsonb, request_id text, p int),
      unnest(s.seqs)
    ) as e (id, type, resource_id, payload, request_id, p, seq);
