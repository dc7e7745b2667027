import "server-only";
// The admin's view of MCP servers: their health and tools, a reconnect, and the plugin tools kept in line with
// the saved policy outside any chat (the tools list and the matrix show a server's tools right after saving).
import { AppError } from "@/lib/errors";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import {
  acceptMcpToolChange,
  listMcpServerStatus,
  mcpSupervisor,
  reconnectMcpServer,
  refreshMcpTools,
  syncMcpTools,
} from "@/lib/tools/mcp";

/** Starts discovery of new or changed servers without waiting (list and matrix reads). */
export async function refreshPluginTools(): Promise<void> {
  const { document } = await loadPolicyDocument();
  refreshMcpTools(document, getToolRegistry());
}

/** How long a save waits for new servers' tools; a slower server's tools appear in the view once it answers. */
const SAVE_DISCOVERY_WAIT_MS = 5000;

/** After a save: waits for discovery (all servers in parallel), at most SAVE_DISCOVERY_WAIT_MS. */
export async function syncPluginTools(): Promise<void> {
  const { document } = await loadPolicyDocument();
  let timer: NodeJS.Timeout | undefined;
  const cutoff = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SAVE_DISCOVERY_WAIT_MS);
  });
  await Promise.race([syncMcpTools(document, getToolRegistry()), cutoff]).finally(() => clearTimeout(timer));
}

export async function listMcpServers() {
  const { document } = await loadPolicyDocument();
  const registry = getToolRegistry();
  refreshMcpTools(document, registry);
  const statuses = new Map(listMcpServerStatus(registry).map((status) => [status.id, status]));
  // Configuration order, and only configured servers (a removed one may still be closing).
  return document.mcpServers.flatMap((server) => {
    const status = statuses.get(server.id);
    return status ? [{ ...status, allowedModes: server.allowedModes, timeoutMs: server.timeoutMs }] : [];
  });
}

export async function reconnectServer({ serverId }: { serverId: string }) {
  const { document } = await loadPolicyDocument();
  const registry = getToolRegistry();
  refreshMcpTools(document, registry);
  const status = await reconnectMcpServer(registry, serverId);
  if (!status) throw new AppError("NOT_FOUND", `there is no configured MCP server "${serverId}"`);
  return status;
}

/** An admin accepts a held tool definition change they reviewed (by its hash); answers with the server's status. */
export async function acceptToolChange({
  serverId,
  toolName,
  hash,
  actorId,
}: {
  serverId: string;
  toolName: string;
  hash: string;
  actorId: string;
}) {
  const { document } = await loadPolicyDocument();
  const registry = getToolRegistry();
  refreshMcpTools(document, registry);
  if (!document.mcpServers.some((server) => server.id === serverId))
    throw new AppError("NOT_FOUND", `there is no configured MCP server "${serverId}"`);
  if (!(await acceptMcpToolChange({ registry, serverId, toolName, hash, actorId }))) {
    throw new AppError(
      "CONFLICT",
      `no change of ${toolName} with that hash is waiting for review on MCP server ${serverId} (it was accepted already, or the server changed it again: reload)`,
    );
  }
  return mcpSupervisor(registry, serverId)?.status();
}
