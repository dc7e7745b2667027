-- A step of an outcome that loses (a call id seen before, a run stopped or ended, an approval already consumed:
-- lib/runs/recorder.ts) fails its own statement through this function, so the transaction is aborted in the
-- database: the statements already sent behind it on the pipelined connection (the outcome's events, the audit
-- head) are not run and take no sequence numbers. A number taken and rolled back is a hole the event tailers wait
-- for. SQLSTATE TG001, the step in DETAIL (lib/db/sql.ts, lostStep). The body is an E-string with \073 for each
-- semicolon: Prisma's migration runner splits a script at every semicolon, even inside quotes.
CREATE OR REPLACE FUNCTION "toolgate_lost"("step" text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS E'
BEGIN
  RAISE EXCEPTION USING ERRCODE = ''TG001'', MESSAGE = ''outcome lost'', DETAIL = "step"\073
END
';
