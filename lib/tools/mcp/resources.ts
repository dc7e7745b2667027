import "server-only";
// Opening a resource link a plugin tool returned, through the server that returned it. Only what a plugin gave
// this user in this session can be opened (the URI must appear in one of the session's results of a tool of that
// server), only while the server is allowed and healthy, and the answer is bounded by the fs read limit. The
// response never renders as a page: text is text/plain, only raster images keep their type, the rest downloads.
import { AppError } from "@/lib/errors";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { listMessages } from "@/lib/db/messages";
import { findOwnedSession } from "@/lib/db/sessions";
import { MCP_TOOL_PREFIX } from "./naming";
import { capText } from "./output";
import { isServerInUse, mcpSupervisor, refreshMcpTools } from "./sync";

export type PluginResource = { contentType: string; body: Buffer; download: boolean };

const SAFE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** How far back in the session a link is looked for (a transcript is rarely longer). */
const MESSAGES_SEARCHED = 1000;

function offeredIn(text: string, uri: string): boolean {
  const quoted = JSON.stringify(uri);
  // Stored results are JSON, sometimes JSON inside a JSON string: look for the URI as a whole string value.
  return text.includes(quoted) || text.includes(JSON.stringify(quoted).slice(1, -1));
}

export async function readPluginResource({
  userId,
  sessionId,
  serverId,
  uri,
}: {
  userId: string;
  sessionId: string;
  serverId: string;
  uri: string;
}): Promise<PluginResource> {
  const session = await findOwnedSession({ sessionId, ownerId: userId });
  if (!session) throw new AppError("NOT_FOUND", "no such session");
  const prefix = `${MCP_TOOL_PREFIX}${serverId}__`;
  const messages = await listMessages({ sessionId, limit: MESSAGES_SEARCHED });
  const offered = messages.some(
    (m) =>
      m.role === "tool" &&
      m.toolName?.startsWith(prefix) &&
      offeredIn(`${m.content}\n${JSON.stringify(m.parts ?? null)}`, uri),
  );
  if (!offered) throw new AppError("FORBIDDEN", `MCP server ${serverId} did not return this resource in this session`);
  const { document } = await loadPolicyDocument();
  if (!isServerInUse(document, serverId))
    throw new AppError("TOOL_NOT_AVAILABLE", `MCP server ${serverId} is not enabled in the system settings`);
  const registry = getToolRegistry();
  refreshMcpTools(document, registry);
  const supervisor = mcpSupervisor(registry, serverId);
  if (!supervisor) throw new AppError("NOT_FOUND", `there is no configured MCP server "${serverId}"`);
  let result;
  try {
    result = await supervisor.readResource(uri);
  } catch (error) {
    // The server is down, hung or refused: a 4xx naming it, not a 500.
    throw new AppError("TOOL_NOT_AVAILABLE", error instanceof Error ? error.message : String(error));
  }
  const cap = document.system.fs.maxReadBytes;
  const first = result.contents[0] as { mimeType?: string; text?: string; blob?: string } | undefined;
  if (!first) throw new AppError("NOT_FOUND", `MCP server ${serverId} returned no content for this resource`);
  if (typeof first.text === "string")
    return {
      contentType: "text/plain; charset=utf-8",
      body: Buffer.from(capText(first.text, cap).text, "utf8"),
      download: false,
    };
  const bytes = Buffer.from(first.blob ?? "", "base64");
  if (bytes.length > cap)
    throw new AppError(
      "LIMIT_EXCEEDED",
      `the resource is ${bytes.length} bytes, more than the read limit of ${cap} bytes`,
    );
  const type = first.mimeType ?? "application/octet-stream";
  return SAFE_IMAGE_TYPES.has(type)
    ? { contentType: type, body: bytes, download: false }
    : { contentType: "application/octet-stream", body: bytes, download: true };
}
