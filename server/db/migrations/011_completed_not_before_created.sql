-- Issue 12 item 14: completed_at is never before created_at. Rows written already complete (sync flows and their
-- checks, batch and monitor checks) took completed_at from the application clock before the statement ran, while
-- created_at defaulted to the (later) transaction time. One rule for every writer, present and future: a completion
-- time earlier than the creation time is the creation time.
create function completed_not_before_created() returns trigger language plpgsql as $$
begin
  if new.completed_at is not null and new.completed_at < new.created_at then
    new.completed_at := new.created_at;
  end if;
  return new;
end $$;

create trigger flows_completed_not_before_created before insert or update of completed_at on flows
  for each row execute function completed_not_before_created();
create trigger checks_completed_not_before_created before insert on checks
  for each row execute function completed_not_before_created();
