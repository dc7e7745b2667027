import "server-only";
// Substring search that reads the searched text literally on both databases. Prisma's `contains` passes the text
// into LIKE unescaped, so `%` and `_` are wildcards (an inbox search for `%` matched every request), and SQLite's
// LIKE has no escape character unless each statement names one. Searching by position instead (SQLite instr(),
// PostgreSQL strpos()) has no wildcards at all, so no escaping can be forgotten; both sides are lower-cased, so
// the match ignores case alike on both.
import { Prisma } from "@/lib/generated/sqlite/client";
import { isPostgres } from "./client";

/** A parameterised condition: `column` (a quoted identifier, never input) contains `needle`, case-insensitively. */
export function containsText(column: Prisma.Sql, needle: string): Prisma.Sql {
  const lowered = needle.toLowerCase();
  return isPostgres()
    ? Prisma.sql`strpos(lower(${column}::text), ${lowered}) > 0`
    : Prisma.sql`instr(lower(${column}), ${lowered}) > 0`;
}
