// The plugin-scale workload of issue 16: 5,000 plugin tools (over 5 MCP servers) beside the 20 core tools, and one
// pattern in every list the context selects. OpenClaw resolves this workload in 23.5 ms (its whole resolution, the
// figure issue 16 compares against); a cold compile + resolve here must cost no more.
import { parsePolicyDocument, type PolicyContext, type PolicyDocument, type ToolMeta } from "@/lib/policy";

const CORE = [
  "current_time",
  "ask_user",
  "memory_search",
  "memory_get",
  "web_search",
  "web_fetch",
  "read",
  "write",
  "edit",
  "apply_patch",
  "exec",
  "process",
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "subagents",
  "session_status",
  "cron",
  "image",
];
const PLUGINS = ["github", "jira", "slack", "notion", "linear"];

export function pluginTools(count: number): ToolMeta[] {
  const core: ToolMeta[] = CORE.map((name) => ({ name, allowedModes: ["chat_safe", "coding"] }));
  const plugins: ToolMeta[] = Array.from({ length: count }, (_, i) => ({
    name: `${PLUGINS[i % PLUGINS.length]}_op_${i}`,
    allowedModes: ["chat_safe", "coding"],
    pluginId: PLUGINS[i % PLUGINS.length],
  }));
  return [...core, ...plugins];
}

/** One pattern per list: a few remove many tools (a wildcard deny, a narrow allow), the others one name. */
export function onePatternDocument(): PolicyDocument {
  const parsed = parsePolicyDocument({
    tools: { deny: ["jira_*"], byProvider: { openai: { deny: ["slack_op_1*"] } } },
    agents: { helper: { name: "Helper", tools: { deny: ["notion_op_2*"], byProvider: { openai: { allow: ["*"] } } } } },
    teams: { ops: { deny: ["linear_op_3*"] }, devs: { allow: ["*"] } },
    senders: { u1: { deny: ["github_op_4*"] } },
    sandbox: { tools: { allow: ["*_op_*"] } },
    subagents: { maxSpawnDepth: 2, tools: { deny: ["*_op_5*"] } },
    system: { mcp: { enabled: true, allowedServers: PLUGINS.slice(0, 4) } },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

export const PLUGIN_CONTEXT: PolicyContext = {
  roles: ["owner"],
  senderIsOwner: false,
  mode: "coding",
  provider: "openai",
  model: "gpt-4o",
  agentId: "helper",
  teamIds: ["ops", "devs"],
  senderId: "u1",
  sandboxed: true,
  subagentDepth: 1,
};
