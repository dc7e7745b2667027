import "server-only";
// Request bodies are read as streams with a byte cap per route: a declared Content-Length over the cap is
// refused before a byte is read, and a chunked body is cut off (413) the moment it passes the cap, so a
// client cannot make the server hold more than the cap in memory. Handlers authenticate before calling this.
import { AppError } from "@/lib/errors";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@/lib/json-depth";
import { sanitizeDeep } from "@/lib/text-sanitize";

/** Byte caps per kind of route (the chat route and policy documents are the large ones). */
export const BODY_LIMITS = { small: 16 * 1024, approval: 128 * 1024, policy: 1024 * 1024, chat: 256 * 1024 } as const;

function tooLarge(maxBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `body is larger than ${maxBytes} bytes`, { maxBytes });
}

export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("BAD_REQUEST", "body is not valid UTF-8");
  }
}

/** Reads, caps and parses a JSON body; strings come back without NUL bytes or lone surrogates. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(request, maxBytes);
  if (text.trim() === "") return undefined;
  if (jsonDepthExceeds(text)) throw new AppError("BAD_REQUEST", `body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return sanitizeDeep(JSON.parse(text));
  } catch {
    throw new AppError("INVALID_JSON", "body is not valid JSON");
  }
}

/** The chat route's cap: room for the longest message the configuration allows (4 bytes a character) plus the envelope. */
export function chatBodyLimit(maxMessageChars: number): number {
  return Math.max(BODY_LIMITS.chat, maxMessageChars * 4 + 16 * 1024);
}
