// The OpenClaw import's channel, exec and MCP server sections (see openclaw-import.ts for the rules).
import { EXEC_ASK_MODES, EXEC_FALLBACK_LEVELS } from "@/lib/policy";
import { isRecord, type Json, type Mapper } from "./openclaw-mapper";
import { mcpServerIdFor, teamIdForGroup } from "./openclaw-names";

const GROUP_CONTAINERS = ["groups", "channels"] as const;

/**
 * channels.<channel>.groups.<id> (and Slack-style channels.<channel>.channels.<id>): each group's tools become the
 * team `<channel>:<id>` (ids lower-cased; team ids accept @ . : * so WhatsApp/Telegram ids keep their shape). The
 * "*" entry is OpenClaw's default for every group without its own tools: it becomes the team `<channel>:*` (add
 * the members of unlisted groups to it) and is copied into listed groups that have no tools of their own.
 */
export function mapChannels(m: Mapper, raw: unknown, document: Json): void {
  if (raw === undefined) return;
  if (!isRecord(raw)) return m.skip("channels", "expected an object");
  const teams: Json = { ...(document.teams as Json) };
  for (const [channel, config] of Object.entries(raw)) {
    if (!isRecord(config)) {
      m.skip(`channels.${channel}`, "expected an object");
      continue;
    }
    const other = Object.keys(config).filter((key) => !(GROUP_CONTAINERS as readonly string[]).includes(key));
    if (other.length > 0)
      m.skip(`channels.${channel}`, `only per-group tool policies are imported; not: ${other.join(", ")}`);
    for (const container of GROUP_CONTAINERS) {
      const groups = config[container];
      if (groups === undefined) continue;
      if (!isRecord(groups)) {
        m.skip(`channels.${channel}.${container}`, "expected an object keyed by group id");
        continue;
      }
      const fallback = isRecord(groups["*"]) ? groups["*"] : undefined;
      for (const [groupId, group] of Object.entries(groups)) {
        const path = `channels.${channel}.${container}.${groupId}`;
        if (!isRecord(group)) {
          m.skip(path, "expected an object");
          continue;
        }
        // OpenClaw: group toolsBySender, group tools, then the "*" entry's toolsBySender and tools.
        const own = group.tools !== undefined;
        const source = own ? group : groupId !== "*" ? fallback : undefined;
        const policy = source
          ? (m.scope(source.tools, own ? `${path}.tools` : `channels.${channel}.${container}.*.tools`) ?? {})
          : undefined;
        if (!policy && group.toolsBySender === undefined) {
          m.skip(path, 'a group without a tools policy (and no "*" default) has nothing to import');
          continue;
        }
        const scope: Json = policy ?? {};
        m.senders(group.toolsBySender, `${path}.toolsBySender`, scope, undefined);
        if (!own && groupId !== "*" && fallback?.toolsBySender !== undefined)
          m.senders(fallback.toolsBySender, `channels.${channel}.${container}.*.toolsBySender`, scope, undefined);
        for (const key of Object.keys(group))
          if (!["tools", "toolsBySender"].includes(key)) m.skip(`${path}.${key}`, "not a tool policy setting");
        const teamId = teamIdForGroup(channel, groupId);
        teams[teamId] = m.merge(teams[teamId], scope, `teams.${teamId}`);
        const shape =
          groupId === "*"
            ? "the default for groups not listed: add their members to this team"
            : !own
              ? 'no tools of its own: the "*" default applies'
              : "add its members in /admin/users";
        m.note(
          path,
          `team "${teamId}"${teamId !== `${channel}:${groupId}` ? ` (id mapped from "${channel}:${groupId}")` : ""}: ${shape}`,
        );
      }
    }
  }
  document.teams = teams;
}

