import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  limit: z.number().int().min(1).max(100).optional().describe("Maximum number of sessions, newest first (default 20)."),
});

export const sessionsListTool = defineBuiltinTool({
  name: "sessions_list",
  description: "List the user's own chat sessions, newest first.",
  group: "sessions",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    return { sessions: await services.listSessions({ limit: input.limit ?? 20 }) };
  },
});
