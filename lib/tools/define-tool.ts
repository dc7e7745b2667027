// Built-in tools must state their group and modes themselves: the type makes both required, so no built-in
// can fall back to the engine's defaults (an omitted allowedModes would silently hide the tool everywhere).
import type { ToolDefinition, ToolGroup, ToolMode } from "@/lib/policy/types";

export type BuiltinToolDefinition<Input, Output> = ToolDefinition<Input, Output> & {
  group: ToolGroup;
  allowedModes: ToolMode[];
};

export function defineBuiltinTool<Input, Output>(
  tool: BuiltinToolDefinition<Input, Output>,
): BuiltinToolDefinition<Input, Output> {
  return tool;
}
