import "server-only";
// One tool call through the execution gate: deny (structured result + tool_denied part + transcript line +
// audit), ask (register an approval, show it pending, pause), or run (hooks, execute with the abort signal,
// persist, audit). Resumed calls come back through settleCall with the approval's outcome.
//
// At most once: a call's first outcome inserts its row (session, call id) in the database — the unique key
// refuses a repeated id — and executing means winning that insert, or after an approval the conditional move of
// the row to `running`, in the same transaction as the "allow" audit row (and the allow-once consumption). Each outcome is one transaction
// (lib/runs/recorder.ts).
import os from "node:os";
import { resolveAskFallback } from "@/lib/policy";
import { decideExecCall } from "@/lib/exec/decide";
import { compileRedactions, redactForAudit } from "@/lib/exec/redact";
import { analyzeShellCommand } from "@/lib/exec/shell-parser";
import { recordGrantUse } from "@/lib/db/allowlist";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { AuditEntry } from "@/lib/db/audit";
import { findApproval, markDenialApplied } from "@/lib/db/approvals";
import { findRepeatedCall, recordCallProcess, type CallStatus } from "@/lib/db/tool-calls";
import { hashArguments } from "@/lib/approvals/rules";
import { deferredOutput } from "./deferred";
import { checkToolCall, denial, type DenialResult, type GateVerdict } from "./gate";
import { INSTANCE_ID } from "./lease";
import { recordOutcome, type MessageWrite } from "./recorder";
import { toolDeniedData, toolParts, type StoredToolCall, type ToolStatus } from "./transcript";
import type { Turn } from "./turn-setup";
import { publicErrorMessage } from "@/lib/public-error";
import { observeStage } from "@/lib/ops/metrics";
import { currentTraceId, inSpan, observeGate, policyVersionOf, recordApprovalWait } from "@/lib/ops/tracing";
import { listHostRunnableFiles } from "@/lib/exec/host-code";

export const MAX_CALLS_PER_STEP = 10;

export type CallOutcome = { status: ToolStatus; output: unknown };
/** How the transcript line is written: appended now, or settling the pending line written when it asked. */
type Persist = "append" | "update";
/** The call states an outcome may move the call from (its idempotency row). */
type From = CallStatus[];

/** The context a decision was made in, so the admin replay can decide recorded calls again as they were. */
function auditContext(turn: Turn) {
  return {
    mode: turn.mode,
    provider: turn.env.model.info.provider,
    model: turn.env.model.info.model ?? null,
    agentId: turn.session.agentId ?? null,
    ...(turn.modelNote ? { modelNote: turn.modelNote } : {}),
    teamIds: turn.env.user.teamIds,
    sandboxed: turn.policy?.sandboxed ?? null,
    subagentDepth: turn.session.depth,
    traceId: currentTraceId(),
  };
}

/** The call's arguments as the audit row keeps them (the exec settings' redaction patterns applied). */
function auditArgs(turn: Turn, input: unknown) {
  return redactForAudit(input, compileRedactions(turn.policy?.exec.redact ?? []));
}

function grantIdsOf(verdict: GateVerdict): string[] {
  return verdict.verdict === "run" ? (verdict.grantIds ?? []) : [];
}

/** Where an exec call runs, for its audit row: the sandbox, or the host by an admin's exec.host setting. */
function executionOf(turn: Turn, toolName: string): string | undefined {
  if (toolName !== "exec") return undefined;
  return turn.toolContext.execHost ? `host (${turn.toolContext.execHost.reason})` : "sandbox";
}

function line(
  turn: Turn,
  call: StoredToolCall,
  status: ToolStatus,
  output: unknown,
  how: Persist,
  toolName = call.toolName,
): MessageWrite {
  const content = JSON.stringify(output ?? null);
  if (how === "update") return { settle: { toolCallId: call.toolCallId, content, parts: toolParts(status, output) } };
  return {
    append: {
      role: "tool",
      content,
      parts: toolParts(status, output),
      toolCallId: call.toolCallId,
      toolName,
      runId: turn.runId,
    },
  };
}

