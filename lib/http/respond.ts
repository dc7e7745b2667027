import "server-only";
// Route handlers run in one order: parse with zod, check the session and role, call lib, map errors here.
import { NextResponse } from "next/server";
import { z } from "zod";
import { AppError, isAppError } from "@/lib/errors";

export function jsonError(error: AppError): NextResponse {
  return NextResponse.json(
    { error: { code: error.code, message: error.message, ...(error.details !== undefined ? { details: error.details } : {}) } },
    { status: error.status },
  );
}

/** Turns any thrown value into a response; unknown errors are logged and become a generic 500. */
export function errorResponse(error: unknown): NextResponse {
  if (isAppError(error)) return jsonError(error);
  console.error("[toolgate] unhandled error in route handler", error);
  return jsonError(new AppError("INTERNAL", "internal error"));
}

export async function parseJsonBody<T extends z.ZodType>(request: Request, schema: T, maxBytes = 1_000_000): Promise<z.infer<T>> {
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `body is larger than ${maxBytes} bytes`);
  const text = await request.text();
  if (text.length > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `body is larger than ${maxBytes} bytes`);
  let raw: unknown;
  try {
    raw = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON", "body is not valid JSON");
  }
  return parseWith(schema, raw);
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

/** Wraps a handler so every error goes through errorResponse. */
export function handle<Args extends unknown[]>(fn: (...args: Args) => Promise<Response>) {
  return async (...args: Args): Promise<Response> => {
    try {
      return await fn(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
