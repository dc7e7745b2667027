// What a plugin result becomes before it reaches the stream, the database and the next model request: bounded by
// an output cap (default: the fs read limit, the same budget a file read gets) with a marker saying what was cut,
// and, when the server sent images or resources, a list of content parts instead of base64 inside JSON text, so
// a provider that takes images gets an image and the chat can render one.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "@/lib/errors";
import { MAX_JSON_DEPTH, valueDepthExceeds } from "@/lib/json-depth";

export type McpContentPart =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "audio"; mimeType: string; bytes: number }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; blob?: string };

/** A result with non-text parts. `truncated` says the cap removed something (also marked inline). */
export type McpContentOutput = {
  type: "mcp-content";
  server: string;
  tool: string;
  parts: McpContentPart[];
  truncated?: boolean;
};

export const TRUNCATION_MARKER = "[output truncated by Toolgate";

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

/** Cuts text to at most `maxBytes` UTF-8 bytes without splitting a character. */
function cutUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString("utf8");
}

function marker(total: number, cap: number): string {
  return `\n${TRUNCATION_MARKER}: ${total} bytes, cap ${cap} bytes]`;
}

/** The text cut to the cap, with the marker appended when anything was removed. */
export function capText(text: string, cap: number): { text: string; truncated: boolean } {
  const total = byteLength(text);
  if (total <= cap) return { text, truncated: false };
  return { text: cutUtf8(text, cap) + marker(total, cap), truncated: true };
}

/** Bytes a base64 payload decodes to (what a provider is sent, what the database stores ~4/3 of). */
const base64Bytes = (data: string) => Math.floor((data.length * 3) / 4);

/**
 * The model's view of a call result. Errors throw (the loop reports them); structured content wins when it fits
 * the cap; plain text stays a string; anything else becomes an McpContentOutput. Every form is bounded by `cap`
 * bytes of payload (text and decoded binary together).
 */
export function toToolOutput(serverId: string, toolName: string, result: CallToolResult, cap: number): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  if (result.isError) {
    const detail = capText(texts.join("\n") || "no details", Math.min(cap, 4000)).text;
    throw new AppError("TOOL_FAILED", `MCP server ${serverId}: ${toolName} reported an error: ${detail}`);
  }
  // Too deep to walk (or even to serialise, at a few thousand levels: lib/json-depth.ts): the server's text content
  // stands in for it (MCP asks servers to send the structured result as text too).
  const tooDeep = result.structuredContent !== undefined && valueDepthExceeds(result.structuredContent);
  if (result.structuredContent !== undefined && !tooDeep) {
    const json = JSON.stringify(result.structuredContent);
    if (byteLength(json) <= cap) return result.structuredContent;
    // Too big as an object: hand over its text form, cut (a half object would not parse anyway).
    return capText(json, cap).text;
  }
  if (tooDeep && texts.length === 0)
    return `${TRUNCATION_MARKER}: structured content nested deeper than ${MAX_JSON_DEPTH} levels omitted]`;
  if (texts.length === content.length) return capText(texts.join("\n"), cap).text;
  return toContentOutput(serverId, toolName, content, cap);
}

/** Per-field caps inside content parts: a link's name or a mimeType is a label, not a payload. */
const FIELD_CAPS = { uri: 2048, name: 256, description: 1024, mimeType: 128 } as const;
/** Parts kept per call; the rest are counted in one marker. */
export const MAX_CONTENT_PARTS = 1000;
/** What the truncation marker adds to a cut text. */
const MARKER_ROOM = 96;
const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(;[ -~]*)?$/i;

/** A label field: cut to its cap (names, descriptions) or dropped when it is not what it claims (mimeType). */
function label(value: unknown, cap: number): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  return cutUtf8(value, cap);
}
function mimeTypeOf(value: unknown): string | undefined {
  const text = label(value, FIELD_CAPS.mimeType);
  return text && MIME_TYPE.test(text) ? text : undefined;
}

/**
 * Every field of every part counts against the call's budget (its serialised size as it will be stored and sent),
 * before anything is kept: text, base64 payloads, and the labels of links and resources alike (5,000 links with
 * long names once carried 10 MB past a 512 KiB cap). Fields Toolgate does not use (annotations, _meta, title) are
 * dropped. Once the budget or the part limit is reached, one marker says how much more there was.
 */
