// What an outside client gets back for a call: the pipeline's outcome as an MCP CallToolResult. Denials, pending
// approvals and failures are tool errors (isError) whose text is the same structured denial the chat's model gets
// (error_code, message, next_action), so an agent can read why and what to do next.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isMcpContentOutput, mcpServerOfToolName } from "@/lib/tools/mcp";
import { namespaceContent } from "./upstream-names";
import type { CallOutcome } from "@/lib/runs/calls";

export function pendingResult(approvalId: string, toolName: string): CallToolResult {
  const body = {
    ok: false,
    error_code: "APPROVAL_PENDING",
    tool_name: toolName,
    approval_id: approvalId,
    message: `approval ${approvalId} is pending: an owner has not decided yet`,
    next_action:
      "Make the same call again (same tool, same arguments) after an owner decides in the Toolgate inbox: it runs once then.",
  };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

export function toCallToolResult(outcome: CallOutcome & { approvalId?: string }, toolName: string): CallToolResult {
  if (outcome.status === "pending")
    return pendingResult(
      outcome.approvalId ?? String((outcome.output as { approvalId?: unknown } | null)?.approvalId ?? "?"),
      toolName,
    );
  const isError = outcome.status !== "ok";
  const output = outcome.output;
  if (!isError && isMcpContentOutput(output)) {
    const content = output.parts.map((part): CallToolResult["content"][number] => {
      if (part.type === "text" || part.type === "image") return part;
      if (part.type === "audio")
        return { type: "text", text: `[audio ${part.mimeType}, ${part.bytes} bytes not passed through]` };
      if (part.type === "resource_link") return { ...part, name: part.name ?? part.uri };
      return part.text !== undefined
        ? { type: "resource", resource: { uri: part.uri, mimeType: part.mimeType, text: part.text } }
        : { type: "resource", resource: { uri: part.uri, mimeType: part.mimeType, blob: part.blob ?? "" } };
    });
    // A plugin's resource links are readable through /mcp under the gateway's URIs (upstream-names.ts).
    const serverId = mcpServerOfToolName(toolName);
    return { content: serverId ? content.map((block) => namespaceContent(serverId, block)) : content };
  }
  const text = typeof output === "string" ? output : JSON.stringify(output ?? null);
  return { ...(isError ? { isError: true } : {}), content: [{ type: "text", text }] };
}
