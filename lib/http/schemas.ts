// Request bodies of the chat API, shared by the route handlers and the client.
import { z } from "zod";

export const SessionIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "not a session id");

export const AgentIdSchema = z
  .string()
  .trim()
  .min(1, "agentId is empty")
  .max(100, "agentId is longer than 100 characters");
/** A configured model's id as MODELS spells it (`provider:model`); whether it is configured is checked after. */
export const ModelIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, "a configured model id, provider:model");

export const CreateSessionBody = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    agentId: AgentIdSchema.optional(),
    model: ModelIdSchema.optional(),
  })
  .strict()
  .optional();

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
        parts: z
          .array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())
          .min(1)
          .max(50),
      })
      .passthrough(),
    /** Edit or regenerate: the id of the user message this one replaces (the transcript is truncated there). */
    rewindFrom: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "not a message id")
      .optional(),
    /** The ask_user call this message answers. */
    answerTo: z.string().min(1).max(200).optional(),
  })
  .passthrough();

/** GET /api/search?q=: a literal piece of text, 1 to 200 characters. */
export const SearchQuery = z.object({ q: z.string().min(1, "q is empty").max(200, "q is longer than 200 characters") });

export function messageText(message: z.infer<typeof ChatBody>["message"]): string {
  return message.parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}
