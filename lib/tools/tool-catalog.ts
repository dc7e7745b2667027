import "server-only";
// The registry of every tool the agent could have. Policy decides which of them a run sees and may call.
import { ToolRegistry, type ToolDefinition } from "@/lib/policy";
import { registerBuiltinTools } from "@/lib/tools/builtin";

const globalForTools = globalThis as unknown as { toolgateRegistry?: ToolRegistry<ToolDefinition> };

export function getToolRegistry(): ToolRegistry<ToolDefinition> {
  if (!globalForTools.toolgateRegistry) {
    const registry = new ToolRegistry<ToolDefinition>();
    registerBuiltinTools(registry);
    globalForTools.toolgateRegistry = registry;
  }
  return globalForTools.toolgateRegistry;
}