async function deny(
  turn: Turn,
  call: StoredToolCall,
  d: DenialResult,
  audit: { layer: string; rule?: string; reason?: string },
  how: Persist,
  from: From | null,
  to: CallStatus = "denied",
): Promise<CallOutcome> {
  turn.env.emit({ type: "data-tool_denied", id: call.toolCallId, data: toolDeniedData(call.toolCallId, d) });
  const entry: AuditEntry = {
    action: "tool.call",
    actorId: turn.env.user.id,
    sessionId: turn.session.id,
    toolName: call.toolName,
    callId: call.toolCallId,
    decision: "deny",
    layer: audit.layer,
    rule: audit.rule ?? null,
    details: {
      ...auditContext(turn),
      args: auditArgs(turn, call.input),
      errorCode: d.error_code,
      reason: audit.reason ?? d.message,
    },
  };
  const recorded = await recordOutcome({
    sessionId: turn.session.id,
    runId: turn.runId,
    call: from
      ? { callId: call.toolCallId, toolName: call.toolName, argsHash: argsHashOf(call), from, to, required: false }
      : undefined,
    message: line(turn, call, "denied", d, how),
    audit: [entry],
  });
  if (!recorded.ok && isFresh(from)) return refuseReusedId(turn, call);
  return { status: "denied", output: d };
}

const argsHashOf = (call: StoredToolCall) => hashArguments(call.toolName, call.input ?? null);
const isFresh = (from: From | null) => from?.length === 1 && from[0] === "new";

/** The same call id again (a replayed or hostile model): the first one was the call; this one never runs. */
function refuseReusedId(turn: Turn, call: StoredToolCall): Promise<CallOutcome> {
  const d = denial(
    "POLICY_DENIED",
    call.toolName,
    turn.mode,
    `call id ${call.toolCallId} was already used in this session; a call runs at most once`,
    "Make a new call with a new id.",
  );
  return deny(turn, call, d, { layer: "idempotency", reason: "call id reused" }, "append", null);
}

function gate(
  turn: Turn,
  call: StoredToolCall,
): GateVerdict | { verdict: "deny"; denial: DenialResult; layer: string; reason: string } {
  if (!turn.policy) {
    return {
      verdict: "deny",
      denial: denial(
        "POLICY_DENIED",
        call.toolName,
        turn.mode,
        `the tool policy could not be read (${turn.policyError}); no tool runs`,
        "Try again later or ask an admin to check the policy.",
      ),
      layer: "policy",
      reason: "policy unavailable",
    };
  }
  const policy = turn.policy;
  return observeGate(call.toolName, policyVersionOf(policy), () =>
    checkToolCall({
      policy,
      registry: turn.registry,
      toolName: call.toolName,
      input: call.input,
      grantedModes: turn.grantedModes,
      durable: turn.durable,
      execHost: turn.toolContext.execHost?.reason ?? null,
    }),
  );
}

export async function handleCall(turn: Turn, call: StoredToolCall, index: number): Promise<CallOutcome> {
  // No tool-input-available here: a call that is denied or waits for approval must not show as a running tool
  // card in the live stream (it would spin forever); executeCall announces the call once it really runs, so
  // the live parts match what the transcript shows after a reload (toUIMessages).
  // Every outcome below is "from new": its transaction claims the call id (lib/runs/recorder.ts), so a repeated
  // id loses there and is refused instead.
  if (index >= MAX_CALLS_PER_STEP) {
    const d = denial(
      "LIMIT_EXCEEDED",
      call.toolName,
      turn.mode,
      `at most ${MAX_CALLS_PER_STEP} tool calls run per step; this was call ${index + 1}`,
      "Make fewer tool calls at once and try again.",
    );
    return deny(turn, call, d, { layer: "limits", rule: `max ${MAX_CALLS_PER_STEP} calls per step` }, "append", [
      "new",
    ]);
  }
  const verdict = gate(turn, call);
  if (verdict.verdict === "deny")
    return deny(
      turn,
      call,
      verdict.denial,
      { layer: verdict.layer, rule: "rule" in verdict ? verdict.rule : undefined, reason: verdict.reason },
      "append",
      ["new"],
    );
  if (verdict.verdict === "ask") {
    // The same call made again after its turn ended pending: the earlier request's decision applies to it.
    const earlier = await findRepeatedCall({
      sessionId: turn.session.id,
      toolName: verdict.tool.name,
      argsHash: argsHashOf(call),
      turnEnded: true,
      denied: true,
    });
    return earlier ? settleRepeat(turn, call, verdict, earlier) : askForApproval(turn, call, verdict);
  }
  return executeCall(turn, call, verdict, { how: "append", from: ["new"] });
}

