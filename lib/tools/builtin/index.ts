import type { ToolDefinition } from "@/lib/policy/types";
import { applyPatchTool } from "./apply-patch";
import { askUserTool } from "./ask-user";
import { currentTimeTool } from "./current-time";
import { editTool } from "./edit";
import { execTool } from "./exec";
import { memoryGetTool } from "./memory-get";
import { memorySearchTool } from "./memory-search";
import { readTool } from "./read";
import { sessionsHistoryTool } from "./sessions-history";
import { sessionsListTool } from "./sessions-list";
import { sessionsSpawnTool } from "./sessions-spawn";
import { subagentsTool } from "./subagents";
import { writeTool } from "./write";

export const BUILTIN_TOOLS: ToolDefinition[] = [
  currentTimeTool,
  memorySearchTool,
  memoryGetTool,
  readTool,
  writeTool,
  editTool,
  applyPatchTool,
  execTool,
  askUserTool,
  sessionsListTool,
  sessionsHistoryTool,
  sessionsSpawnTool,
  subagentsTool,
];

export function registerBuiltinTools(registry: { register(tool: ToolDefinition): void }): void {
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
}

export {
  applyPatchTool,
  askUserTool,
  currentTimeTool,
  editTool,
  execTool,
  memoryGetTool,
  memorySearchTool,
  readTool,
  sessionsHistoryTool,
  sessionsListTool,
  sessionsSpawnTool,
  subagentsTool,
  writeTool,
};
