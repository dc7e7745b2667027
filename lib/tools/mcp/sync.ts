import "server-only";
// Keeps the registry's plugin tools in line with the policy document, off the turn path. Each configured server
// has a supervisor (supervisor.ts) that discovers its tools in the background, checks its health and opens a
// circuit when it fails; a turn only calls refreshMcpTools, which reconciles the configured servers with what is
// registered and returns at once. A turn therefore never waits on a server that is down, hanging or still
// connecting: its tools are either not known yet or fail at once with the reason. syncMcpTools is the awaiting
// variant for the admin (tools visible right after saving) and tests; it waits at most each server's timeout.
import type { McpServerConfig, PolicyDocument, ToolDefinition, ToolRegistry } from "@/lib/policy";
import { acceptPendingToolChange } from "./pins";
import { McpServerSupervisor, type McpServerStatus } from "./supervisor";
import { processSingleton } from "@/lib/process-singleton";

type Registry = ToolRegistry<ToolDefinition>;

// One per process (lib/process-singleton.ts): there must be one connection per server. Keyed by registry so tests with their own registry do not share supervisors with the app's.
const byRegistry = processSingleton(
  "toolgateMcpSupervisors",
  () => new Map<Registry, Map<string, McpServerSupervisor>>(),
);

function supervisorsOf(registry: Registry): Map<string, McpServerSupervisor> {
  let map = byRegistry.get(registry);
  if (!map) {
    map = new Map();
    byRegistry.set(registry, map);
  }
  return map;
}

/** Whether the system settings let the app contact this server at all. */
export function isServerInUse(document: PolicyDocument, serverId: string): boolean {
  const { enabled, allowedServers } = document.system.mcp;
  return enabled && allowedServers.some((id) => id.trim().toLowerCase() === serverId.toLowerCase());
}

const connectionKeyOf = (config: McpServerConfig) => JSON.stringify([config.transport, config.timeoutMs]);

/**
 * Synchronous reconciliation: removed servers are closed and their tools unregistered, changed ones restarted,
 * known tools (discovered before, or named in the config) registered, and discovery started in the background for
 * servers in use. Returns without waiting on any server. Safe to call on every turn: unchanged servers cost a
 * string comparison.
 */
export function refreshMcpTools(document: PolicyDocument, registry: Registry): void {
  const supervisors = supervisorsOf(registry);
  const configured = new Set(document.mcpServers.map((server) => server.id));
  for (const [id, supervisor] of supervisors) {
    if (configured.has(id)) continue;
    supervisors.delete(id);
    supervisor.dispose();
  }
  for (const config of document.mcpServers) {
    let supervisor = supervisors.get(config.id);
    if (supervisor && supervisor.connectionKey !== connectionKeyOf(config)) {
      // New command, URL, headers or timeout: the old process/connection and its catalog no longer apply.
      supervisors.delete(config.id);
      supervisor.dispose();
      supervisor = undefined;
    }
    if (!supervisor) {
      supervisor = new McpServerSupervisor(config, connectionKeyOf(config), registry);
      supervisors.set(config.id, supervisor);
    }
    supervisor.update(config, isServerInUse(document, config.id));
  }
}

/** refreshMcpTools, then waits for the discoveries it started (each bounded by its server's timeout). Never throws. */
export async function syncMcpTools(document: PolicyDocument, registry: Registry): Promise<void> {
  refreshMcpTools(document, registry);
  await Promise.all([...supervisorsOf(registry).values()].map((supervisor) => supervisor.settled()));
}

/** What the admin's MCP servers view shows, in configuration order. */
export function listMcpServerStatus(registry: Registry): McpServerStatus[] {
  return [...supervisorsOf(registry).values()].map((supervisor) => supervisor.status());
}

/** Drops the server's connection and rediscovers now (admin "reconnect"); undefined when it is not configured. */
export async function reconnectMcpServer(registry: Registry, serverId: string): Promise<McpServerStatus | undefined> {
  const supervisor = supervisorsOf(registry).get(serverId);
  if (!supervisor) return undefined;
  await supervisor.reconnect();
  return supervisor.status();
}

/** The supervisor of a configured server (resource reads from the chat go through its connection). */
export function mcpSupervisor(registry: Registry, serverId: string): McpServerSupervisor | undefined {
  return supervisorsOf(registry).get(serverId);
}

/** Closes every connection (tests, shutdown). */
export async function closeMcpConnections(registry?: Registry): Promise<void> {
  const maps = registry ? [supervisorsOf(registry)] : [...byRegistry.values()];
  for (const map of maps) {
    for (const [id, supervisor] of map) {
      map.delete(id);
      await supervisor.dispose();
    }
  }
}

/**
 * An admin accepts a held tool definition change (the one with this hash, which they reviewed); the server's
 * tools are listed again so the accepted definition is in use at once. False when that change is not pending.
 */
export async function acceptMcpToolChange({
  registry,
  serverId,
  toolName,
  hash,
  actorId,
}: {
  registry: Registry;
  serverId: string;
  toolName: string;
  hash: string;
  actorId: string;
}): Promise<boolean> {
  if (!(await acceptPendingToolChange({ serverId, toolName, hash, actorId }))) return false;
  await supervisorsOf(registry).get(serverId)?.rediscover();
  return true;
}
