// Structured log lines (one JSON object per line). Sinks are swappable so tests can read what was logged.
export type LogLevel = "info" | "warn" | "error";
export type LogRecord = { level: LogLevel; event: string; [key: string]: unknown };
export type LogSink = (record: LogRecord) => void;

const consoleSink: LogSink = (record) => {
  const line = JSON.stringify({ at: new Date().toISOString(), ...record });
  if (record.level === "error") console.error(line);
  else if (record.level === "warn") console.warn(line);
  else console.log(line);
};

const sinks = new Set<LogSink>([consoleSink]);

export function log(level: LogLevel, event: string, data: Record<string, unknown> = {}): void {
  for (const sink of sinks) sink({ level, event, ...data });
}

/** Adds a sink (tests collect records with it); returns a function that removes it. */
export function addLogSink(sink: LogSink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}
