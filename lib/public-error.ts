// What a person or a model may see of an error. Database drivers, Prisma and Node put SQL, table names,
// engine text and absolute host paths into their messages; none of that leaves the server. The full error
// is logged under a request id, and the public text names that id so an operator can find the log line.
import { randomUUID } from "node:crypto";
import { isAppError } from "@/lib/errors";
import { isStorageFull } from "@/lib/db/client";
import { currentRequestId, log } from "@/lib/log";
import { looksInternal, redactHostPaths } from "@/lib/redact";

export { looksInternal, redactHostPaths };

/** The id of the request being served (scripts/server.mjs, X-Request-Id), or a new one outside a request. */
export function newRequestId(): string {
  return currentRequestId() ?? randomUUID().replace(/-/g, "").slice(0, 16);
}

/**
 * The message to show for any thrown value. AppErrors keep their (path-redacted) message unless it carries
 * database text; anything else becomes "internal error (request <id>)" and is logged in full with that id.
 */
export function publicErrorMessage(
  error: unknown,
  context: { requestId?: string; event?: string } = {},
): { message: string; requestId?: string } {
  if (isAppError(error) && error.code !== "INTERNAL" && !looksInternal(error.message))
    return { message: redactHostPaths(error.message) };
  const requestId = context.requestId ?? newRequestId();
  if (isStorageFull(error)) {
    log("error", "storage_full", {
      requestId,
      event: context.event,
      error: error instanceof Error ? error.message : String(error),
    });
    return {
      message: `the database is out of space: nothing was saved; try again once space is freed (request ${requestId})`,
      requestId,
    };
  }
  log("error", context.event ?? "internal_error", {
    requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return { message: `internal error (request ${requestId})`, requestId };
}
