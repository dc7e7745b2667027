-- The pipelined SQL runner (lib/db/sql.ts) is gone: an outcome is one Prisma transaction whose steps are read one by
-- one, so a lost step is seen before anything behind it is sent, and nothing fails a statement through
-- "toolgate_lost" any more (migration 20261124220000_lost_step). An instance of the old code still running while
-- this applies refuses every tool call (its claims fail in the database): it fails closed until it is replaced.
DROP FUNCTION IF EXISTS "toolgate_lost"(text);
