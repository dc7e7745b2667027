// The stored transcript and the two shapes it is read back in: model messages (for the next turn) and UI
// messages (for the chat page after a reload). One stored shape per role:
//   user       content = text
//   assistant  content = text, parts = { toolCalls: [{ toolCallId, toolName, input }] }
//   tool       content = JSON of the output, toolCallId, toolName, parts = { status, output }
import type { ModelMessage, UIMessage } from "ai";
import type { DenialResult } from "./gate";
import { isMcpContentOutput, mcpOutputToModelContent } from "@/lib/tools/mcp/output";

export type ToolStatus = "ok" | "error" | "denied" | "aborted" | "pending";
export type StoredToolCall = { toolCallId: string; toolName: string; input: unknown };
export type StoredMessage = {
  id: string;
  seq: number;
  role: string;
  content: string;
  parts: unknown;
  toolCallId: string | null;
  toolName: string | null;
  createdAt: Date;
};

export function assistantParts(toolCalls: StoredToolCall[]) {
  return { toolCalls };
}

export function toolParts(status: ToolStatus, output: unknown) {
  return { status, output };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A call as the model is shown it again. A provider takes a call's input only as an object (Anthropic answers 400
 * to anything else, for the whole request): arguments the gate refused as text or an array go back as {}, and the
 * call's result says what they were.
 */
export function modelToolCall(c: StoredToolCall): {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
} {
  return {
    type: "tool-call",
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    input: isPlainObject(c.input) ? c.input : {},
  };
}

function toolCallsOf(m: StoredMessage): StoredToolCall[] {
  const parts = m.parts as { toolCalls?: StoredToolCall[] } | null;
  return Array.isArray(parts?.toolCalls) ? parts!.toolCalls : [];
}

function toolOutputOf(m: StoredMessage): { status: ToolStatus; output: unknown } {
  const parts = m.parts as { status?: ToolStatus; output?: unknown } | null;
  if (parts && parts.status) return { status: parts.status, output: parts.output };
  try {
    return { status: "ok", output: JSON.parse(m.content) };
  } catch {
    return { status: "ok", output: m.content };
  }
}

/** Model-ready history. Tool calls without a stored result get one saying so, as providers require. */
export function toModelMessages(rows: StoredMessage[], options: ToolResultOptions = {}): ModelMessage[] {
  const out: ModelMessage[] = [];
  const answered = new Set(rows.filter((r) => r.role === "tool" && r.toolCallId).map((r) => r.toolCallId!));
  for (const m of rows) {
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      const calls = toolCallsOf(m);
      const content: Array<
        { type: "text"; text: string } | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
      > = [];
      if (m.content) content.push({ type: "text", text: m.content });
      for (const c of calls) content.push(modelToolCall(c));
      if (content.length) out.push({ role: "assistant", content });
      const missing = calls.filter((c) => !answered.has(c.toolCallId));
      if (missing.length) {
        out.push({
          role: "tool",
          content: missing.map((c) => ({
            type: "tool-result" as const,
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            output: { type: "json" as const, value: { ok: false, error: "this call did not complete" } },
          })),
        });
      }
    } else if (m.role === "tool" && m.toolCallId) {
      const { output } = toolOutputOf(m);
      out.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: m.toolCallId,
            toolName: m.toolName ?? "unknown",
            output: toolResultOutput(output, options),
          },
        ],
      });
    }
  }
  return out;
}

export type ToolDeniedData = {
  callId: string;
  toolName: string;
  mode: string;
  errorCode: string;
  message: string;
  nextAction: string;
};

export function toolDeniedData(callId: string, d: DenialResult): ToolDeniedData {
  return {
    callId,
    toolName: d.tool_name,
    mode: d.mode,
    errorCode: d.error_code,
    message: d.message,
    nextAction: d.next_action,
  };
}

/** A call's live state (lib/db/tool-calls.ts) as its card shows it: who approved it and when, running, stopped. */
export type CallState = {
  status: string;
  decidedBy: string | null;
  decidedAt: Date | string | null;
  decisionReason?: string | null;
};

/**
 * UI messages for the chat page: assistant text, each tool call with its result, denials and stops as data
 * parts, a call waiting for (or past) its approval with its current state, and server notices (stopped,
 * interrupted) as system messages.
 */
