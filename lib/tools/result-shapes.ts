// The shapes tool results come in, shared by the chat's tool cards and the offline model's prose: a command's
// run (exit status, output, cut or timed out) and a failed call's structured error, with its code in words.

export type ExecResult = {
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
  aborted?: boolean;
  truncated?: boolean;
  durationMs?: number;
};
export type ToolErrorResult = {
  ok: false;
  error_code: string;
  tool_name?: string;
  mode?: string;
  message?: string;
  next_action?: string;
};

/** A failed call's error code as a reader says it: NOT_FOUND is "not found", never a refusal. */
const FAILURE_WORDS: Record<string, string> = {
  NOT_FOUND: "not found",
  INVALID_ARGUMENTS: "invalid arguments",
  LIMIT_EXCEEDED: "over a limit",
  TOOL_FAILED: "the tool failed",
  STOPPED: "stopped",
  INTERRUPTED: "interrupted",
  FORBIDDEN: "not permitted",
  CONFLICT: "conflict",
  PAYLOAD_TOO_LARGE: "too large",
};

export function failureWords(code: string): string {
  return FAILURE_WORDS[code] ?? code.toLowerCase().replace(/_/g, " ");
}

/** JSON text is read as its value (an error part carries its result as text); anything else as it is. */
export function parsedResult(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function asToolError(value: unknown): ToolErrorResult | null {
  const v = parsedResult(value) as Partial<ToolErrorResult> | null;
  return v && typeof v === "object" && v.ok === false && typeof v.error_code === "string"
    ? (v as ToolErrorResult)
    : null;
}

export function asExecResult(value: unknown): ExecResult | null {
  const v = value as Partial<ExecResult> | null;
  return v && typeof v === "object" && "exitCode" in v && typeof v.stdout === "string" && typeof v.stderr === "string"
    ? (v as ExecResult)
    : null;
}

/** A command that ran but did not succeed: a non-zero exit, a signal or a timeout is a failure, not "done". */
export function execFailed(r: ExecResult): boolean {
  return r.timedOut === true || r.exitCode !== 0;
}
