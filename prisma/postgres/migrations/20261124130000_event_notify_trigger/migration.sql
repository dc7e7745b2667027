-- Every insert into the event log wakes the listening instances (LISTEN toolgate_events) with the highest seq the
-- statement wrote. In the database rather than in each writer: no writer can forget it, and an outcome's
-- transaction spends no statement of its own on it. NOTIFY is transactional: delivered when the insert commits.
-- The body is an E-string with \073 for each semicolon: Prisma's migration runner splits a script at every
-- semicolon, even inside quotes.
CREATE OR REPLACE FUNCTION "toolgate_notify_events"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''toolgate_events'', (SELECT max("seq") FROM inserted)::text)\073
  RETURN NULL\073
END
';

CREATE TRIGGER "EventLog_notify" AFTER INSERT ON "EventLog" REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "toolgate_notify_events"();
