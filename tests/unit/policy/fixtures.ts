// Shared test data: the product's built-in tools plus a few plugin tools, as plain metadata.
import { z } from "zod";
import {
  parsePolicyDocument,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolDefinition,
  type ToolMeta,
} from "@/lib/policy";

const both = ["chat_safe", "coding"] as const;
const coding = ["coding"] as const;

export const TOOLS: ToolMeta[] = [
  { name: "current_time", group: "world", allowedModes: [...both] },
  { name: "ask_user", group: "ui", allowedModes: [...both] },
  { name: "memory_search", group: "memory", allowedModes: [...both] },
  { name: "memory_get", group: "memory", allowedModes: [...both] },
  { name: "web_search", group: "web", allowedModes: [...both] },
  { name: "web_fetch", group: "web", allowedModes: [...both] },
  { name: "read", group: "code", allowedModes: [...coding] },
  { name: "write", group: "code", allowedModes: [...coding] },
  { name: "edit", group: "code", allowedModes: [...coding] },
  { name: "apply_patch", group: "code", allowedModes: [...coding] },
  { name: "exec", group: "runtime", allowedModes: [...coding] },
  { name: "process", group: "runtime", allowedModes: [...coding] },
  { name: "sessions_list", group: "sessions", allowedModes: [...both] },
  { name: "sessions_spawn", group: "sessions", allowedModes: [...both] },
  { name: "subagents", group: "sessions", allowedModes: [...both] },
  { name: "session_status", group: "sessions", allowedModes: [...both] },
  { name: "cron", group: "code", allowedModes: [...both], ownerOnly: true },
  { name: "gh_issue", group: "plugin", allowedModes: [...both], pluginId: "github" },
  { name: "gh_pr", group: "plugin", allowedModes: [...both], pluginId: "github" },
  { name: "jira_ticket", group: "plugin", allowedModes: [...both], pluginId: "jira" },
];

export function doc(input: PolicyDocumentInput = {}): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

/** A document in which plugins and apply_patch are reachable, so other layers can be observed removing them. */
export function openDoc(input: PolicyDocumentInput = {}): PolicyDocument {
  return doc({
    ...input,
    system: { ...input.system, mcp: { enabled: true, allowedServers: ["github", "jira"], ...input.system?.mcp } },
    exec: { applyPatchProviders: ["openai", "mock"], ...input.exec },
  });
}

export function ctx(overrides: Partial<PolicyContext> = {}): PolicyContext {
  return { roles: ["owner"], senderIsOwner: true, mode: "coding", provider: "mock", ...overrides };
}

export function tool(
  name: string,
  allowedModes?: ToolDefinition["allowedModes"],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  return {
    name,
    description: `${name} tool`,
    inputSchema: z.object({ q: z.string().optional() }),
    ...(allowedModes ? { allowedModes } : {}),
    execute: () => "ok",
    ...extra,
  };
}
