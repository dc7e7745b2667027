import { z } from "zod";
import { defineBuiltinTool } from "../define-tool";

const inputSchema = z.object({
  question: z.string().min(1).describe("The question to put to the person, in one or two sentences."),
  choices: z.array(z.string().min(1)).max(10).optional().describe("Optional short answers the person can pick from."),
});

// The chat renders the result as a question; the person's answer arrives as the next user message,
// so the tool itself never waits.
export const askUserTool = defineBuiltinTool({
  name: "ask_user",
  description: "Ask the person a clarifying question. Their answer comes back as their next message.",
  group: "ui",
  allowedModes: ["chat_safe", "coding"],
  inputSchema,
  execute: (input: z.infer<typeof inputSchema>) => ({
    asked: true as const,
    question: input.question,
    choices: input.choices ?? [],
  }),
});
