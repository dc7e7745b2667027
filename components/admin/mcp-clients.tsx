"use client";
// The admin's view of the MCP gateway's outside clients: each token or OAuth client that used /mcp, whose it is,
// its mode and agent, when it was last seen, and its latest calls. Polls while open, as the servers view does.
import { useQuery } from "@tanstack/react-query";
import type { ConnectedClient } from "@/lib/gateway/clients";
import { api } from "./api";

const STATUS_STYLE: Record<ConnectedClient["status"], string> = {
  active: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200",
  revoked: "bg-rose-100 text-rose-900 dark:bg-rose-900/40 dark:text-rose-200",
  expired: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
};

const when = (iso: string) => new Date(iso).toLocaleString();

export function McpClientsAdmin() {
  const clients = useQuery({
    queryKey: ["mcp-clients"],
    queryFn: () => api<{ clients: ConnectedClient[] }>("/api/mcp/clients"),
    refetchInterval: 5000,
  });
  if (clients.isLoading) return <p className="text-sm text-slate-600 dark:text-slate-400">Loading…</p>;
  if (clients.error)
    return (
      <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
        ✕ {clients.error.message}
      </p>
    );
  const list = clients.data?.clients ?? [];
  if (list.length === 0)
    return (
      <p className="text-sm">
        No outside client has used the gateway (<code>/mcp</code>) yet.
      </p>
    );
  return (
    <ul className="space-y-3" data-testid="mcp-clients">
      {list.map((client) => (
        <li
          key={client.key}
          className="min-w-0 space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-800"
          data-testid="mcp-client"
        >
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="break-all text-sm font-semibold">{client.name}</h3>
            <span className={`rounded px-1.5 py-0.5 text-xs ${STATUS_STYLE[client.status]}`}>{client.status}</span>
            <span className="min-w-0 break-words text-xs text-slate-600 dark:text-slate-400">
              {client.kind === "token" ? "token" : "OAuth client"} <code>{client.label}</code> ·{" "}
              {client.user.email ?? client.user.id} · mode {client.mode}
              {client.agentId ? ` · agent ${client.agentId}` : ""} · last seen {when(client.lastSeenAt)}
            </span>
          </div>
          {client.recentCalls.length === 0 ? (
            <p className="text-xs text-slate-600 dark:text-slate-400">No calls yet.</p>
          ) : (
            <table className="w-full table-fixed text-left text-xs">
              <caption className="sr-only">Latest calls of {client.name}</caption>
              <thead>
                <tr className="text-slate-600 dark:text-slate-400">
                  <th scope="col" className="w-1/2 font-medium">
                    Tool
                  </th>
                  <th scope="col" className="font-medium">
                    Outcome
                  </th>
                  <th scope="col" className="font-medium">
                    When
                  </th>
                </tr>
              </thead>
              <tbody>
                {client.recentCalls.map((call, i) => (
                  <tr key={`${call.at}-${i}`} className="border-t border-slate-100 dark:border-slate-800">
                    <td className="break-all py-0.5 font-mono">{call.toolName}</td>
                    <td className="py-0.5">{call.status}</td>
                    <td className="py-0.5">{when(call.at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </li>
      ))}
    </ul>
  );
}