/** tools.exec → exec settings: security, ask, askFallback, safeBins, timeoutSec (→ timeoutMs), applyPatch.enabled. */
export function mapExec(m: Mapper, raw: unknown, path: string, document: Json): void {
  if (raw === undefined) return;
  if (!isRecord(raw)) return m.skip(path, "expected an object");
  const exec: Json = { ...(document.exec as Json) };
  const set = (key: string, value: unknown, from: string) => {
    if (exec[key] !== undefined && JSON.stringify(exec[key]) !== JSON.stringify(value)) {
      m.report.replaced.push({
        path: `exec.${key}`,
        message: `was ${JSON.stringify(exec[key])}, now ${JSON.stringify(value)}`,
      });
    }
    exec[key] = value;
    m.note(`${path}.${from}`, `exec.${key}`);
  };
  const oneOf = (key: "security" | "ask" | "askFallback", allowed: readonly string[]) => {
    const value = raw[key];
    if (value === undefined) return;
    if (typeof value === "string" && allowed.includes(value)) set(key, value, key);
    else m.skip(`${path}.${key}`, `expected one of ${allowed.join(", ")}`);
  };
  // OpenClaw's security and ask govern host execution (deny, allowlist, full); its sandboxed exec (host: "sandbox",
  // its default) runs inside the sandbox policy, which is Toolgate's sandbox mode unless security is deny.
  oneOf("security", EXEC_FALLBACK_LEVELS);
  oneOf("ask", EXEC_ASK_MODES);
  oneOf("askFallback", EXEC_FALLBACK_LEVELS);
  if (raw.host !== undefined) {
    if (raw.host === "sandbox") {
      if (exec.security !== "deny") set("security", "sandbox", "host");
    } else if (raw.host === "gateway" || raw.host === "node") {
      m.skip(
        `${path}.host`,
        "host execution is per agent or team in Toolgate (exec.host.agents / exec.host.teams); the security above applies there",
      );
    } else m.skip(`${path}.host`, "expected one of sandbox, gateway, node");
  }
  if (raw.safeBins !== undefined) {
    if (Array.isArray(raw.safeBins) && raw.safeBins.every((bin) => typeof bin === "string" && bin.trim() !== ""))
      set("safeBins", raw.safeBins, "safeBins");
    else m.skip(`${path}.safeBins`, "expected a list of binary names");
  }
  if (raw.timeoutSec !== undefined) {
    if (typeof raw.timeoutSec === "number" && Number.isInteger(raw.timeoutSec) && raw.timeoutSec > 0)
      set("timeoutMs", raw.timeoutSec * 1000, "timeoutSec");
    else m.skip(`${path}.timeoutSec`, "expected a positive whole number of seconds");
  }
  if (isRecord(raw.applyPatch)) {
    if (raw.applyPatch.enabled === false) set("applyPatchProviders", [], "applyPatch.enabled");
    if (raw.applyPatch.allowModels !== undefined)
      m.skip(
        `${path}.applyPatch.allowModels`,
        "Toolgate allows apply_patch per provider (exec.applyPatchProviders), not per model",
      );
  }
  const mapped = new Set(["security", "ask", "askFallback", "safeBins", "timeoutSec", "applyPatch", "host"]);
  for (const key of Object.keys(raw))
    if (!mapped.has(key)) m.skip(`${path}.${key}`, "no counterpart in Toolgate's exec settings");
  document.exec = exec;
}

/** mcp.servers.<name> → mcpServers (no modes: fail closed until the admin grants them and allows the server). */
export function mapMcpServers(m: Mapper, raw: unknown, document: Json): void {
  if (raw === undefined) return;
  const servers = isRecord(raw) ? raw.servers : undefined;
  if (!isRecord(servers)) return m.skip("mcp", "only mcp.servers is imported");
  for (const key of Object.keys(raw as Json))
    if (key !== "servers") m.skip(`mcp.${key}`, "only mcp.servers is imported");
  const list = Array.isArray(document.mcpServers) ? [...(document.mcpServers as Json[])] : [];
  for (const [name, server] of Object.entries(servers)) {
    const path = `mcp.servers.${name}`;
    const id = mcpServerIdFor(name);
    m.mcpServerIds.add(id);
    if (list.some((existing) => existing.id === id)) {
      m.skip(path, `an MCP server "${id}" is already configured; kept as it is`);
      continue;
    }
    if (!isRecord(server)) {
      m.skip(path, "expected an object");
      continue;
    }
    const strings = (value: unknown) =>
      isRecord(value) && Object.values(value).every((v) => typeof v === "string")
        ? (value as Record<string, string>)
        : undefined;
    let transport: Json | undefined;
    if (typeof server.command === "string") {
      const args = Array.isArray(server.args) ? server.args.filter((a): a is string => typeof a === "string") : [];
      transport = {
        type: "stdio",
        command: server.command,
        args,
        ...(strings(server.env) ? { env: strings(server.env) } : {}),
        ...(typeof server.cwd === "string" ? { cwd: server.cwd } : {}),
      };
    } else if (typeof server.url === "string" && /^https?:\/\//.test(server.url)) {
      transport = {
        type: "http",
        url: server.url,
        ...(strings(server.headers) ? { headers: strings(server.headers) } : {}),
      };
    }
    if (!transport) {
      m.skip(path, "needs a command (stdio) or an http(s) url");
      continue;
    }
    list.push({ id, transport, allowedModes: [] });
    m.note(
      path,
      `MCP server "${id}"${id !== name ? ` (id mapped from "${name}")` : ""}: grant it modes and list it in system.mcp.allowedServers to use it`,
    );
    for (const key of Object.keys(server))
      if (!["command", "args", "env", "cwd", "url", "headers", "transport", "type"].includes(key))
        m.skip(`${path}.${key}`, "no counterpart");
  }
  document.mcpServers = list;
}
