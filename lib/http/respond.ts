import "server-only";
// Route handlers run in one order: CSRF guard (handle), session and role, then the body (capped stream,
// zod), then lib; errors are mapped here. Bodies never carry SQL, Prisma text or host paths: unknown errors
// are logged with a request id and the body names that id.
import { NextResponse } from "next/server";
import { z } from "zod";
import { AppError, isAppError } from "@/lib/errors";
import { isStorageFull } from "@/lib/db/client";
import { BODY_LIMITS, readJsonBody } from "./body";
import { newRequestId, publicErrorMessage } from "@/lib/public-error";
import { assertStateChangeAllowed } from "./request-guard";

export function jsonError(error: AppError, requestId?: string): NextResponse {
  return NextResponse.json(
    {
      error: {
        code: error.code,
        message: error.message,
        ...(error.details !== undefined ? { details: error.details } : {}),
        ...(requestId ? { requestId } : {}),
      },
    },
    { status: error.status, headers: error.headers },
  );
}

/** Turns any thrown value into a response; unknown errors are logged and become a 500 naming the request id. */
export function errorResponse(error: unknown, requestId = newRequestId()): NextResponse {
  if (isAppError(error) && error.status < 500) {
    const { message } = publicErrorMessage(error, { requestId });
    return jsonError(new AppError(error.code, message, error.details, error.headers));
  }
  const shown = publicErrorMessage(error, { requestId, event: "route_error" });
  // Out of space: a 503 the client may retry (the instance writes again as soon as space is back), not a 500.
  if (isStorageFull(error))
    return jsonError(new AppError("STORAGE_FULL", shown.message, undefined, { "Retry-After": "5" }), requestId);
  return jsonError(new AppError("INTERNAL", shown.message), requestId);
}

/** Reads the body as a capped stream (413 past maxBytes) and validates it. Call after the session check. */
export async function parseJsonBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  maxBytes: number = BODY_LIMITS.small,
): Promise<z.infer<T>> {
  return parseWith(schema, await readJsonBody(request, maxBytes));
}

export function parseWith<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new AppError(
      "VALIDATION_FAILED",
      result.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; "),
      { issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    );
  }
  return result.data;
}

export function parseSearchParams<T extends z.ZodType>(request: Request, schema: T): z.infer<T> {
  return parseWith(schema, Object.fromEntries(new URL(request.url).searchParams));
}

/** Wraps a handler: state changes must be same-origin JSON (403/415), and every error goes through errorResponse. */
export function handle<Args extends [Request, ...unknown[]]>(fn: (...args: Args) => Promise<Response>) {
  return async (...args: Args): Promise<Response> => {
    try {
      assertStateChangeAllowed(args[0]);
      return await fn(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
