// Request bodies of the chat API, shared by the route handlers and the client.
import { z } from "zod";

export const SessionIdSchema = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "not a session id");

export const CreateSessionBody = z.object({ title: z.string().trim().min(1).max(200).optional() }).strict().optional();

export const PatchSessionBody = z.object({ mode: z.string().trim().min(1).max(32) }).strict();

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
