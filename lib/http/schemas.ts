// Request bodies of the chat API, shared by the route handlers and the client.
import { z } from "zod";

export const SessionIdSchema = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "not a session id");

export const AgentIdSchema = z.string().trim().min(1, "agentId is empty").max(100, "agentId is longer than 100 characters");
export const CreateSessionBody = z.object({ title: z.string().trim().min(1).max(200).optional(), agentId: AgentIdSchema.optional() }).strict().optional();

/** A chat's title as people type it: one line, no control characters. */
export const SessionTitleSchema = z
  .string()
  .trim()
  .min(1, "title is empty")
  .max(200, "title is longer than 200 characters")
  .regex(/^[^\u0000-\u001f\u007f]*$/, "title must be one line without control characters");

/** One change at a time: the mode (the audited switch) or the title (rename). */
export const PatchSessionBody = z
  .object({ mode: z.string().trim().min(1).max(32).optional(), title: SessionTitleSchema.optional() })
  .strict()
  .refine((b) => (b.mode === undefined) !== (b.title === undefined), { message: "send exactly one of mode or title" });

export const ChatBody = z
  .object({
    sessionId: SessionIdSchema,
    message: z
      .object({
        id: z.string().optional(),
        role: z.literal("user"),
        parts: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()).min(1).max(50),
      })
      .passthrough(),
  })
  .passthrough();

export function messageText(message: z.infer<typeof ChatBody>["message"]): string {
  return message.parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}
