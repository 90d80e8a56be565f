-- Issue 14: the events of a flow graph that no endpoint subscribes to are written as ONE row (server/outbox/outbox.ts).
-- A sync flow wrote six outbox rows (flow.created, check.completed, alert.created per alert, flow.completed,
-- flow.decided), each a heap tuple, a primary-key entry and a foreign-key check, all written already relayed: the
-- relay never reads them. They are now one outbox_sets row per flow, its events (each with its own id and seq) in a
-- jsonb array. Events some endpoint subscribes to, and events written outside a flow graph, stay rows of their own:
-- the relay's unit, and what webhook_deliveries reference, is unchanged. A flow's events go to rows of their own, as
-- before, when an endpoint of the tenant subscribes to any of them.
alter table outbox_events rename to outbox_rows;
alter sequence outbox_events_seq_seq rename to outbox_seq;

create table outbox_sets (
  tenant_id uuid not null references tenants (id),
  -- the flow whose graph wrote these events; every event is about the flow or a check or alert it created, so the
  -- erasure deletes the set with the flow (by this column's name, as for any table with a flow_id)
  flow_id uuid not null,
  created_at timestamptz not null default now(),
  -- the request that caused the events, when they share one (else each event's own)
  request_id text,
  -- each event's seq (from outbox_seq, as the rows'), in the order of events
  seqs bigint[] not null,
  -- [{id, type, resource_id (absent: the flow), payload, request_id (absent: the set's)}]; written relayed
  -- (delivered_at = created_at)
  events jsonb not null
);
alter table outbox_sets alter column events set compression lz4;
-- only the erasure reads sets by flow: the ids are time-ordered (UUIDv7), as for outbox_resource (migration 020)
create index outbox_sets_flow on outbox_sets using brin (flow_id uuid_minmax_multi_ops) with (autosummarize = on);

-- Every event, one row each, as before: what tests, operators and audits read. The relay, the deliveries and the
-- erasure use the tables.
create view outbox_events as
  select id, seq, tenant_id, type, resource_id, payload, created_at, delivered_at, request_id from outbox_rows
  union all
  select e.id, e.seq, s.tenant_id, e.type, coalesce(e.resource_id, s.flow_id), e.payload, s.created_at, s.created_at,
    coalesce(s.request_id, e.request_id)
  from outbox_sets s
    cross join lateral rows from (
      jsonb_to_recordset(s.events) as (id uuid, type text, resource_id uuid, payload jsonb, request_id text),
      unnest(s.seqs)
    ) as e (id, type, resource_id, payload, request_id, seq);
