import { parsePolicyDocument, type PolicyDocument, type ToolMeta } from "@/lib/policy";

export const TOOLS: ToolMeta[] = [
  { name: "current_time", group: "world", allowedModes: ["chat_safe", "coding"] },
  { name: "read", group: "code", allowedModes: ["coding"] },
  { name: "write", group: "code", allowedModes: ["coding"] },
  { name: "exec", group: "runtime", allowedModes: ["coding"] },
  { name: "memory_search", group: "memory", allowedModes: ["chat_safe", "coding"] },
  { name: "gh_issues", group: "plugin", allowedModes: ["chat_safe", "coding"], pluginId: "github" },
];

export function doc(input: unknown = {}): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}
