-- A flow's wide jsonb values (a check's evidence with hits, an alert's evidence, a flow's outbox event set) pass
-- Postgres's 2 kB TOAST threshold about every other flow and were compressed with pglz, the default: pglz_compress
-- was ~3 % of the Postgres backends' CPU in bench:flows' closed loop (perf, the flow-graph statement's backend). lz4
-- compresses the same values several times faster and reads them back faster, at a few per cent more bytes.
-- Storage only: values already written stay pglz and are read as before; what a query returns is unchanged.
-- A Postgres built without lz4 keeps pglz (the statement fails there with feature_not_supported).
do $$
begin
  alter table checks alter column evidence set compression lz4;
  alter table alerts alter column evidence set compression lz4;
  alter table outbox_sets alter column events set compression lz4;
  alter table outbox_rows alter column payload set compression lz4;
exception when feature_not_supported then
  raise notice 'lz4 not supported by this Postgres build: TOAST compression stays pglz';
end
$$;
