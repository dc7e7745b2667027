import "server-only";
// Keeps the registry's plugin tools in line with the policy document: tools of configured servers are registered
// as `mcp__<server>__<tool>` (pluginId = server id), tools of servers no longer configured are removed and their
// connections closed. Only servers the system settings allow (mcp.enabled and allowedServers) are contacted;
// the others keep the names already known, so the policy answers a call to them with TOOL_NOT_AVAILABLE.
import type { McpServerConfig, PolicyDocument, ToolDefinition, ToolRegistry } from "@/lib/policy";
import { log } from "@/lib/log";
import { McpConnection } from "./connection";
import { buildMcpToolDefinitions, configuredToolStubs, type DiscoveredTool } from "./tool-definitions";

type ServerState = { connection: McpConnection; connectionKey: string; definitionsKey: string; names: string[] };
type McpState = { servers: Map<string, ServerState>; queue: Promise<void> };

// On globalThis: Next may load this module more than once per process, and there must be one connection per server.
const globalForMcp = globalThis as unknown as { toolgateMcp?: McpState };
const state = (globalForMcp.toolgateMcp ??= { servers: new Map(), queue: Promise.resolve() });

/** Whether the system settings let the app contact this server at all. */
export function isServerInUse(document: PolicyDocument, serverId: string): boolean {
  const { enabled, allowedServers } = document.system.mcp;
  return enabled && allowedServers.some((id) => id.trim().toLowerCase() === serverId.toLowerCase());
}

/** Serialized: concurrent turns must not register the same tool twice. Never throws; problems are logged. */
export function syncMcpTools(document: PolicyDocument, registry: ToolRegistry<ToolDefinition>): Promise<void> {
  const run = state.queue.then(() => syncNow(document, registry));
  state.queue = run.catch((error: unknown) => log("error", "mcp_sync_failed", { error: String(error) }));
  return state.queue;
}

async function syncNow(document: PolicyDocument, registry: ToolRegistry<ToolDefinition>): Promise<void> {
  const configured = new Set(document.mcpServers.map((server) => server.id));
  for (const [id, server] of state.servers) {
    if (configured.has(id)) continue;
    for (const name of server.names) registry.unregister(name);
    state.servers.delete(id);
    await server.connection.close();
  }
  for (const config of document.mcpServers) await syncServer(config, isServerInUse(document, config.id), registry);
}

async function syncServer(config: McpServerConfig, inUse: boolean, registry: ToolRegistry<ToolDefinition>): Promise<void> {
  const connectionKey = JSON.stringify([config.transport, config.timeoutMs]);
  let server = state.servers.get(config.id);
  if (server && server.connectionKey !== connectionKey) {
    // New command, URL, headers or timeout: the old process/connection and its catalog no longer apply.
    await server.connection.close();
    for (const name of server.names) registry.unregister(name);
    server = undefined;
  }
  if (!server) {
    server = { connection: new McpConnection(config), connectionKey, definitionsKey: "", names: [] };
    state.servers.set(config.id, server);
  }
  const connection = server.connection;
  let discovered: readonly DiscoveredTool[] = connection.cachedTools() ?? [];
  if (inUse) {
    try {
      discovered = await connection.listTools();
    } catch (error) {
      // The turn goes on with what is known; calling one of these tools retries (with back-off) and explains.
      log("warn", "mcp_discovery_failed", { server: config.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const known = new Set(discovered.map((tool) => tool.name));
  const tools = [...discovered, ...configuredToolStubs(config).filter((tool) => !known.has(tool.name))];
  const definitionsKey = JSON.stringify([config, tools]);
  if (definitionsKey === server.definitionsKey) return;
  for (const name of server.names) registry.unregister(name);
  const { definitions, skipped } = buildMcpToolDefinitions(config, tools, (name, args, options) => connection.callTool(name, args, options.abortSignal));
  if (skipped.length > 0) log("warn", "mcp_tool_name_collision", { server: config.id, skipped });
  const names: string[] = [];
  for (const definition of definitions) {
    try {
      registry.register(definition);
      names.push(definition.name);
    } catch (error) {
      log("warn", "mcp_tool_not_registered", { server: config.id, tool: definition.name, error: String(error) });
    }
  }
  server.names = names;
  server.definitionsKey = definitionsKey;
}

/** Closes every connection (tests, shutdown). */
export async function closeMcpConnections(registry?: ToolRegistry<ToolDefinition>): Promise<void> {
  for (const [id, server] of state.servers) {
    if (registry) for (const name of server.names) registry.unregister(name);
    state.servers.delete(id);
    await server.connection.close();
  }
}
