"use client";
// The admin's MCP servers view: each configured server's state (ready, connecting, down, disabled), its tools and
// the ones hidden with the reason, the last error with the tail of its stderr, and a reconnect. Polls while open,
// because servers change state on their own (health checks, back-off retries, list_changed).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PendingToolChange } from "@/lib/tools/mcp/pins";
import type { McpServerStatus } from "@/lib/tools/mcp/supervisor";
import { api } from "./api";
import { McpToolChanges } from "./mcp-tool-changes";
import { refetchAfterWrite } from "@/components/refetch-after-write";

type ServerView = McpServerStatus & { allowedModes: string[]; timeoutMs: number };

const STATE_STYLE: Record<McpServerStatus["state"], string> = {
  ready: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200",
  connecting: "bg-sky-100 text-sky-900 dark:bg-sky-900/40 dark:text-sky-200",
  down: "bg-rose-100 text-rose-900 dark:bg-rose-900/40 dark:text-rose-200",
  disabled: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
};

export function McpServersAdmin() {
  const client = useQueryClient();
  const servers = useQuery({
    queryKey: ["mcp-servers"],
    queryFn: () => api<{ servers: ServerView[] }>("/api/mcp/servers"),
    refetchInterval: 3000,
  });
  const reconnect = useMutation({
    mutationFn: (id: string) =>
      api<{ server: McpServerStatus }>(`/api/mcp/servers/${encodeURIComponent(id)}/reconnect`, { method: "POST" }),
    onSettled: () =>
      refetchAfterWrite(client, { predicate: (q) => ["mcp-servers", "policy-tools"].includes(String(q.queryKey[0])) }),
  });

  const accept = useMutation({
    mutationFn: ({ server, change }: { server: string; change: PendingToolChange }) =>
      api<{ server: McpServerStatus }>(`/api/mcp/servers/${encodeURIComponent(server)}/tools/accept`, {
        method: "POST",
        body: { tool: change.tool, hash: change.hash },
      }),
    onSettled: () =>
      refetchAfterWrite(client, { predicate: (q) => ["mcp-servers", "policy-tools"].includes(String(q.queryKey[0])) }),
  });

  if (servers.isLoading) return <p className="text-sm text-slate-600 dark:text-slate-400">Loading…</p>;
  if (servers.error)
    return (
      <p role="alert" className="text-sm text-rose-700">
        ✕ {servers.error.message}
      </p>
    );
  const list = servers.data?.servers ?? [];
  if (list.length === 0)
    return (
      <p className="text-sm">
        No MCP servers are configured. Add one in the policy editor: Sandbox, approvals, MCP → MCP servers.
      </p>
    );
  return (
    <ul className="space-y-3" data-testid="mcp-servers">
      {list.map((server) => (
        <li
          key={server.id}
          className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-800"
          data-testid={`mcp-server-${server.id}`}
        >
          <div className="flex flex-wrap items-center gap-2">
            <h2 className="font-mono text-sm font-semibold">{server.id}</h2>
            <span className={`rounded px-1.5 py-0.5 text-xs ${STATE_STYLE[server.state]}`} data-testid="mcp-state">
              {server.state}
            </span>
            <span className="text-xs text-slate-600 dark:text-slate-400">
              {server.transport} · timeout {server.timeoutMs / 1000} s · modes{" "}
              {server.allowedModes.join(", ") || "none"}
              {server.lastReadyAt ? ` · last ready ${new Date(server.lastReadyAt).toLocaleTimeString()}` : ""}
              {server.nextAttemptAt ? ` · next attempt ${new Date(server.nextAttemptAt).toLocaleTimeString()}` : ""}
            </span>
            <button
              type="button"
              className="ml-auto rounded-md border border-slate-300 px-2 py-1 text-xs disabled:opacity-50 dark:border-slate-700"
              disabled={server.state === "disabled" || (reconnect.isPending && reconnect.variables === server.id)}
              onClick={() => reconnect.mutate(server.id)}
            >
              {reconnect.isPending && reconnect.variables === server.id
                ? "Reconnecting…"
                : "Reconnect and refresh tools"}
            </button>
          </div>
          {server.state === "disabled" && (
            <p className="text-xs">
              Not contacted: switch it on in the policy editor (Sandbox, approvals, MCP → MCP servers → “On”).
            </p>
          )}
          {server.lastError && (
            <p role="status" className="break-words text-xs text-rose-800 dark:text-rose-300">
              Last error: {server.lastError}
            </p>
          )}
          {server.stderrTail.trim() && (
            <details>
              <summary className="cursor-pointer text-xs">stderr (last {server.stderrTail.length} characters)</summary>
              <pre
                className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-950 p-2 text-xs text-slate-100"
                data-testid="mcp-stderr"
              >
                {server.stderrTail}
              </pre>
            </details>
          )}
          <McpToolChanges
            changes={server.pendingChanges ?? []}
            accepting={accept.isPending && accept.variables?.server === server.id ? accept.variables.change.hash : null}
            onAccept={(change) => accept.mutate({ server: server.id, change })}
          />
          <details open={server.tools.length <= 12}>
            <summary className="cursor-pointer text-xs">{server.tools.length} tools</summary>
            <ul className="ml-4 list-disc text-xs">
              {server.tools.map((tool) => (
                <li key={tool.name}>
                  <code className="font-mono">{tool.name}</code>
                  {tool.requiresApproval ? " · asks for approval" : ""}
                </li>
              ))}
            </ul>
          </details>
          {server.hiddenTools.length > 0 && (
            <div className="text-xs">
              <p className="font-semibold">Hidden</p>
              <ul className="ml-4 list-disc">
                {server.hiddenTools.map((tool) => (
                  <li key={tool.name}>
                    <code className="font-mono">{tool.name}</code>: {tool.reason}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </li>
      ))}
      {reconnect.error && (
        <li role="alert" className="text-sm text-rose-700">
          ✕ {reconnect.error.message}
        </li>
      )}
      {accept.error && (
        <li role="alert" className="text-sm text-rose-700">
          ✕ {accept.error.message}
        </li>
      )}
    </ul>
  );
}
