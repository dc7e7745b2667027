// Tool names, groups and profiles: the vocabulary that policy lists are written in.
import { ownValue } from "./own";
import type { ToolPolicy } from "./types";

// `group:moltbot` is the layered-policy document's name for the native set; lists written from it keep working.
export const TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  bash: "exec",
  "apply-patch": "apply_patch",
  "group:moltbot": "group:toolgate",
});

// Maps, not object lookups: a name like "constructor" must not find Object.prototype's members.
const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(TOOL_NAME_ALIASES));

export function normalizeToolName(name: string): string {
  const normalized = name.trim().toLowerCase();
  return ALIASES.get(normalized) ?? normalized;
}

/**
 * Tools that are owner-only by their name, whatever their definition says (OpenClaw's name fallback): scheduling,
 * gateway control and messenger login act for the whole installation. A plugin tool with one of these names is
 * owner-only too: a name that reads like one of them must not reach a non-owner through a definition that forgot
 * the flag.
 */
export const OWNER_ONLY_TOOL_NAMES: ReadonlySet<string> = new Set(["cron", "gateway", "whatsapp_login"]);

export function isOwnerOnlyTool(tool: { name: string; ownerOnly?: boolean }): boolean {
  return tool.ownerOnly === true || OWNER_ONLY_TOOL_NAMES.has(normalizeToolName(tool.name));
}

export function normalizeToolList(list?: readonly string[]): string[] {
  if (!list) return [];
  return list.map(normalizeToolName).filter((name) => name.length > 0);
}

/** Built-in groups. `current_time` and `ask_user` are Toolgate's own built-ins: `ask_user` is a UI widget, both
 * belong to the native set (the reference's `group:moltbot`, here `group:toolgate`). */
export const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  "group:memory": ["memory_search", "memory_get"],
  "group:web": ["web_search", "web_fetch"],
  "group:fs": ["read", "write", "edit", "apply_patch"],
  "group:runtime": ["exec", "process"],
  "group:sessions": [
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "sessions_spawn",
    "subagents",
    "session_status",
  ],
  "group:ui": ["browser", "canvas", "ask_user"],
  "group:automation": ["cron", "gateway"],
  "group:messaging": ["message"],
  "group:nodes": ["nodes"],
  "group:toolgate": [
    "browser",
    "canvas",
    "ask_user",
    "nodes",
    "cron",
    "message",
    "gateway",
    "agents_list",
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "sessions_spawn",
    "subagents",
    "session_status",
    "memory_search",
    "memory_get",
    "web_search",
    "web_fetch",
    "image",
    "current_time",
  ],
});

const GROUPS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(TOOL_GROUPS));

/** Every tool name a built-in group mentions: used to tell core entries from plugin-only ones. */
export const CORE_TOOL_NAMES: ReadonlySet<string> = new Set(Object.values(TOOL_GROUPS).flat());

export const BUILTIN_PROFILE_IDS = ["minimal", "coding", "messaging", "full"] as const;
export type BuiltinProfileId = (typeof BUILTIN_PROFILE_IDS)[number];

// current_time is harmless world information, so every restricted profile keeps it; ask_user is how a chat agent
// asks for structured input, so the conversational profiles keep it.
export const TOOL_PROFILES: Readonly<Record<BuiltinProfileId, ToolPolicy>> = Object.freeze({
  minimal: { allow: ["session_status", "current_time"] },
  coding: {
    allow: ["group:fs", "group:runtime", "group:sessions", "group:memory", "image", "current_time", "ask_user"],
  },
  messaging: {
    allow: [
      "group:messaging",
      "sessions_list",
      "sessions_history",
      "sessions_send",
      "session_status",
      "current_time",
      "ask_user",
    ],
  },
  full: {},
});

/** `full` and unknown ids mean "no restriction" here; callers that must fail closed check the id first. */
export function resolveToolProfilePolicy(
  profile?: string,
  customProfiles?: Readonly<Record<string, ToolPolicy>>,
): ToolPolicy | undefined {
  if (!profile) return undefined;
  const custom = ownValue(customProfiles, profile);
  if (custom) return custom;
  const builtin = ownValue(TOOL_PROFILES as Readonly<Record<string, ToolPolicy>>, profile);
  if (!builtin || (!builtin.allow && !builtin.deny)) return undefined;
  return builtin;
}

export function isKnownProfile(profile: string, customProfiles?: Readonly<Record<string, ToolPolicy>>): boolean {
  return (
    (BUILTIN_PROFILE_IDS as readonly string[]).includes(profile) || ownValue(customProfiles, profile) !== undefined
  );
}

/** `group:plugins` = every plugin tool; `<pluginId>` = one MCP server's tools. */
export type PluginToolGroups = { all: readonly string[]; byPlugin: ReadonlyMap<string, readonly string[]> };

export function buildPluginToolGroups(tools: ReadonlyArray<{ name: string; pluginId?: string }>): PluginToolGroups {
  const all: string[] = [];
  const byPlugin = new Map<string, string[]>();
  for (const tool of tools) {
    if (!tool.pluginId) continue;
    const name = normalizeToolName(tool.name);
    const pluginId = tool.pluginId.trim().toLowerCase();
    all.push(name);
    const list = byPlugin.get(pluginId) ?? [];
    list.push(name);
    byPlugin.set(pluginId, list);
  }
  return { all, byPlugin };
}

/** Expands one normalized entry; returns undefined when the entry is not a group. */
export function expandToolGroupEntry(entry: string, pluginGroups?: PluginToolGroups): readonly string[] | undefined {
  if (entry === "group:plugins") return pluginGroups?.all ?? [];
  const builtin = GROUPS.get(entry);
  if (builtin) return builtin;
  return pluginGroups?.byPlugin.get(entry);
}

export function expandToolGroups(entries: readonly string[] | undefined, pluginGroups?: PluginToolGroups): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of entries ?? []) {
    const entry = normalizeToolName(raw);
    if (!entry) continue;
    for (const name of expandToolGroupEntry(entry, pluginGroups) ?? [entry]) {
      if (!seen.has(name)) {
        seen.add(name);
        out.push(name);
      }
    }
  }
  return out;
}