async function askForApproval(
  turn: Turn,
  call: StoredToolCall,
  verdict: Extract<GateVerdict, { verdict: "ask" }>,
): Promise<CallOutcome> {
  const isExec = verdict.tool.name === "exec";
  const command = isExec ? String((verdict.input as { command?: unknown }).command ?? "") : null;
  // On the host the member's workspace files may run as code: the card names them (lib/exec/host-code.ts).
  const onHost = isExec && turn.toolContext.execHost ? await listHostRunnableFiles(turn.toolContext.workspaceDir) : [];
  if (onHost.length > 0)
    verdict = {
      ...verdict,
      reason: `${verdict.reason}; on the host these workspace files can run as code: ${onHost.join(", ")}`,
    };
  // The request, the pending line, the call's state, its audit row and the inbox event commit together, before
  // anyone hears of it: the inbox and the chat only learn of a stored request.
  const recorded = await recordOutcome({
    sessionId: turn.session.id,
    runId: turn.runId,
    approval: {
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
    },
    call: {
      callId: call.toolCallId,
      toolName: verdict.tool.name,
      argsHash: argsHashOf(call),
      from: ["new"],
      to: "pending",
    },
    message: (a) => line(turn, call, "pending", pendingOutput(verdict, a), "append", verdict.tool.name),
  });
  if (!recorded.ok && recorded.lost === "call") return refuseReusedId(turn, call);
  if (!recorded.ok || !recorded.approval)
    throw new Error(`the approval request for call ${call.toolCallId} could not be recorded`);
  const approval = recorded.approval;
  const pending = pendingOutput(verdict, approval);
  turn.env.emit({
    type: "data-approval_pending",
    id: call.toolCallId,
    data: {
      approvalId: approval.id,
      callId: call.toolCallId,
      toolName: verdict.tool.name,
      input: verdict.input,
      reason: verdict.reason,
      expiresAt: approval.expiresAt.toISOString(),
      status: "pending",
    },
  });
  return { status: "pending", output: pending };
}

function pendingOutput(
  verdict: Extract<GateVerdict, { verdict: "ask" }>,
  approval: { id: string; expiresAt: Date } | undefined,
) {
  return {
    ok: false,
    pending: true,
    approvalId: approval?.id,
    tool_name: verdict.tool.name,
    reason: verdict.reason,
    expiresAt: approval?.expiresAt.toISOString(),
  };
}

