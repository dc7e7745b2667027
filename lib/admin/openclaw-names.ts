// OpenClaw tool names in Toolgate's vocabulary. Groups are compared member by member (OpenClaw's lists, from its
// docs/gateway/config-tools.md): a group that means the same tools here is kept, one that differs (or that
// Toolgate lacks, like group:media or group:openclaw) is expanded into the members Toolgate has, so a deny never
// silently loses its meaning. MCP tools: OpenClaw exposes them as `<server>__<tool>` under the plugin id
// `bundle-mcp`; Toolgate names them `mcp__<server>__<tool>` and `group:plugins` covers them all.
import { expandToolGroups, normalizeToolName, TOOL_GROUPS } from "@/lib/policy";
import { MCP_TOOL_PREFIX, sanitizeMcpToolPart } from "@/lib/tools/mcp/naming";

/** OpenClaw's groups (docs/gateway/config-tools.md, "Tool groups"). */
export const OPENCLAW_TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  "group:runtime": ["exec", "process", "runtime", "code_execution"],
  "group:fs": ["read", "write", "edit", "apply_patch"],
  "group:sessions": [
    "sessions",
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "conversations_list",
    "conversations_send",
    "conversations_turn",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "session_status",
    "spawn_task",
    "dismiss_task",
  ],
  "group:memory": ["memory_search", "memory_get"],
  "group:web": ["web_search", "x_search", "web_fetch"],
  "group:ui": ["browser", "screen", "terminal", "canvas", "show_widget"],
  "group:automation": ["heartbeat_respond", "cron", "gateway"],
  "group:messaging": ["message"],
  "group:nodes": ["nodes", "computer"],
  "group:agents": [
    "agents_list",
    "get_goal",
    "create_goal",
    "update_goal",
    "update_plan",
    "ask_user",
    "skill_workshop",
  ],
  "group:media": ["image", "image_generate", "music_generate", "video_generate", "tts"],
};
// group:openclaw = every built-in above except the file and exec tools and canvas (excludes plugin tools).
const OPENCLAW_EXCLUDED = new Set(["read", "write", "edit", "apply_patch", "exec", "process", "canvas"]);
const OPENCLAW_ALL = [...new Set(Object.values(OPENCLAW_TOOL_GROUPS).flat())].filter(
  (name) => !OPENCLAW_EXCLUDED.has(name),
);

export type NameMapping = { entries: string[]; notes: string[] };

/** Maps one OpenClaw list to Toolgate entries; `known` is every tool name Toolgate has (core and plugin). */
export function mapToolNames(
  list: readonly string[],
  known: ReadonlySet<string>,
  mcpServerIds: ReadonlySet<string>,
): NameMapping {
  const entries: string[] = [];
  const notes: string[] = [];
  const add = (entry: string) => {
    if (!entries.includes(entry)) entries.push(entry);
  };
  for (const raw of list) {
    const name = normalizeToolName(raw);
    if (name === "bundle-mcp") {
      add("group:plugins");
      notes.push(`"${raw}" → group:plugins (every MCP tool)`);
    } else if (name === "group:plugins" || name === "*" || mcpServerIds.has(name)) {
      add(name);
    } else if (name.startsWith("group:")) {
      const theirs = name === "group:openclaw" ? OPENCLAW_ALL : OPENCLAW_TOOL_GROUPS[name];
      if (!theirs) {
        add(name);
        notes.push(`"${raw}" is not an OpenClaw group Toolgate knows; kept as written and matches nothing`);
        continue;
      }
      const ours = TOOL_GROUPS[name] ? expandToolGroups([name]).filter((tool) => known.has(tool)) : undefined;
      const same =
        ours !== undefined &&
        sameSet(
          ours,
          theirs.filter((tool) => known.has(tool)),
        );
      if (same) {
        add(name);
        continue;
      }
      const members = theirs.filter((tool) => known.has(tool));
      for (const member of members) add(member);
      notes.push(
        `"${raw}" → ${members.length ? members.join(", ") : "nothing"} (the members Toolgate has${ours ? `; Toolgate's ${name} differs` : ""})`,
      );
    } else if (name.startsWith(MCP_TOOL_PREFIX)) {
      add(name);
    } else if (name.includes("__")) {
      // OpenClaw's MCP name `<server>__<tool>` (server prefix provider-safe; globs like `outlook__*`).
      const cut = name.indexOf("__");
      const server = mcpServerIdFor(name.slice(0, cut));
      const tool = name.slice(cut + 2);
      const mapped = `${MCP_TOOL_PREFIX}${server}__${tool === "*" ? "*" : sanitizeMcpToolPart(tool)}`;
      add(mapped);
      notes.push(`"${raw}" → ${mapped}${mcpServerIds.has(server) ? "" : ` (no MCP server "${server}" is configured)`}`);
    } else if (name.includes("*")) {
      add(name);
    } else {
      add(name);
      if (!known.has(name)) notes.push(`"${raw}" is not a Toolgate tool; kept as written and matches nothing`);
    }
  }
  return { entries, notes };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((name) => right.has(name));
}

/** Team id for an OpenClaw chat group: `<channel>:<group id>`, lower-cased, other characters than [a-z0-9:_.@*-] → "-". */
export function teamIdForGroup(channel: string, groupId: string): string {
  const clean = (part: string) =>
    part
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9:_.@*-]/g, "-");
  return `${clean(channel)}:${clean(groupId)}`.slice(0, 64);
}

/** A valid Toolgate MCP server id for an OpenClaw `mcp.servers` key (same rule as its provider-safe prefix). */
export function mcpServerIdFor(key: string): string {
  const cleaned = key
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .replace(/_{2,}/g, "_");
  const id = /^[a-z]/.test(cleaned) ? cleaned : `mcp-${cleaned}`;
  return id.slice(0, 32).replace(/[-_]+$/, "") || "mcp";
}
