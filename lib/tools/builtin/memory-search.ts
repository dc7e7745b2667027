import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  query: z.string().min(1).describe("Words to look for in the user's notes and past transcripts."),
  limit: z.number().int().min(1).max(50).optional().describe("Maximum number of results (1-50, default 10)."),
});

export const memorySearchTool = defineBuiltinTool({
  name: "memory_search",
  description: "Search the user's memory (notes and past conversation transcripts) and return matching snippets.",
  group: "memory",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    const results = await services.searchMemory({ query: input.query, limit: input.limit ?? 10 });
    return { query: input.query, results };
  },
});