function toContentOutput(
  server: string,
  tool: string,
  content: CallToolResult["content"],
  cap: number,
): McpContentOutput {
  let budget = cap;
  let truncated = false;
  let omittedParts = 0;
  let omittedBytes = 0;
  const parts: McpContentPart[] = [];
  const omit = (bytes: number) => {
    truncated = true;
    omittedParts += 1;
    omittedBytes += bytes;
  };
  /** Keeps a part whose size (JSON, plus decoded payload where there is one) fits what is left. */
  const keep = (part: McpContentPart, payloadBytes = 0) => {
    const size = byteLength(JSON.stringify(part)) + payloadBytes;
    if (parts.length >= MAX_CONTENT_PARTS || size > budget) return omit(size);
    budget -= size;
    parts.push(part);
  };
  const keepText = (make: (text: string) => McpContentPart, text: string) => {
    // Text is cut to what is left rather than dropped whole (the marker says so). Room is kept for the marker, and
    // the cut is retried smaller when JSON escaping (quotes, control characters) makes it larger than it looked.
    const overhead = byteLength(JSON.stringify(make("")));
    let room = budget - overhead;
    for (let attempt = 0; attempt < 4 && parts.length < MAX_CONTENT_PARTS && room > 0; attempt += 1) {
      const capped =
        byteLength(text) <= room ? { text, truncated: false } : capText(text, Math.max(0, room - MARKER_ROOM));
      const part = make(capped.text);
      const size = byteLength(JSON.stringify(part));
      if (size <= budget) {
        truncated ||= capped.truncated;
        budget -= size;
        parts.push(part);
        return;
      }
      room -= size - budget;
    }
    omit(byteLength(text) + overhead);
  };
  for (const part of content) {
    if (part.type === "text")
      keepText((text) => ({ type: "text", text }), typeof part.text === "string" ? part.text : "");
    else if (part.type === "image") {
      const mimeType = mimeTypeOf(part.mimeType);
      const data = typeof part.data === "string" ? part.data : "";
      if (!mimeType) omit(data.length);
      else keep({ type: "image", mimeType, data });
    } else if (part.type === "audio") {
      // No provider here takes audio from a tool result: say it was there instead of sending base64 as text.
      keep({
        type: "audio",
        mimeType: mimeTypeOf(part.mimeType) ?? "application/octet-stream",
        bytes: base64Bytes(typeof part.data === "string" ? part.data : ""),
      });
    } else if (part.type === "resource_link") {
      // A URI is an address the resource route serves by exact match: over its cap the link is dropped, never cut.
      if (typeof part.uri !== "string" || byteLength(part.uri) > FIELD_CAPS.uri) {
        omit(typeof part.uri === "string" ? byteLength(part.uri) : 0);
        continue;
      }
      const name = label(part.name, FIELD_CAPS.name);
      const mimeType = mimeTypeOf(part.mimeType);
      const description = label(part.description, FIELD_CAPS.description);
      keep({
        type: "resource_link",
        uri: part.uri,
        ...(name ? { name } : {}),
        ...(mimeType ? { mimeType } : {}),
        ...(description ? { description } : {}),
      });
    } else if (part.type === "resource") {
      const resource = part.resource as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
      if (typeof resource.uri !== "string" || byteLength(resource.uri) > FIELD_CAPS.uri) {
        omit(typeof resource.uri === "string" ? byteLength(resource.uri) : 0);
        continue;
      }
      const uri = resource.uri;
      const mimeType = mimeTypeOf(resource.mimeType);
      if (typeof resource.text === "string")
        keepText((text) => ({ type: "resource", uri, ...(mimeType ? { mimeType } : {}), text }), resource.text);
      else if (typeof resource.blob === "string")
        keep({ type: "resource", uri, ...(mimeType ? { mimeType } : {}), blob: resource.blob });
      else omit(0);
    } else omit(0);
  }
  if (omittedParts > 0) {
    parts.push({
      type: "text",
      text: `${TRUNCATION_MARKER}: ${omittedParts} more content part(s) of ${omittedBytes} bytes omitted, cap ${cap} bytes per call]`,
    });
  }
  return { type: "mcp-content", server, tool, parts, ...(truncated ? { truncated: true } : {}) };
}

export function isMcpContentOutput(value: unknown): value is McpContentOutput {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "mcp-content" &&
    Array.isArray((value as { parts?: unknown }).parts)
  );
}

/** AI SDK tool-result output (LanguageModelV3 `content`): images as image parts, everything else as text parts. */
export type ModelContentPart = { type: "text"; text: string } | { type: "image-data"; data: string; mediaType: string };

/**
 * For the agent loop's tool-result message (`{ type: "content", value }`): providers that take images in tool
 * results (OpenAI Responses, Anthropic) get them as images; the AI SDK converts or drops them for the others.
 */
export function mcpOutputToModelContent(output: McpContentOutput): ModelContentPart[] {
  return output.parts.map((part): ModelContentPart => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "image":
        return { type: "image-data", data: part.data, mediaType: part.mimeType };
      case "audio":
        return { type: "text", text: `[audio ${part.mimeType}, ${part.bytes} bytes, not shown]` };
      case "resource_link":
        return {
          type: "text",
          text: `[resource link ${part.uri}${part.name ? ` "${part.name}"` : ""}${part.mimeType ? ` (${part.mimeType})` : ""}]`,
        };
      case "resource":
        return {
          type: "text",
          text:
            part.text !== undefined
              ? `[resource ${part.uri}]\n${part.text}`
              : `[resource ${part.uri} (${part.mimeType ?? "binary"}), not shown]`,
        };
    }
  });
}