async function executeCall(
  turn: Turn,
  call: StoredToolCall,
  verdict: Extract<GateVerdict, { verdict: "run" | "ask" }>,
  { how, from, consume, note }: { how: Persist; from: From; consume?: string; note?: string },
): Promise<CallOutcome> {
  const { env, session } = turn;
  const info = {
    callId: call.toolCallId,
    toolName: verdict.tool.name,
    params: verdict.input as Record<string, unknown>,
    sessionId: session.id,
    userId: env.user.id,
    mode: turn.mode,
  };
  const before = await turn.hooks.runBefore(info);
  if (before.blocked)
    return deny(
      turn,
      call,
      denial(
        "POLICY_DENIED",
        verdict.tool.name,
        turn.mode,
        `blocked before running: ${before.reason}`,
        "Continue without this call.",
      ),
      { layer: "hook", reason: before.reason },
      how,
      from,
    );
  let params: unknown = before.params;
  if (before.params !== info.params) {
    const reparsed = verdict.tool.inputSchema.safeParse(before.params);
    if (!reparsed.success)
      return deny(
        turn,
        call,
        denial(
          "INVALID_ARGUMENTS",
          verdict.tool.name,
          turn.mode,
          "a hook rewrote the arguments into an invalid shape",
          "Continue without this call.",
        ),
        { layer: "hook" },
        how,
        from,
      );
    params = reparsed.data;
  }
  // The claim: this call moves to running (and an allow-once approval is consumed) together with the allow
  // audit row, or nothing happens. Whoever loses the claim (a replay, a second resume) runs nothing.
  const claimed = await recordOutcome({
    sessionId: session.id,
    runId: turn.runId,
    call: {
      callId: call.toolCallId,
      toolName: verdict.tool.name,
      argsHash: argsHashOf(call),
      from,
      to: "running",
      data: { startedAt: new Date(), host: os.hostname() },
    },
    consume: consume ? { approvalId: consume } : undefined,
    shared: turn.env.sharedRun,
    audit: [
      {
        action: "tool.call",
        actorId: env.user.id,
        sessionId: session.id,
        toolName: verdict.tool.name,
        callId: call.toolCallId,
        decision: "allow",
        layer: verdict.decision.layer,
        rule: verdict.decision.rule ?? null,
        details: {
          ...auditContext(turn),
          args: auditArgs(turn, params),
          grantIds: grantIdsOf(verdict),
          execution: executionOf(turn, verdict.tool.name),
          reason: note ?? verdict.reason,
        },
      },
    ],
  });
  // The run ended (stopped, or failed from another instance) before this call could start: nothing runs. The
  // call still gets its state and its line (whoever ended the run only settles calls that had a row by then).
  if (!claimed.ok && claimed.lost === "run") {
    const output = {
      ok: false,
      error_code: "STOPPED",
      tool_name: verdict.tool.name,
      message: "the turn ended before this call started",
    };
    await recordOutcome({
      sessionId: session.id,
      runId: turn.runId,
      call: { callId: call.toolCallId, toolName: verdict.tool.name, argsHash: argsHashOf(call), from, to: "stopped" },
      message: line(turn, call, "aborted", output, how, verdict.tool.name),
    });
    return { status: "aborted", output };
  }
  if (!claimed.ok && claimed.lost === "call" && isFresh(from)) return refuseReusedId(turn, call);
  if (!claimed.ok) {
    const why =
      claimed.lost === "consume"
        ? "this approval was already used"
        : "this call was already claimed by another execution";
    return deny(
      turn,
      call,
      denial("APPROVAL_DENIED", verdict.tool.name, turn.mode, why, "Ask again for a new approval."),
      { layer: "approval", reason: claimed.lost === "consume" ? "approval replay refused" : "call already claimed" },
      how,
      null,
    );
  }
  await recordGrantUse({ ids: grantIdsOf(verdict) });
  env.emit({
    type: "tool-input-available",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    dynamic: true,
  });
  const started = Date.now();
  // A command no owner approved (covered by rules, grants or safe bins, or let through by the expiry fallback)
  // finds every .git read-only: a granted `git status` cannot run a filter the member wrote into the repository.
  // Sandbox mode in the sandbox needs no such care: the member's own code running there is the normal case.
  const security = turn.policy?.exec.security;
  const inSandboxMode = security === "sandbox" && !turn.toolContext.execHost;
  const protectRepositories =
    verdict.tool.name === "exec" && consume === undefined && security !== "full" && !inSandboxMode;
  const context = {
    ...turn.toolContext,
    ...(protectRepositories ? { protectRepositories } : {}),
    trackProcess: (pid: number) =>
      void recordCallProcess({ sessionId: session.id, callId: call.toolCallId, pid, host: os.hostname() }).catch(
        (error) => log("warn", "call_process_record_failed", { callId: call.toolCallId, error: String(error) }),
      ),
  };
  let status: ToolStatus;
  let output: unknown;
  try {
    const run = {
      "toolgate.tool": verdict.tool.name,
      "toolgate.execution": executionOf(turn, verdict.tool.name) ?? "in-process",
    };
    output = await inSpan("toolgate.tool_run", run, async () =>
      verdict.tool.execute(params, { callId: call.toolCallId, abortSignal: env.abortSignal, context }),
    );
    status = env.abortSignal?.aborted ? "aborted" : "ok";
    env.emit({ type: "tool-output-available", toolCallId: call.toolCallId, output, dynamic: true });
    turn.hooks.runAfter({
      ...info,
      params: params as Record<string, unknown>,
      ok: true,
      result: output,
      durationMs: Date.now() - started,
    });
  } catch (error) {
    status = env.abortSignal?.aborted ? "aborted" : "error";
    output =
      status === "aborted"
        ? { ok: false, error_code: "STOPPED", tool_name: verdict.tool.name, message: "stopped while it ran" }
        : {
            ok: false,
            error_code: isAppError(error) ? error.code : "TOOL_FAILED",
            tool_name: verdict.tool.name,
            message: publicErrorMessage(error, { event: "tool_failed" }).message,
          };
    env.emit({
      type: "tool-output-error",
      toolCallId: call.toolCallId,
      errorText: JSON.stringify(output),
      dynamic: true,
    });
    turn.hooks.runAfter({
      ...info,
      params: params as Record<string, unknown>,
      ok: false,
      error: String(error),
      durationMs: Date.now() - started,
    });
  }
  observeStage("run", (Date.now() - started) / 1000);
  const to: CallStatus = status === "ok" ? "done" : status === "aborted" ? "stopped" : "failed";
  // An outside client's run is this one call: it ends with the result, one transaction instead of two (issue 30).
  const endsRun = env.sharedRun
    ? { to: env.abortSignal?.aborted ? ("aborted" as const) : ("completed" as const), owner: INSTANCE_ID }
    : undefined;
  const done = await recordOutcome({
    sessionId: session.id,
    runId: turn.runId,
    call: {
      callId: call.toolCallId,
      toolName: verdict.tool.name,
      from: ["running"],
      to,
      data: { finishedAt: new Date() },
    },
    message: line(turn, call, status, output, how, verdict.tool.name),
    endsRun,
  });
  // Lost: another instance already failed this run as abandoned and wrote the call's line.
  if (!done.ok) log("warn", "call_result_dropped", { callId: call.toolCallId, runId: turn.runId });
  else if (endsRun) turn.ended = endsRun.to;
  return { status, output };
}