export function toUIMessages(rows: StoredMessage[], calls: ReadonlyMap<string, CallState> = new Map()): UIMessage[] {
  const out: UIMessage[] = [];
  const results = new Map(
    rows.filter((r) => r.role === "tool" && r.toolCallId).map((r) => [r.toolCallId!, toolOutputOf(r)]),
  );
  let current: UIMessage | null = null;
  for (const m of rows) {
    if (m.role === "user" || m.role === "system") {
      current = null;
      // A system line's parts say what kind of notice it is (a mode switch's marker carries from and to).
      const kind = m.role === "system" ? (m.parts as { kind?: unknown } | null)?.kind : undefined;
      const notice = typeof kind === "string" ? (m.parts as Record<string, unknown>) : {};
      out.push({
        id: m.id,
        role: m.role,
        parts: [{ type: "text", text: m.content }],
        metadata: { ...notice, createdAt: m.createdAt.toISOString() },
      });
      continue;
    }
    if (m.role !== "assistant") continue;
    if (!current) {
      current = { id: m.id, role: "assistant", parts: [], metadata: { createdAt: m.createdAt.toISOString() } };
      out.push(current);
    }
    if (m.content) current.parts.push({ type: "text", text: m.content, state: "done" });
    for (const call of toolCallsOf(m)) {
      const result = results.get(call.toolCallId);
      const state = calls.get(call.toolCallId);
      const decidedAt = state?.decidedAt ? new Date(state.decidedAt).toISOString() : null;
      if (result?.status === "pending") {
        const pending = result.output as {
          approvalId?: string;
          reason?: string;
          expiresAt?: string;
          deferred?: unknown;
        };
        current.parts.push({
          type: "data-approval_pending",
          id: call.toolCallId,
          data: {
            approvalId: pending.approvalId,
            callId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
            reason: pending.reason,
            expiresAt: pending.expiresAt,
            status: state?.status ?? "pending",
            decidedBy: state?.decidedBy ?? null,
            decidedAt,
            decisionReason: state?.decisionReason ?? null,
            ...(pending.deferred === true ? { deferred: true } : {}),
          },
        } as never);
        continue;
      }
      if (result?.status === "aborted") {
        current.parts.push({
          type: "data-tool_stopped",
          id: call.toolCallId,
          data: { callId: call.toolCallId, toolName: call.toolName, input: call.input },
        } as never);
        continue;
      }
      if (result?.status === "denied") {
        const data = toolDeniedData(call.toolCallId, result.output as DenialResult);
        // An owner's denial says who and why ("Denied by owner@…: not on a Friday"), whichever channel it came from.
        const byOwner =
          data.errorCode === "APPROVAL_DENIED" && state?.decidedBy
            ? { decidedBy: state.decidedBy, decidedAt, decisionReason: state.decisionReason ?? null }
            : {};
        current.parts.push({ type: "data-tool_denied", id: call.toolCallId, data: { ...data, ...byOwner } } as never);
        continue;
      }
      // A call that ran after an owner allowed it says who allowed it and when.
      if (result?.status === "ok" && state?.decidedBy && decidedAt)
        current.parts.push({
          type: "data-approval_decided",
          id: `${call.toolCallId}:decided`,
          data: { callId: call.toolCallId, decidedBy: state.decidedBy, decidedAt },
        } as never);
      current.parts.push(
        result
          ? result.status === "ok"
            ? {
                type: "dynamic-tool",
                toolName: call.toolName,
                toolCallId: call.toolCallId,
                state: "output-available",
                input: call.input,
                output: result.output,
              }
            : {
                type: "dynamic-tool",
                toolName: call.toolName,
                toolCallId: call.toolCallId,
                state: "output-error",
                input: call.input,
                errorText: JSON.stringify(result.output),
              }
          : {
              type: "dynamic-tool",
              toolName: call.toolName,
              toolCallId: call.toolCallId,
              state: "input-available",
              input: call.input,
            },
      );
    }
  }
  return out;
}

/**
 * Whether the provider's wire format carries images inside tool results (OpenAI's Responses API and Anthropic's
 * Messages API do). Chat-completions servers take text only: the AI SDK would send the parts as JSON text, base64
 * and all, so they get a text result instead.
 */
export function takesImagesInToolResults(provider: string): boolean {
  return provider === "openai" || provider === "anthropic";
}

export type ToolResultOptions = { imagesInToolResults?: boolean };

/**
 * A tool's result as the model receives it: a plugin's images and resources as content parts where the provider
 * takes images (an image, not base64 inside JSON text), else as text with each image named but not included;
 * everything else as JSON.
 */
export function toolResultOutput(output: unknown, { imagesInToolResults = true }: ToolResultOptions = {}) {
  if (isMcpContentOutput(output)) {
    const parts = mcpOutputToModelContent(output);
    if (imagesInToolResults) return { type: "content" as const, value: parts };
    const text = parts.map((p) =>
      p.type === "text"
        ? p.text
        : `[image ${p.mediaType}, ${Math.floor((p.data.length * 3) / 4)} bytes: shown to the user; this model does not take images in tool results]`,
    );
    return { type: "text" as const, value: text.join("\n") };
  }
  return { type: "json" as const, value: (output ?? null) as never };
}
