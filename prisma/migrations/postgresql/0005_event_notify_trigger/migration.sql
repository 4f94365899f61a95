-- Hand-written, PostgreSQL only: wakes the live outbox readers (src/modules/events/events.feed.ts)
-- when events commit. A statement trigger on "Event" calls pg_notify, which PostgreSQL delivers only
-- when the inserting transaction commits, on channel stellar_pay_events with the schema's name as
-- payload, so processes on other schemas of the same database ignore it. SQLite (one process) polls.
-- src/db/migrate.ts runs this with search_path set to the migrated schema: the function and the
-- trigger are made there. OR REPLACE: servers before this migration installed both at LISTEN time.
CREATE OR REPLACE FUNCTION stellar_pay_notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stellar_pay_events', TG_TABLE_SCHEMA);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER stellar_pay_event_notify AFTER INSERT ON "Event"
  FOR EACH STATEMENT EXECUTE FUNCTION stellar_pay_notify_event();