export type SettledApproval = {
  id: string;
  status: string;
  decision: string | null;
  argsHash: string;
  resolveReason: string | null;
};

/**
 * A call that waited for an approval, once the approval is settled. An owner's denial is final. Otherwise the
 * gate runs again with the policy in force now (it may have changed); the decision must match this exact call
 * (id and argument hash), and allow-once is consumed by exactly this execution.
 */
export async function settleCall(turn: Turn, call: StoredToolCall, approval: SettledApproval): Promise<CallOutcome> {
  const open: From = ["pending", "approved", "denied"];
  const name = call.toolName;
  recordApprovalWait(approval);
  if (approval.status === "denied") {
    const why = approval.resolveReason ? `: ${approval.resolveReason}` : "";
    return deny(
      turn,
      call,
      denial(
        "APPROVAL_DENIED",
        name,
        turn.mode,
        `an owner denied this call${why}`,
        "Continue without it, or ask the owner what would be acceptable.",
      ),
      { layer: "approval", rule: "deny", reason: approval.resolveReason ?? "denied by owner" },
      "update",
      open,
    );
  }
  const verdict = gate(turn, call);
  if (verdict.verdict === "deny")
    return deny(
      turn,
      call,
      verdict.denial,
      { layer: verdict.layer, rule: "rule" in verdict ? verdict.rule : undefined, reason: verdict.reason },
      "update",
      open,
    );
  if (approval.argsHash !== hashArguments(verdict.tool.name, verdict.input)) {
    return deny(
      turn,
      call,
      denial(
        "APPROVAL_DENIED",
        verdict.tool.name,
        turn.mode,
        "the arguments differ from the ones that were approved",
        "Ask again; changed arguments need a new approval.",
      ),
      { layer: "approval", reason: "argument hash mismatch" },
      "update",
      open,
    );
  }
  if (approval.status === "approved") {
    return executeCall(turn, call, verdict, {
      how: "update",
      from: ["pending", "approved"],
      consume: approval.id,
      note: `approved (${approval.decision})`,
    });
  }
  // Expired: nothing runs unless askFallback allows this very call (never anything else, and at most once).
  const exec = turn.policy!.exec;
  let analysisOk = true;
  let allowlistSatisfied = false;
  if (verdict.tool.name === "exec") {
    const command = String((verdict.input as { command?: unknown }).command ?? "");
    const { analysis, coverage } = decideExecCall({
      command,
      settings: exec,
      rules: turn.durable.execRules,
      host: turn.toolContext.execHost?.reason ?? null,
    });
    analysisOk = analysis.ok;
    allowlistSatisfied = coverage.satisfied;
  }
  if (
    verdict.verdict === "ask" &&
    resolveAskFallback(exec.askFallback, { security: exec.security, analysisOk, allowlistSatisfied }) === "allow"
  ) {
    return executeCall(turn, call, verdict, {
      how: "update",
      from: ["pending"],
      note: `approval expired; askFallback ${exec.askFallback} allows it`,
    });
  }
  return deny(
    turn,
    call,
    denial(
      "APPROVAL_EXPIRED",
      verdict.tool.name,
      turn.mode,
      "no owner decided in time, and the fallback does not allow this call",
      "Ask again later when an owner can approve it.",
    ),
    {
      layer: "approval",
      rule:
        exec.security === "sandbox"
          ? "exec.security: sandbox (an expired escalation is denied)"
          : `askFallback: ${exec.askFallback}`,
      reason: "approval expired",
    },
    "update",
    open,
    "expired",
  );
}

