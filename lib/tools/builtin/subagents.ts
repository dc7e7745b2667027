import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z
  .object({
    action: z.enum(["list", "stop"]).describe("list: this session's subagents; stop: stop a running one."),
    sessionId: z.string().trim().min(1).optional().describe("The subagent's session id (for stop)."),
  })
  .refine((v) => v.action !== "stop" || v.sessionId !== undefined, {
    message: "sessionId is required to stop a subagent",
    path: ["sessionId"],
  });

export const subagentsTool = defineBuiltinTool({
  name: "subagents",
  description: "List the subagents this session started, or stop a running one.",
  group: "sessions",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    if (!services.listSubagents || !services.stopSubagent)
      throw new AppError("TOOL_NOT_AVAILABLE", "subagents are only managed from an agent run");
    if (input.action === "list") return { subagents: await services.listSubagents() };
    return services.stopSubagent({ sessionId: input.sessionId! });
  },
});
