import "server-only";
// One agent turn: resolve the effective policy once, give the model only the allowed tools (exposure gate),
// check every call again before it runs (execution gate), persist every message in order, and report each
// step as AI SDK UI message chunks. The SDK never executes tools here: the loop does, so a call to a hidden
// tool, malformed arguments or twenty calls at once all meet the same gate.
import path from "node:path";
import { jsonSchema, streamText, tool as aiTool, type ModelMessage, type ToolSet, type UIMessageChunk } from "ai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { normalizeToolParameters, resolveEffectiveToolPolicy, resolveGrantedModes, type EffectiveToolPolicy, type PolicyContext, type Role, type ToolDefinition } from "@/lib/policy";
import { z } from "zod";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { appendAudit } from "@/lib/db/audit";
import { appendMessage, listMessages } from "@/lib/db/messages";
import { findOwnedSession } from "@/lib/db/sessions";
import { createRun, updateRunStatus } from "@/lib/db/runs";
import type { ToolRunContext } from "@/lib/tools/context";
import { checkToolCall, denial, type DenialResult } from "./gate";
import { ToolHooks } from "./hooks";
import { loadPolicyDocument } from "./policy-source";
import { buildSystemPrompt } from "./prompt";
import { createToolServices } from "./services";
import { getSessionMode } from "./session-mode";
import { getToolRegistry } from "./tool-catalog";
import { assistantParts, toModelMessages, toolDeniedData, toolParts, type StoredToolCall, type ToolStatus } from "./transcript";

export const MAX_STEPS = 8;
export const MAX_CALLS_PER_STEP = 10;

export type TurnUser = { id: string; roles: Role[]; teamIds: string[] };
export type TurnOptions = {
  sessionId: string;
  user: TurnUser;
  model: LanguageModelV3;
  modelInfo: { provider: string; model?: string };
  emit: (chunk: UIMessageChunk) => void;
  abortSignal?: AbortSignal;
  hooks?: ToolHooks;
  workspaceRoot: string;
  execLimits?: { timeoutMs: number; maxOutputBytes: number };
};
export type TurnResult = { runId: string; status: "completed" | "aborted" | "failed"; steps: number; error?: string };

type ResolvedPolicy = { policy: EffectiveToolPolicy; grantedModes: ReturnType<typeof resolveGrantedModes> } | { policy: null; error: string };

async function resolvePolicyFor(opts: TurnOptions, depth: number, agentId: string | null): Promise<ResolvedPolicy> {
  try {
    const { document } = await loadPolicyDocument();
    const base = { roles: opts.user.roles, teamIds: opts.user.teamIds, senderId: opts.user.id };
    const grantedModes = resolveGrantedModes(base, document);
    const { mode } = await getSessionMode({ sessionId: opts.sessionId, grantedModes });
    const context: PolicyContext = {
      ...base,
      senderIsOwner: opts.user.roles.includes("owner"),
      mode,
      provider: opts.modelInfo.provider,
      model: opts.modelInfo.model,
      agentId: agentId ?? undefined,
      subagentDepth: depth,
    };
    return { policy: resolveEffectiveToolPolicy(context, { document, tools: getToolRegistry().meta() }), grantedModes };
  } catch (error) {
    // Fail closed: without a readable policy the model gets no tools and every call is refused.
    log("error", "policy_unavailable", { sessionId: opts.sessionId, error: String(error) });
    return { policy: null, error: error instanceof Error ? error.message : String(error) };
  }
}

function toSdkTools(tools: ToolDefinition[]): ToolSet {
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      aiTool({ description: t.description, inputSchema: jsonSchema(normalizeToolParameters(z.toJSONSchema(t.inputSchema, { io: "input", unrepresentable: "any" })) as never) }),
    ]),
  );
}

