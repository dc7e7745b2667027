"use client";
// A spawned subagent's transcript, nested in the parent's sessions_spawn card: loaded from /api/sessions/<id>
// (the child has the same owner) when first opened, so a long parent chat does not fetch every child up front.
import { useState } from "react";

type Row = { id: string; role: string; content: string; toolName: string | null; parts: unknown };

function statusOf(row: Row): string | undefined {
  return (row.parts as { status?: string } | null)?.status;
}

export function SubagentTranscript({ sessionId }: { sessionId: string }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function load() {
    if (rows) return;
    try {
      const res = await fetch(`/api/sessions/${encodeURIComponent(sessionId)}`);
      if (!res.ok) throw new Error(`could not load the subagent's transcript (HTTP ${res.status})`);
      setRows(((await res.json()) as { transcript: Row[] }).transcript);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <details
      data-testid="subagent-transcript"
      data-session-id={sessionId}
      className="mt-2 rounded border border-indigo-200 bg-white dark:border-indigo-900 dark:bg-slate-950"
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open) void load();
      }}
    >
      <summary className="cursor-pointer px-2 py-1 text-xs font-medium">
        <span aria-hidden>🧩 </span>Subagent transcript <span className="font-mono opacity-70">{sessionId}</span>
      </summary>
      <div className="space-y-1 border-t border-indigo-100 px-2 py-2 text-xs dark:border-indigo-900">
        {error ? <p role="alert">{error}</p> : null}
        {!rows && !error ? <p>Loading…</p> : null}
        {rows?.length === 0 ? <p>The subagent has no messages yet.</p> : null}
        <ol aria-label="Subagent transcript" className="space-y-1">
          {rows?.map((row) => (
            <li key={row.id} data-testid={`subagent-message-${row.role}`}>
              <span className="font-semibold">{row.role === "tool" ? `tool ${row.toolName ?? ""}` : row.role}</span>
              {statusOf(row) && statusOf(row) !== "ok" ? (
                <span className="ml-1 rounded bg-slate-200 px-1 dark:bg-slate-800">{statusOf(row)}</span>
              ) : null}
              {row.content ? <pre className="whitespace-pre-wrap font-mono">{row.content}</pre> : null}
            </li>
          ))}
        </ol>
      </div>
    </details>
  );
}
