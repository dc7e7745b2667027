// Fetch helper of the admin pages: JSON in and out, errors become ApiError with the server's message and details.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: init.body === undefined ? undefined : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
    throw new ApiError(
      res.status,
      error?.code ?? "HTTP_ERROR",
      error?.message ?? `request failed with ${res.status}`,
      error?.details,
    );
  }
  return body as T;
}

/** The issues an error names by path (the server's VALIDATION_FAILED details), for markers in the JSON editor. */
export function issuesOf(error: unknown): Array<{ path: string; message: string }> {
  if (!(error instanceof ApiError)) return [];
  const issues = (error.details as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((issue: unknown) => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    const text = Array.isArray(path) ? path.map(String).join(".") : typeof path === "string" ? path : undefined;
    return text !== undefined && typeof message === "string" ? [{ path: text, message }] : [];
  });
}