/** Calls the model made that never ran because the run was stopped first: each gets its line and its state. */
export async function recordUnfinished(turn: Turn, calls: StoredToolCall[]) {
  for (const call of calls) {
    const message = line(turn, call, "aborted", { ok: false, error: "stopped before this call ran" }, "append");
    const recorded = await recordOutcome({
      sessionId: turn.session.id,
      runId: turn.runId,
      call: {
        callId: call.toolCallId,
        toolName: call.toolName,
        argsHash: argsHashOf(call),
        from: ["new"],
        to: "stopped",
      },
      message,
    });
    // A repeated call id keeps its first call's state; this one still gets its line.
    if (!recorded.ok) await recordOutcome({ sessionId: turn.session.id, runId: turn.runId, message });
  }
}

/**
 * A call made again while an earlier call with the same arguments is deferred (its turn ended before an owner
 * decided; lib/runs/deferred.ts), the chat's counterpart of the gateway's "the same call again runs once".
 * Undecided: refused as pending, nothing asked again. Allowed: the earlier call runs, once, under its own claim
 * (whoever wins its conditional move and the allow-once consumption). Denied: refused, once, with the owner's
 * reason (a later repeat asks anew). Expired: as any expired request. The earlier card shows the outcome; this
 * call gets the same result under its own id (its row claimed first, so a reused id is refused before anything).
 */
async function settleRepeat(
  turn: Turn,
  call: StoredToolCall,
  verdict: Extract<GateVerdict, { verdict: "ask" }>,
  earlier: { callId: string; approvalId: string },
): Promise<CallOutcome> {
  const approval = await findApproval({ id: earlier.approvalId });
  if (!approval) return askForApproval(turn, call, verdict);
  const status = approval.status === "pending" && approval.expiresAt <= new Date() ? "expired" : approval.status;
  if (status === "pending") {
    const waiting = deferredOutput({ toolName: verdict.tool.name, approvalId: approval.id });
    const d = denial(
      "APPROVAL_PENDING",
      verdict.tool.name,
      turn.mode,
      `the same call already waits for an owner (approval ${approval.id}); nothing was asked again`,
      waiting.next_action,
    );
    return deny(
      turn,
      call,
      d,
      { layer: "approval", rule: "pending", reason: `same call as deferred approval ${approval.id}` },
      "append",
      ["new"],
    );
  }
  // A denial is applied once: a concurrent repeat that lost this mark asks anew, as any later one does.
  if (status === "denied" && !(await markDenialApplied({ id: approval.id })))
    return askForApproval(turn, call, verdict);
  const claimed = await recordOutcome({
    sessionId: turn.session.id,
    runId: turn.runId,
    call: {
      callId: call.toolCallId,
      toolName: verdict.tool.name,
      argsHash: argsHashOf(call),
      from: ["new"],
      to: "pending",
    },
  });
  if (!claimed.ok) return refuseReusedId(turn, call);
  // The earlier call's outcome, told on this call's live card (the stream knows this call's id, not the earlier one).
  const rename = (id: unknown) => (id === earlier.callId ? call.toolCallId : id);
  const emit: Turn["env"]["emit"] = (chunk) => {
    const c = chunk as { toolCallId?: unknown; id?: unknown; data?: { callId?: unknown } };
    turn.env.emit({
      ...chunk,
      ...(c.toolCallId ? { toolCallId: rename(c.toolCallId) } : {}),
      ...(c.id ? { id: rename(c.id) } : {}),
      ...(c.data?.callId ? { data: { ...c.data, callId: rename(c.data.callId) } } : {}),
    } as typeof chunk);
  };
  const outcome = await settleCall(
    { ...turn, env: { ...turn.env, emit } },
    { ...call, toolCallId: earlier.callId },
    { ...approval, status },
  );
  const code = (outcome.output as { error_code?: unknown } | null)?.error_code;
  const to: CallStatus =
    outcome.status === "ok"
      ? "done"
      : outcome.status === "error"
        ? "failed"
        : outcome.status === "aborted"
          ? "stopped"
          : code === "APPROVAL_EXPIRED"
            ? "expired"
            : "denied";
  await recordOutcome({
    sessionId: turn.session.id,
    runId: turn.runId,
    call: { callId: call.toolCallId, toolName: verdict.tool.name, from: ["pending"], to, required: false },
    message: line(turn, call, outcome.status, outcome.output, "append", verdict.tool.name),
  });
  return outcome;
}
