import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  sessionId: z.string().min(1).describe("Id of one of the user's sessions, as returned by sessions_list."),
  limit: z.number().int().min(1).max(200).optional().describe("Maximum number of most recent messages (default 50)."),
});

export const sessionsHistoryTool = defineBuiltinTool({
  name: "sessions_history",
  description: "Read the most recent messages of one of the user's own chat sessions.",
  group: "sessions",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    // The service only sees the caller's sessions, so someone else's id is indistinguishable from a missing one.
    const messages = await services.getSessionHistory({ sessionId: input.sessionId, limit: input.limit ?? 50 });
    if (messages === null) throw new AppError("NOT_FOUND", "no such session", { sessionId: input.sessionId });
    return { sessionId: input.sessionId, messages };
  },
});
