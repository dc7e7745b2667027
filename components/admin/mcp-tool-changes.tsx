"use client";
// Tool definitions a server changed after they were pinned (issue 36): the pinned one stays in use until an admin
// accepts. Each change shows what differs, the pinned and the proposed value side by side, and an accept that
// names the exact definition reviewed (its hash), so a change the server makes meanwhile is not accepted with it.
import type { PendingToolChange } from "@/lib/tools/mcp/pins";

const show = (value: unknown) =>
  value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value, null, 2);

function part(definition: PendingToolChange["pinned"], key: string): unknown {
  if (key === "description") return definition.description;
  if (key === "inputSchema") return definition.inputSchema;
  return (definition.annotations as Record<string, unknown> | undefined)?.[key.replace(/^annotations\./, "")];
}

export function McpToolChanges({
  changes,
  accepting,
  onAccept,
}: {
  changes: PendingToolChange[];
  accepting: string | null;
  onAccept: (change: PendingToolChange) => void;
}) {
  if (changes.length === 0) return null;
  return (
    <div
      className="space-y-2 rounded border border-amber-300 bg-amber-50 p-2 text-xs dark:border-amber-700 dark:bg-amber-950/40"
      data-testid="mcp-tool-changes"
    >
      <p className="font-semibold">Changed by the server, held for review (the pinned definition is in use)</p>
      {changes.map((change) => (
        <div key={`${change.tool}:${change.hash}`} className="space-y-1" data-testid={`mcp-tool-change-${change.tool}`}>
          <p>
            <code className="font-mono">{change.tool}</code>: {change.changed.join(", ")}
            {change.since ? ` · since ${new Date(change.since).toLocaleString()}` : ""}
          </p>
          <table className="w-full table-fixed border-collapse">
            <thead>
              <tr className="text-left">
                <th className="w-56 p-1">Field</th>
                <th className="p-1">Pinned (in use)</th>
                <th className="p-1">Proposed by the server</th>
              </tr>
            </thead>
            <tbody>
              {change.changed.map((key) => (
                <tr key={key} className="align-top">
                  <td className="break-all p-1 font-mono">{key}</td>
                  <td className="p-1">
                    <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-1 dark:bg-slate-900">
                      {show(part(change.pinned, key))}
                    </pre>
                  </td>
                  <td className="p-1">
                    <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-amber-100 p-1 dark:bg-amber-900/40">
                      {show(part(change.proposed, key))}
                    </pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <button
            type="button"
            className="rounded-md border border-amber-500 px-2 py-1 disabled:opacity-50"
            disabled={accepting === change.hash}
            onClick={() => onAccept(change)}
          >
            {accepting === change.hash ? "Accepting…" : "Accept this definition"}
          </button>
        </div>
      ))}
    </div>
  );
}
