// Writes transcript lines straight into the e2e database, in the shape lib/runs/recorder.ts stores them, for
// screens that need an exact assistant text or tool result (Markdown, hostile HTML, a failed command) that the
// offline model would not produce on its own. The page then reads them back through the real app.
import Database from "better-sqlite3";

type Line = {
  role: "assistant" | "tool" | "system";
  content: string;
  parts?: unknown;
  toolCallId?: string;
  toolName?: string;
};

export function storeLines(databaseFile: string, sessionId: string, lines: Line[]): void {
  const db = new Database(databaseFile, { timeout: 10_000 });
  try {
    const insert = db.prepare(
      `INSERT INTO "Message" (id, sessionId, seq, role, content, parts, toolCallId, toolName, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // IMMEDIATE: the write lock first, waiting out the app's writers (timeout above). A deferred transaction that reads
    // and then writes fails at once with "database is locked" when the app wrote in between (a full run hit it), the
    // busy timeout notwithstanding: the same reason the app's own transactions begin IMMEDIATE (lib/db/sqlite-adapter.ts).
    db.transaction(() => {
      for (const line of lines) {
        const { seq } = db
          .prepare(`SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM "Message" WHERE sessionId = ?`)
          .get(sessionId) as { seq: number };
        insert.run(
          `e2e${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`,
          sessionId,
          seq,
          line.role,
          line.content,
          line.parts === undefined ? null : JSON.stringify(line.parts),
          line.toolCallId ?? null,
          line.toolName ?? null,
          new Date().toISOString().replace("Z", "+00:00"),
        );
      }
    }).immediate();
  } finally {
    db.close();
  }
}

/** An assistant line that calls one tool, and the tool's stored result. */
export function toolCallLines(
  callId: string,
  toolName: string,
  input: unknown,
  status: "ok" | "error",
  output: unknown,
): Line[] {
  return [
    { role: "assistant", content: "", parts: { toolCalls: [{ toolCallId: callId, toolName, input }] } },
    { role: "tool", content: JSON.stringify(output), parts: { status, output }, toolCallId: callId, toolName },
  ];
}
