// Built-in policies of the sandbox and subagent layers, and how an admin's configuration combines with them.
// The choices (and where they differ from the reference) are explained in lib/policy/README.md.
import { compileEntries, findMatchingEntry } from "./matching";
import type { ToolPolicy } from "./types";

/** The reference's default sandbox policy (its channel tools have no counterpart here), plus Toolgate's harmless
 * built-ins `current_time` and `ask_user`. */
export const DEFAULT_SANDBOX_TOOL_POLICY: Readonly<{ allow: readonly string[]; deny: readonly string[] }> =
  Object.freeze({
    allow: Object.freeze([
      "group:fs",
      "group:runtime",
      "image",
      // sessions_list, sessions_history, sessions_send, sessions_spawn, subagents, session_status
      "group:sessions",
      "message",
      "current_time",
      "ask_user",
    ]),
    deny: Object.freeze(["browser", "canvas", "nodes", "cron", "gateway"]),
  });

/**
 * The sandbox policy in force. `allow` replaces the default allow list (`[]` = everything); `alsoAllow` widens the
 * list in force (the default one when `allow` is unset). An entry allowed explicitly (allow or alsoAllow) lifts the
 * matching default deny; a configured `deny` adds to the remaining defaults, so adding a deny never loosens.
 */
export function resolveSandboxToolPolicy(configured: ToolPolicy = {}): { allow: string[]; deny: string[] } {
  const alsoAllow = configured.alsoAllow ?? [];
  const explicit = compileEntries([...(configured.allow ?? []), ...alsoAllow]);
  const defaultDeny = DEFAULT_SANDBOX_TOOL_POLICY.deny.filter((name) => !findMatchingEntry(explicit, name));
  const base = configured.allow ?? DEFAULT_SANDBOX_TOOL_POLICY.allow;
  const allow = base.length === 0 ? [] : [...new Set([...base, ...alsoAllow])];
  return { allow, deny: [...new Set([...defaultDeny, ...(configured.deny ?? [])])] };
}

/** Never available to a subagent, whatever `subagents.tools` allows: a child works through its parent. */
export const SUBAGENT_TOOL_DENY_ALWAYS: readonly string[] = Object.freeze([
  "gateway",
  "agents_list",
  "whatsapp_login",
  "session_status",
  "cron",
  "message",
  "sessions_send",
]);

/** Also removed once a subagent is at `maxSpawnDepth` (a leaf): the tools that manage or start children. */
export const SUBAGENT_TOOL_DENY_LEAF: readonly string[] = Object.freeze([
  "sessions_spawn",
  "subagents",
  "sessions_list",
  "sessions_history",
]);
