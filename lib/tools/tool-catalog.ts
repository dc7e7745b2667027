import "server-only";
// The registry of every tool the agent could have. Policy decides which of them a run sees and may call.
import { ToolRegistry, type ToolDefinition } from "@/lib/policy";
import { registerBuiltinTools } from "@/lib/tools/builtin";
import { processSingleton } from "@/lib/process-singleton";

export function getToolRegistry(): ToolRegistry<ToolDefinition> {
  return processSingleton("toolgateRegistry", () => {
    const registry = new ToolRegistry<ToolDefinition>();
    registerBuiltinTools(registry);
    return registry;
  });
}
