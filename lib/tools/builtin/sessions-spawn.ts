import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  task: z
    .string()
    .trim()
    .min(1)
    .max(8_000)
    .describe("What the subagent should do; it becomes the child session's first message."),
  label: z.string().trim().min(1).max(60).optional().describe("Short title for the child session."),
});

// Both modes: the child inherits the parent's mode, and the policy (subagent layer, maxSpawnDepth, the parent's
// tool set) decides what it may do, not this declaration.
export const sessionsSpawnTool = defineBuiltinTool({
  name: "sessions_spawn",
  description:
    "Start a subagent: a child run in its own session that works on a task with at most your tools, and return its final answer.",
  group: "sessions",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    if (!services.spawnSubagent)
      throw new AppError("TOOL_NOT_AVAILABLE", "subagents can only be started from an agent run");
    return services.spawnSubagent({ task: input.task, label: input.label });
  },
});
