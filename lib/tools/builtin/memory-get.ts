import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  id: z.string().min(1).describe("Id of a memory item, as returned by memory_search."),
});

export const memoryGetTool = defineBuiltinTool({
  name: "memory_get",
  description: "Fetch the full content of one memory item by id.",
  group: "memory",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { services } = getToolContext(options);
    const item = await services.getMemory({ id: input.id });
    if (!item) throw new AppError("NOT_FOUND", `no memory item with id "${input.id}"`, { id: input.id });
    return item;
  },
});
