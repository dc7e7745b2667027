import "server-only";
// One tool call through the execution gate: deny (structured result + tool_denied part + transcript line
// + audit), ask (register an approval, show it pending, pause), or run (hooks, execute with the abort signal,
// persist, audit). Resumed calls come back through settleCall with the approval's outcome.
import { analyzeShellCommand, resolveAskFallback, evaluateExecAllowlist } from "@/lib/policy";
import { isAppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { appendMessage, updateToolMessage } from "@/lib/db/messages";
import { consumeApproval } from "@/lib/db/approvals";
import { requestApproval } from "@/lib/approvals/service";
import { hashArguments } from "@/lib/approvals/rules";
import { checkToolCall, denial, type DenialResult, type GateVerdict } from "./gate";
import { toolDeniedData, toolParts, type StoredToolCall, type ToolStatus } from "./transcript";
import type { Turn } from "./turn-setup";

export const MAX_CALLS_PER_STEP = 10;

export type CallOutcome = { status: ToolStatus; output: unknown };
type Persist = "append" | "update";

/** The context a decision was made in, so the admin replay can decide recorded calls again as they were. */
function auditContext(turn: Turn) {
  return {
    mode: turn.mode,
    provider: turn.env.model.info.provider,
    model: turn.env.model.info.model ?? null,
    agentId: turn.session.agentId ?? null,
    teamIds: turn.env.user.teamIds,
    sandboxed: turn.policy?.sandboxed ?? null,
    subagentDepth: turn.session.depth,
  };
}

async function persistResult(turn: Turn, call: StoredToolCall, status: ToolStatus, output: unknown, how: Persist, toolName = call.toolName) {
  const content = JSON.stringify(output ?? null);
  if (how === "update") {
    await updateToolMessage({ sessionId: turn.session.id, toolCallId: call.toolCallId, content, parts: toolParts(status, output) });
  } else {
    await appendMessage({ sessionId: turn.session.id, message: { role: "tool", content, parts: toolParts(status, output), toolCallId: call.toolCallId, toolName, runId: turn.runId } });
  }
}

async function deny(turn: Turn, call: StoredToolCall, d: DenialResult, audit: { layer: string; rule?: string; reason?: string }, how: Persist = "append"): Promise<CallOutcome> {
  turn.env.emit({ type: "data-tool_denied", id: call.toolCallId, data: toolDeniedData(call.toolCallId, d) });
  await persistResult(turn, call, "denied", d, how);
  await appendAudit({
    action: "tool.call",
    actorId: turn.env.user.id,
    sessionId: turn.session.id,
    toolName: call.toolName,
    callId: call.toolCallId,
    decision: "deny",
    layer: audit.layer,
    rule: audit.rule ?? null,
    details: { ...auditContext(turn), errorCode: d.error_code, reason: audit.reason ?? d.message },
  });
  return { status: "denied", output: d };
}

function gate(turn: Turn, call: StoredToolCall): GateVerdict | { verdict: "deny"; denial: DenialResult; layer: string; reason: string } {
  if (!turn.policy) {
    return {
      verdict: "deny",
      denial: denial("POLICY_DENIED", call.toolName, turn.mode, `the tool policy could not be read (${turn.policyError}); no tool runs`, "Try again later or ask an admin to check the policy."),
      layer: "policy",
      reason: "policy unavailable",
    };
  }
  return checkToolCall({ policy: turn.policy, registry: turn.registry, toolName: call.toolName, input: call.input, grantedModes: turn.grantedModes, durable: turn.durable });
}

export async function handleCall(turn: Turn, call: StoredToolCall, index: number): Promise<CallOutcome> {
  // No tool-input-available here: a call that is denied or waits for approval must not show as a running tool
  // card in the live stream (it would spin forever); executeCall announces the call once it really runs, so
  // the live parts match what the transcript shows after a reload (toUIMessages).
  if (index >= MAX_CALLS_PER_STEP) {
    const d = denial("LIMIT_EXCEEDED", call.toolName, turn.mode, `at most ${MAX_CALLS_PER_STEP} tool calls run per step; this was call ${index + 1}`, "Make fewer tool calls at once and try again.");
    return deny(turn, call, d, { layer: "limits", rule: `max ${MAX_CALLS_PER_STEP} calls per step` });
  }
  const verdict = gate(turn, call);
  if (verdict.verdict === "deny") return deny(turn, call, verdict.denial, { layer: verdict.layer, rule: "rule" in verdict ? verdict.rule : undefined, reason: verdict.reason });
  if (verdict.verdict === "ask") return askForApproval(turn, call, verdict);
  return executeCall(turn, call, verdict, "append");
}

async function askForApproval(turn: Turn, call: StoredToolCall, verdict: Extract<GateVerdict, { verdict: "ask" }>): Promise<CallOutcome> {
  const isExec = verdict.tool.name === "exec";
  const command = isExec ? String((verdict.input as { command?: unknown }).command ?? "") : null;
  // Registered (and audited) before anyone hears of it: the inbox and the chat only learn of a stored request.
  const { approval } = await requestApproval({
    kind: isExec ? "exec" : "tool",
    sessionId: turn.session.id,
    runId: turn.runId,
    requesterId: turn.env.user.id,
    toolName: verdict.tool.name,
    callId: call.toolCallId,
    args: verdict.input,
    command,
    analysis: command !== null ? analyzeShellCommand(command) : null,
    reason: verdict.reason,
  });
  const pending = { ok: false, pending: true, approvalId: approval.id, tool_name: verdict.tool.name, reason: verdict.reason, expiresAt: approval.expiresAt.toISOString() };
  turn.env.emit({ type: "data-approval_pending", id: call.toolCallId, data: { approvalId: approval.id, callId: call.toolCallId, toolName: verdict.tool.name, input: verdict.input, reason: verdict.reason, expiresAt: approval.expiresAt.toISOString(), status: "pending" } });
  await persistResult(turn, call, "pending", pending, "append", verdict.tool.name);
  return { status: "pending", output: pending };
}

async function executeCall(turn: Turn, call: StoredToolCall, verdict: Extract<GateVerdict, { verdict: "run" | "ask" }>, how: Persist, note?: string): Promise<CallOutcome> {
  const { env, session } = turn;
  const info = { callId: call.toolCallId, toolName: verdict.tool.name, params: verdict.input as Record<string, unknown>, sessionId: session.id, userId: env.user.id, mode: turn.mode };
  const before = await turn.hooks.runBefore(info);
  if (before.blocked) return deny(turn, call, denial("POLICY_DENIED", verdict.tool.name, turn.mode, `blocked before running: ${before.reason}`, "Continue without this call."), { layer: "hook", reason: before.reason }, how);
  let params: unknown = before.params;
  if (before.params !== info.params) {
    const reparsed = verdict.tool.inputSchema.safeParse(before.params);
    if (!reparsed.success) return deny(turn, call, denial("INVALID_ARGUMENTS", verdict.tool.name, turn.mode, "a hook rewrote the arguments into an invalid shape", "Continue without this call."), { layer: "hook" }, how);
    params = reparsed.data;
  }
  env.emit({ type: "tool-input-available", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, dynamic: true });
  await appendAudit({ action: "tool.call", actorId: env.user.id, sessionId: session.id, toolName: verdict.tool.name, callId: call.toolCallId, decision: "allow", layer: verdict.decision.layer, rule: verdict.decision.rule ?? null, details: { ...auditContext(turn), reason: note ?? verdict.reason } });
  const started = Date.now();
  let status: ToolStatus;
  let output: unknown;
  try {
    output = await verdict.tool.execute(params, { callId: call.toolCallId, abortSignal: env.abortSignal, context: turn.toolContext });
    status = env.abortSignal?.aborted ? "aborted" : "ok";
    env.emit({ type: "tool-output-available", toolCallId: call.toolCallId, output, dynamic: true });
    turn.hooks.runAfter({ ...info, params: params as Record<string, unknown>, ok: true, result: output, durationMs: Date.now() - started });
  } catch (error) {
    status = env.abortSignal?.aborted ? "aborted" : "error";
    output = { ok: false, error_code: isAppError(error) ? error.code : "TOOL_FAILED", tool_name: verdict.tool.name, message: error instanceof Error ? error.message : String(error) };
    env.emit({ type: "tool-output-error", toolCallId: call.toolCallId, errorText: JSON.stringify(output), dynamic: true });
    turn.hooks.runAfter({ ...info, params: params as Record<string, unknown>, ok: false, error: String(error), durationMs: Date.now() - started });
  }
  await persistResult(turn, call, status, output, how, verdict.tool.name);
  return { status, output };
}

export type SettledApproval = { id: string; status: string; decision: string | null; argsHash: string; resolveReason: string | null };

/**
 * A call that waited for an approval, once the approval is settled. The gate runs again with the policy in
 * force now (it may have changed); the decision must match this exact call (id and argument hash), and
 * allow-once is consumed by exactly this execution.
 */
export async function settleCall(turn: Turn, call: StoredToolCall, approval: SettledApproval): Promise<CallOutcome> {
  const verdict = gate(turn, call);
  if (verdict.verdict === "deny") return deny(turn, call, verdict.denial, { layer: verdict.layer, rule: "rule" in verdict ? verdict.rule : undefined, reason: verdict.reason }, "update");
  if (verdict.verdict === "run") return executeCall(turn, call, verdict, "update", "no approval needed any more");
  const name = verdict.tool.name;
  if (approval.argsHash !== hashArguments(name, verdict.input)) {
    return deny(turn, call, denial("APPROVAL_DENIED", name, turn.mode, "the arguments differ from the ones that were approved", "Ask again; changed arguments need a new approval."), { layer: "approval", reason: "argument hash mismatch" }, "update");
  }
  if (approval.status === "approved") {
    if (!(await consumeApproval({ id: approval.id }))) {
      return deny(turn, call, denial("APPROVAL_DENIED", name, turn.mode, "this approval was already used", "Ask again for a new approval."), { layer: "approval", reason: "approval replay refused" }, "update");
    }
    return executeCall(turn, call, verdict, "update", `approved (${approval.decision})`);
  }
  if (approval.status === "denied") {
    const why = approval.resolveReason ? `: ${approval.resolveReason}` : "";
    return deny(turn, call, denial("APPROVAL_DENIED", name, turn.mode, `an owner denied this call${why}`, "Continue without it, or ask the owner what would be acceptable."), { layer: "approval", rule: "deny", reason: approval.resolveReason ?? "denied by owner" }, "update");
  }
  // Expired: askFallback decides, and never allows more than it says.
  const exec = turn.policy!.exec;
  let analysisOk = true;
  let allowlistSatisfied = false;
  if (name === "exec") {
    const analysis = analyzeShellCommand(String((verdict.input as { command?: unknown }).command ?? ""));
    analysisOk = analysis.ok;
    allowlistSatisfied = evaluateExecAllowlist({ analysis, allowlist: [...exec.allowlist, ...turn.durable.execPatterns], safeBins: exec.safeBins }).satisfied;
  }
  if (resolveAskFallback(exec.askFallback, { analysisOk, allowlistSatisfied }) === "allow") {
    return executeCall(turn, call, verdict, "update", `approval expired; askFallback ${exec.askFallback} allows it`);
  }
  return deny(turn, call, denial("APPROVAL_EXPIRED", name, turn.mode, "no owner decided in time, and the fallback does not allow this call", "Ask again later when an owner can approve it."), { layer: "approval", rule: `askFallback: ${exec.askFallback}`, reason: "approval expired" }, "update");
}

export async function recordUnfinished(turn: Turn, calls: StoredToolCall[]) {
  for (const call of calls) await persistResult(turn, call, "aborted", { ok: false, error: "stopped before this call ran" }, "append");
}
