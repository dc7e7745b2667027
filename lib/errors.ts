// The one error type of the app. Route handlers turn it into a response in one place (lib/http/respond.ts);
// tools throw it and the agent loop turns it into a structured tool result.
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  VALIDATION_FAILED: 422,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  /** Signed in with a password an admin issued: only choosing one's own (POST /api/me/password) is allowed. */
  PASSWORD_CHANGE_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  /** The database is out of space: nothing was saved; writes work again once space is freed (no restart). */
  STORAGE_FULL: 503,
  // Tool-level codes (docs/requirements.md "Terms": the two gates); the HTTP status only matters if one escapes.
  MODE_DENIED: 403,
  POLICY_DENIED: 403,
  TOOL_NOT_AVAILABLE: 403,
  TOOL_NOT_FOUND: 404,
  APPROVAL_DENIED: 403,
  APPROVAL_EXPIRED: 408,
  INVALID_ARGUMENTS: 422,
  LIMIT_EXCEEDED: 413,
  TOOL_FAILED: 500,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  /** Extra response headers (Retry-After on RATE_LIMITED). */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_CODES[this.code];
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
