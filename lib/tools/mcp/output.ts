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
export type McpContentOutput = { type: "mcp-content"; server: string; tool: string; parts: McpContentPart[]; truncated?: boolean };

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
  if (tooDeep && texts.length === 0) return `${TRUNCATION_MARKER}: structured content nested deeper than ${MAX_JSON_DEPTH} levels omitted]`;
  if (texts.length === content.length) return capText(texts.join("\n"), cap).text;
  return toContentOutput(serverId, toolName, content, cap);
}

function toContentOutput(server: string, tool: string, content: CallToolResult["content"], cap: number): McpContentOutput {
  let budget = cap;
  let truncated = false;
  const parts: McpContentPart[] = [];
  const omit = (what: string, bytes: number) => {
    truncated = true;
    parts.push({ type: "text", text: `${TRUNCATION_MARKER}: ${what} of ${bytes} bytes omitted, cap ${cap} bytes]` });
  };
  const addText = (text: string) => {
    const capped = capText(text, Math.max(0, budget));
    truncated ||= capped.truncated;
    budget -= Math.min(byteLength(text), Math.max(0, budget));
    parts.push({ type: "text", text: capped.text });
  };
  for (const part of content) {
    if (part.type === "text") addText(part.text);
    else if (part.type === "image") {
      const bytes = base64Bytes(part.data);
      if (bytes > budget) omit(`image (${part.mimeType})`, bytes);
      else {
        budget -= bytes;
        parts.push({ type: "image", mimeType: part.mimeType, data: part.data });
      }
    } else if (part.type === "audio") {
      // No provider here takes audio from a tool result: say it was there instead of sending base64 as text.
      parts.push({ type: "audio", mimeType: part.mimeType, bytes: base64Bytes(part.data) });
    } else if (part.type === "resource_link") {
      parts.push({ type: "resource_link", uri: part.uri, name: part.name, ...(part.mimeType ? { mimeType: part.mimeType } : {}), ...(part.description ? { description: part.description } : {}) });
    } else if (part.type === "resource") {
      const resource = part.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof resource.text === "string") {
        const capped = capText(resource.text, Math.max(0, budget));
        truncated ||= capped.truncated;
        budget -= Math.min(byteLength(resource.text), Math.max(0, budget));
        parts.push({ type: "resource", uri: resource.uri, mimeType: resource.mimeType, text: capped.text });
      } else if (typeof resource.blob === "string") {
        const bytes = base64Bytes(resource.blob);
        if (bytes > budget) omit(`resource ${resource.uri}`, bytes);
        else {
          budget -= bytes;
          parts.push({ type: "resource", uri: resource.uri, mimeType: resource.mimeType, blob: resource.blob });
        }
      }
    }
  }
  return { type: "mcp-content", server, tool, parts, ...(truncated ? { truncated: true } : {}) };
}

export function isMcpContentOutput(value: unknown): value is McpContentOutput {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "mcp-content" && Array.isArray((value as { parts?: unknown }).parts);
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
        return { type: "text", text: `[resource link ${part.uri}${part.name ? ` "${part.name}"` : ""}${part.mimeType ? ` (${part.mimeType})` : ""}]` };
      case "resource":
        return { type: "text", text: part.text !== undefined ? `[resource ${part.uri}]\n${part.text}` : `[resource ${part.uri} (${part.mimeType ?? "binary"}), not shown]` };
    }
  });
}
