// Structured log lines (one JSON object per line). Sinks are swappable so tests can read what was logged.
// Every line carries the request id of the HTTP request it belongs to (scripts/server.mjs keeps it in an
// AsyncLocalStorage on globalThis, shared by every bundle) and the trace id when a span is active (lib/ops/tracing.ts).
// LOG_LEVEL (debug, info, warn, error; default info) decides what reaches the console; test sinks see everything.
import type { AsyncLocalStorage } from "node:async_hooks";
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { processSlots } from "@/lib/process-singleton";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogRecord = { level: LogLevel; event: string; [key: string]: unknown };
export type LogSink = (record: LogRecord) => void;

export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** What scripts/server.mjs stores per request. */
export type RequestContext = { requestId: string };
const globalForLog = processSlots<{ toolgateRequestContext?: AsyncLocalStorage<RequestContext> }>();

/** The id of the HTTP request being served, if any (also the X-Request-Id response header). */
export function currentRequestId(): string | undefined {
  return globalForLog.toolgateRequestContext?.getStore()?.requestId;
}

/**
 * Runs fn outside the current request and trace: for work that outlives them (the event tailer's timers and LISTEN
 * connection, a run resumed by an event), whose callbacks would otherwise carry the id of whichever request or turn
 * happened to start them into every later log line and span.
 */
export function detached<T>(fn: () => T): T {
  const outside = () => context.with(ROOT_CONTEXT, fn);
  const store = globalForLog.toolgateRequestContext;
  return store ? store.exit(outside) : outside();
}

function threshold(): number {
  const wanted = (process.env.LOG_LEVEL ?? "info").trim().toLowerCase() as LogLevel;
  const index = LOG_LEVELS.indexOf(wanted);
  return index < 0 ? 1 : index;
}

const consoleSink: LogSink = (record) => {
  if (LOG_LEVELS.indexOf(record.level) < threshold()) return;
  const line = JSON.stringify({ at: new Date().toISOString(), ...record });
  if (record.level === "error") console.error(line);
  else if (record.level === "warn") console.warn(line);
  else console.log(line);
};

const sinks = new Set<LogSink>([consoleSink]);

export function log(level: LogLevel, event: string, data: Record<string, unknown> = {}): void {
  const requestId = currentRequestId();
  const span = trace.getActiveSpan()?.spanContext();
  const context: Record<string, string> = {};
  if (requestId) context.requestId = requestId;
  if (span && span.traceId !== "00000000000000000000000000000000") {
    context.traceId = span.traceId;
    context.spanId = span.spanId;
  }
  for (const sink of sinks) sink({ level, event, ...context, ...data });
}

/** Adds a sink (tests collect records with it); returns a function that removes it. */
export function addLogSink(sink: LogSink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}