export async function runTurn(opts: TurnOptions): Promise<TurnResult> {
  const { sessionId, user, emit } = opts;
  const session = await findOwnedSession({ sessionId, ownerId: user.id });
  if (!session) throw new AppError("NOT_FOUND", "no such session");
  const run = await createRun({ sessionId });
  const hooks = opts.hooks ?? new ToolHooks();
  const resolved = await resolvePolicyFor(opts, session.depth, session.agentId);
  const registry = getToolRegistry();
  const mode = resolved.policy?.mode ?? "chat_safe";
  const prompt = resolved.policy ? buildSystemPrompt({ mode, policy: resolved.policy, registry }) : { system: "No tools are available: the tool policy could not be read.", tools: [] };
  const toolContext: ToolRunContext = {
    userId: user.id,
    sessionId,
    workspaceDir: path.join(opts.workspaceRoot, user.id),
    limits: {
      maxReadBytes: resolved.policy?.limits.fs.maxReadBytes ?? 0,
      maxWriteBytes: resolved.policy?.limits.fs.maxWriteBytes ?? 0,
    },
    exec: opts.execLimits ?? { timeoutMs: resolved.policy?.exec.timeoutMs ?? 30_000, maxOutputBytes: resolved.policy?.exec.maxOutputBytes ?? 200_000 },
    services: createToolServices({ userId: user.id }),
  };
  const messages: ModelMessage[] = toModelMessages(await listMessages({ sessionId }));
  const tools = toSdkTools(prompt.tools);
  emit({ type: "start", messageId: run.id });
  let steps = 0;
  let status: TurnResult["status"] = "completed";
  let failure: string | undefined;
  try {
    while (steps < MAX_STEPS) {
      steps += 1;
      emit({ type: "start-step" });
      const step = await streamStep(opts, { system: prompt.system, messages, tools, stepIndex: steps });
      const calls = step.calls;
      await appendMessage({ sessionId, message: { role: "assistant", content: step.text, parts: assistantParts(calls), runId: run.id } });
      const assistant: ModelMessage = {
        role: "assistant",
        content: [
          ...(step.text ? [{ type: "text" as const, text: step.text }] : []),
          ...calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: c.toolName, input: c.input ?? {} })),
        ],
      };
      if (assistant.content.length) messages.push(assistant);
      if (step.aborted) {
        await recordUnfinished(sessionId, run.id, calls, "aborted");
        status = "aborted";
        break;
      }
      if (calls.length === 0) break;
      for (const [index, call] of calls.entries()) {
        if (opts.abortSignal?.aborted) {
          await recordUnfinished(sessionId, run.id, calls.slice(index), "aborted");
          status = "aborted";
          break;
        }
        const { status: resultStatus, output } = await handleCall(opts, { call, index, resolved, registry, hooks, toolContext, runId: run.id });
        messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: { type: "json", value: (output ?? null) as never } }] });
        if (resultStatus === "aborted") status = "aborted";
      }
      emit({ type: "finish-step" });
      if (status === "aborted") break;
    }
  } catch (error) {
    if (opts.abortSignal?.aborted) status = "aborted";
    else {
      status = "failed";
      failure = error instanceof Error ? error.message : String(error);
      log("error", "turn_failed", { sessionId, runId: run.id, error: failure });
      emit({ type: "error", errorText: `The turn failed: ${failure}` });
    }
  }
  await updateRunStatus({ runId: run.id, status, error: failure });
  emit(status === "aborted" ? { type: "abort", reason: "stopped" } : { type: "finish", finishReason: status === "failed" ? "error" : "stop" });
  return { runId: run.id, status, steps, error: failure };
}

async function streamStep(
  opts: TurnOptions,
  input: { system: string; messages: ModelMessage[]; tools: ToolSet; stepIndex: number },
): Promise<{ text: string; calls: StoredToolCall[]; aborted: boolean }> {
  const result = streamText({
    model: opts.model,
    system: input.system,
    messages: input.messages,
    tools: input.tools,
    abortSignal: opts.abortSignal,
    maxRetries: 0,
  });
  let text = "";
  const calls: StoredToolCall[] = [];
  let aborted = false;
  const textId = `${input.stepIndex}`;
  let textOpen = false;
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        if (!textOpen) {
          opts.emit({ type: "text-start", id: textId });
          textOpen = true;
        }
        text += part.text;
        opts.emit({ type: "text-delta", id: textId, delta: part.text });
      } else if (part.type === "tool-call") {
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      } else if (part.type === "abort") {
        aborted = true;
      } else if (part.type === "error") {
        throw part.error instanceof Error ? part.error : new Error(String((part.error as { message?: string })?.message ?? part.error));
      }
    }
  } catch (error) {
    if (!opts.abortSignal?.aborted) throw error;
    aborted = true;
  }
  if (textOpen) opts.emit({ type: "text-end", id: textId });
  return { text, calls, aborted: aborted || Boolean(opts.abortSignal?.aborted) };
}

type CallContext = {
  call: StoredToolCall;
  index: number;
  resolved: ResolvedPolicy;
  registry: ReturnType<typeof getToolRegistry>;
  hooks: ToolHooks;
  toolContext: ToolRunContext;
  runId: string;
};

