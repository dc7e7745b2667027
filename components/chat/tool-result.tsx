"use client";
// A tool call's result as a reader wants it: a command's output and error output as separate blocks with its exit
// status (a non-zero exit is a failure, not "done"), a cut marked as such, a failed call's error code in words
// with its message, a plugin's images inline; anything else as indented JSON. Plus the one-line summary the
// collapsed card shows.
import { McpContent } from "@/components/mcp/mcp-content";
import { isMcpContentOutput } from "@/lib/tools/mcp/output";
import {
  asExecResult,
  asToolError,
  execFailed,
  failureWords,
  parsedResult,
  type ExecResult,
} from "@/lib/tools/result-shapes";

export type CardStatus = "running" | "done" | "failed";

export function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function oneLine(text: string, max = 60): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

function exitWords(r: ExecResult): string {
  if (r.timedOut) return "timed out";
  if (r.exitCode === null) return `ended by ${r.signal ?? "a signal"}`;
  return `exit ${r.exitCode}`;
}

/** The card's status and summary line, from the call's state and what it returned. */
export function summarizeCall({
  state,
  input,
  output,
  errorText,
}: {
  state: string;
  input: unknown;
  output?: unknown;
  errorText?: string;
}): { status: CardStatus; summary: string } {
  const args = (input ?? {}) as { command?: unknown; path?: unknown; query?: unknown };
  const subject =
    typeof args.command === "string"
      ? args.command
      : typeof args.path === "string"
        ? args.path
        : typeof args.query === "string"
          ? args.query
          : "";
  const about = subject ? oneLine(subject) : "";
  if (state === "input-available" || state === "input-streaming") return { status: "running", summary: about };
  if (state === "output-error") {
    const error = asToolError(errorText);
    const why = error
      ? `${failureWords(error.error_code)}${error.message ? `: ${oneLine(error.message, 80)}` : ""}`
      : oneLine(errorText ?? "", 80);
    return { status: "failed", summary: [about, why].filter(Boolean).join(" — ") };
  }
  const exec = asExecResult(output);
  if (exec)
    return {
      status: execFailed(exec) ? "failed" : "done",
      summary: [about, exitWords(exec), exec.truncated ? "output cut" : ""].filter(Boolean).join(" · "),
    };
  return { status: "done", summary: about };
}

function OutputBlock({
  label,
  text,
  testId,
  tone = "plain",
}: {
  label: string;
  text: string;
  testId: string;
  tone?: "plain" | "error";
}) {
  return (
    <div>
      <div className="text-xs font-semibold text-slate-600 uppercase dark:text-slate-400">{label}</div>
      <pre
        data-testid={testId}
        className={`max-h-64 overflow-auto rounded border px-2 py-1 font-mono text-xs whitespace-pre-wrap ${
          tone === "error"
            ? "border-red-200 bg-red-50 text-red-950 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
            : "border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-950"
        }`}
      >
        {text}
      </pre>
    </div>
  );
}

function ExecOutput({ r }: { r: ExecResult }) {
  const failed = execFailed(r);
  return (
    <div data-testid="tool-result" className="space-y-2">
      <p
        data-testid="exit-status"
        className={`text-xs font-medium ${failed ? "text-red-700 dark:text-red-300" : "text-emerald-800 dark:text-emerald-300"}`}
      >
        {r.timedOut
          ? "Timed out: the command was stopped"
          : r.exitCode === null
            ? `Ended by ${r.signal ?? "a signal"}`
            : `Exit status ${r.exitCode}${failed ? " (failed)" : " (success)"}`}
        {r.durationMs !== undefined ? ` · ${r.durationMs} ms` : ""}
      </p>
      {r.stdout !== "" ? <OutputBlock label="Output" text={r.stdout} testId="stdout" /> : null}
      {r.stderr !== "" ? <OutputBlock label="Error output" text={r.stderr} testId="stderr" tone="error" /> : null}
      {r.stdout === "" && r.stderr === "" ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">No output.</p>
      ) : null}
      {r.truncated ? (
        <p data-testid="truncated" className="text-xs font-medium text-amber-800 dark:text-amber-300">
          Output cut: it passed the size limit, so the end is missing.
        </p>
      ) : null}
    </div>
  );
}

/** The result part of an opened card. */
export function ToolResult({
  output,
  errorText,
  failed,
  sessionId,
}: {
  output?: unknown;
  errorText?: string;
  failed: boolean;
  sessionId?: string;
}) {
  if (failed) {
    const error = asToolError(errorText);
    return (
      <div data-testid="tool-result" className="space-y-1">
        <p data-testid="tool-error" className="text-sm text-red-800 dark:text-red-200">
          <span className="font-semibold">{error ? `Failed: ${failureWords(error.error_code)}` : "Failed"}</span>
          {error?.message ? ` — ${error.message}` : null}
        </p>
        {error ? null : (
          <OutputBlock
            label="Error"
            text={pretty(parsedResult(errorText ?? ""))}
            testId="tool-error-raw"
            tone="error"
          />
        )}
      </div>
    );
  }
  if (isMcpContentOutput(output)) {
    return (
      <div data-testid="tool-result">
        <McpContent output={output} sessionId={sessionId} />
      </div>
    );
  }
  const exec = asExecResult(output);
  if (exec) return <ExecOutput r={exec} />;
  const file = output as { path?: unknown; content?: unknown } | null;
  if (file && typeof file === "object" && typeof file.path === "string" && typeof file.content === "string") {
    return (
      <div data-testid="tool-result">
        <OutputBlock label={file.path} text={file.content} testId="file-content" />
      </div>
    );
  }
  return (
    <div data-testid="tool-result">
      <OutputBlock label="Result" text={pretty(output)} testId="result-json" />
    </div>
  );
}