async function handleCall(opts: TurnOptions, ctx: CallContext): Promise<{ status: ToolStatus; output: unknown }> {
  const { call, resolved } = ctx;
  const { sessionId, user, emit } = opts;
  emit({ type: "tool-input-available", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, dynamic: true });
  const mode = resolved.policy?.mode ?? "chat_safe";
  const deny = async (d: DenialResult, layer: string, rule?: string, reason?: string) => {
    emit({ type: "data-tool_denied", id: call.toolCallId, data: toolDeniedData(call.toolCallId, d) });
    await appendMessage({ sessionId, message: { role: "tool", content: JSON.stringify(d), parts: toolParts("denied", d), toolCallId: call.toolCallId, toolName: call.toolName, runId: ctx.runId } });
    await appendAudit({ action: "tool.call", actorId: user.id, sessionId, toolName: call.toolName, callId: call.toolCallId, decision: "deny", layer, rule: rule ?? null, details: { mode, errorCode: d.error_code, reason: reason ?? d.message } });
    return { status: "denied" as const, output: d };
  };

  if (!resolved.policy) {
    return deny(denial("POLICY_DENIED", call.toolName, mode, `the tool policy could not be read (${resolved.error}); no tool runs`, "Try again later or ask an admin to check the policy."), "policy", undefined, "policy unavailable");
  }
  if (ctx.index >= MAX_CALLS_PER_STEP) {
    return deny(denial("LIMIT_EXCEEDED", call.toolName, mode, `at most ${MAX_CALLS_PER_STEP} tool calls run per step; this was call ${ctx.index + 1}`, "Make fewer tool calls at once and try again."), "limits", `max ${MAX_CALLS_PER_STEP} calls per step`);
  }
  const verdict = checkToolCall({ policy: resolved.policy, registry: ctx.registry, toolName: call.toolName, input: call.input, grantedModes: resolved.grantedModes });
  if (verdict.verdict === "deny") return deny(verdict.denial, verdict.layer, verdict.rule, verdict.reason);
  if (verdict.verdict === "ask") {
    // Approvals (owner inbox) are not wired into the loop yet: a call that needs one is refused, never run.
    return deny(
      denial("APPROVAL_DENIED", verdict.tool.name, mode, `${verdict.tool.name} needs an owner's approval (${verdict.reason}), and none can be requested here yet.`, "Continue without it, or ask an admin to allow it in /admin/policy."),
      "approval",
      undefined,
      verdict.reason,
    );
  }
  const info = { callId: call.toolCallId, toolName: verdict.tool.name, params: verdict.input as Record<string, unknown>, sessionId, userId: user.id, mode };
  const before = await ctx.hooks.runBefore(info);
  if (before.blocked) return deny(denial("POLICY_DENIED", verdict.tool.name, mode, `blocked before running: ${before.reason}`, "Continue without this call."), "hook", undefined, before.reason);
  let params: unknown = before.params;
  if (before.params !== info.params) {
    const reparsed = verdict.tool.inputSchema.safeParse(before.params);
    if (!reparsed.success) return deny(denial("INVALID_ARGUMENTS", verdict.tool.name, mode, "a hook rewrote the arguments into an invalid shape", "Continue without this call."), "hook");
    params = reparsed.data;
  }
  await appendAudit({ action: "tool.call", actorId: user.id, sessionId, toolName: verdict.tool.name, callId: call.toolCallId, decision: "allow", layer: verdict.decision.layer, rule: verdict.decision.rule ?? null, details: { mode, reason: verdict.reason } });
  const started = Date.now();
  let status: ToolStatus;
  let output: unknown;
  try {
    output = await verdict.tool.execute(params, { callId: call.toolCallId, abortSignal: opts.abortSignal, context: ctx.toolContext });
    status = opts.abortSignal?.aborted ? "aborted" : "ok";
    emit({ type: "tool-output-available", toolCallId: call.toolCallId, output, dynamic: true });
    ctx.hooks.runAfter({ ...info, params: params as Record<string, unknown>, ok: true, result: output, durationMs: Date.now() - started });
  } catch (error) {
    status = opts.abortSignal?.aborted ? "aborted" : "error";
    const code = isAppError(error) ? error.code : "TOOL_FAILED";
    output = { ok: false, error_code: code, tool_name: verdict.tool.name, message: error instanceof Error ? error.message : String(error) };
    emit({ type: "tool-output-error", toolCallId: call.toolCallId, errorText: JSON.stringify(output), dynamic: true });
    ctx.hooks.runAfter({ ...info, params: params as Record<string, unknown>, ok: false, error: String(error), durationMs: Date.now() - started });
  }
  await appendMessage({ sessionId, message: { role: "tool", content: JSON.stringify(output ?? null), parts: toolParts(status, output), toolCallId: call.toolCallId, toolName: verdict.tool.name, runId: ctx.runId } });
  return { status, output };
}

async function recordUnfinished(sessionId: string, runId: string, calls: StoredToolCall[], status: ToolStatus) {
  for (const call of calls) {
    const output = { ok: false, error: "stopped before this call ran" };
    await appendMessage({ sessionId, message: { role: "tool", content: JSON.stringify(output), parts: toolParts(status, output), toolCallId: call.toolCallId, toolName: call.toolName, runId } });
  }
}
