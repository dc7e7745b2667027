"use client";
import { useState } from "react";
import { AlertIcon, BlockIcon, ClockIcon, SpinnerIcon, WrenchIcon } from "@/components/icons";
// Compact cards for tool calls and denials. A denial is its own card with an icon, a heading and the error
// code in text, never colour alone.
import { SubagentTranscript } from "./subagent-transcript";
import { useOpenCard } from "./use-open-cards";
import { pretty, summarizeCall, ToolResult } from "./tool-result";

export type ToolDeniedData = {
  callId: string;
  toolName: string;
  mode: string;
  errorCode: string;
  message: string;
  nextAction: string;
  /** An owner's denial: who, when and why. */
  decidedBy?: string | null;
  decidedAt?: string | null;
  decisionReason?: string | null;
};

export type ApprovalDecidedData = { callId: string; decidedBy: string; decidedAt: string };

/** Above the result of a call that ran after an owner allowed it. */
export function ApprovalDecidedNote({ decided }: { decided: ApprovalDecidedData }) {
  return (
    <p data-testid="approval-decided" className="mt-2 text-xs text-emerald-800 dark:text-emerald-300">
      Allowed by {decided.decidedBy} at {when(decided.decidedAt)}
    </p>
  );
}

/** A sessions_spawn result names the child session whose transcript is nested in the card. */
function childSessionOf(output: unknown): string | null {
  const id = (output as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof id === "string" && id !== "" ? id : null;
}

function StopButton({ onStop }: { onStop?: () => void }) {
  if (!onStop) return null;
  return (
    <button
      type="button"
      onClick={(e) => {
        e.preventDefault();
        onStop();
      }}
      className="ml-auto rounded border border-red-400 px-2 py-0.5 text-xs font-medium text-red-700 dark:text-red-300"
    >
      Stop
    </button>
  );
}

/** One tool call, collapsed to a summary line (name, status, what it worked on, exit status); opened, its arguments and result. */
export function ToolCallCard({
  toolName,
  callId,
  state,
  input,
  output,
  errorText,
  onStop,
  sessionId,
}: {
  toolName: string;
  callId?: string;
  state: string;
  input: unknown;
  output?: unknown;
  errorText?: string;
  onStop?: () => void;
  sessionId?: string;
}) {
  const { status, summary } = summarizeCall({ state, input, output, errorText });
  const { open, onToggle } = useOpenCard(callId);
  const failed = status === "failed";
  const pending = status === "running";
  const command = (input as { command?: unknown } | null)?.command;
  return (
    <details
      data-testid="tool-call"
      open={open}
      onToggle={(e) => onToggle(e.currentTarget.open)}
      data-tool={toolName}
      data-status={status}
      className={`my-2 rounded-lg border text-sm ${failed ? "border-red-300 bg-red-50/50 dark:border-red-900 dark:bg-red-950/40" : "border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900"}`}
    >
      <summary className="flex cursor-pointer items-center gap-2 px-3 py-2">
        {failed ? (
          <AlertIcon className="h-4 w-4 text-red-700 dark:text-red-300" />
        ) : pending ? (
          <SpinnerIcon className="h-4 w-4 animate-spin" />
        ) : (
          <WrenchIcon />
        )}
        <span className="font-mono font-medium">{toolName}</span>
        <span
          data-testid="tool-status"
          className={`shrink-0 text-xs font-medium ${failed ? "text-red-700 dark:text-red-300" : "text-slate-600 dark:text-slate-400"}`}
        >
          {status}
        </span>
        {summary ? (
          <span
            data-testid="tool-summary"
            className="min-w-0 truncate font-mono text-xs text-slate-600 dark:text-slate-400"
          >
            {summary}
          </span>
        ) : null}
        {pending ? <StopButton onStop={onStop} /> : null}
      </summary>
      <div className="space-y-2 border-t border-slate-200 px-3 py-2 dark:border-slate-800">
        <div>
          <div className="text-xs font-semibold text-slate-600 uppercase dark:text-slate-400">
            {typeof command === "string" ? "Command" : "Arguments"}
          </div>
          <pre className="overflow-x-auto font-mono text-xs whitespace-pre-wrap">
            {typeof command === "string" ? command : pretty(input)}
          </pre>
        </div>
        {output !== undefined || errorText ? (
          <ToolResult output={output} errorText={errorText} failed={state === "output-error"} sessionId={sessionId} />
        ) : null}
        {toolName === "sessions_spawn" && childSessionOf(output) ? (
          <SubagentTranscript sessionId={childSessionOf(output)!} />
        ) : null}
      </div>
    </details>
  );
}

export function DenialCard({ denial }: { denial: ToolDeniedData }) {
  return (
    <div
      role="status"
      data-testid="tool-denied"
      data-error-code={denial.errorCode}
      className="my-2 rounded-lg border-2 border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <div className="flex items-center gap-2 font-medium">
        <BlockIcon />
        <span>
          {denial.decidedBy ? (
            <>
              Denied by {denial.decidedBy}
              {denial.decisionReason ? `: ${denial.decisionReason}` : ` at ${when(denial.decidedAt)}`}{" "}
              <span className="font-mono">{denial.toolName}</span>
            </>
          ) : (
            <>
              Tool <span className="font-mono">{denial.toolName}</span> denied
            </>
          )}
        </span>
        <code className="rounded bg-red-100 px-1.5 py-0.5 text-xs dark:bg-red-900">{denial.errorCode}</code>
        <span className="text-xs opacity-80">in {denial.mode} mode</span>
      </div>
      <p className="mt-1">{denial.message}</p>
      <p className="mt-1">
        <span className="font-semibold">Next: </span>
        {denial.nextAction}
      </p>
    </div>
  );
}

export type ApprovalPendingData = {
  approvalId?: string;
  callId: string;
  toolName: string;
  input: unknown;
  reason?: string;
  expiresAt?: string;
  /** The call's state: pending → approved → running, or denied / expired / stopped before it settles. */
  status: string;
  decidedBy?: string | null;
  decidedAt?: string | null;
  decisionReason?: string | null;
  /** Its turn stopped waiting (APPROVAL_TURN_WAIT_SECONDS): the decision applies to the same call made again. */
  deferred?: boolean;
};

function when(iso?: string | null) {
  return iso ? new Date(iso).toLocaleTimeString() : "";
}

/** A call that needed an owner: who must decide, then who did and when, then running (with Stop). */
export function PendingApprovalCard({ pending, onStop }: { pending: ApprovalPendingData; onStop?: () => void }) {
  const command = (pending.input as { command?: string } | null)?.command;
  const by = pending.decidedBy ?? "an owner";
  const deferred = pending.deferred === true;
  const heading =
    pending.status === "approved"
      ? `Allowed by ${by} at ${when(pending.decidedAt)} — ${deferred ? "make the same call again to run it" : "starting"}`
      : pending.status === "running"
        ? `Running — allowed by ${by} at ${when(pending.decidedAt)}`
        : pending.status === "denied"
          ? `Denied by ${by}${pending.decisionReason ? `: ${pending.decisionReason}` : ` at ${when(pending.decidedAt)}`}`
          : pending.status === "expired"
            ? "Expired: no owner decided in time"
            : pending.status === "stopped"
              ? "Stopped by you"
              : deferred
                ? "Waiting for an owner (this chat no longer waits)"
                : "Waiting for an owner to approve";
  const waiting = pending.status === "pending";
  return (
    <div
      role="status"
      data-testid="approval-pending"
      data-call-status={pending.status}
      className="my-2 rounded-lg border-2 border-dashed border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
    >
      <div className="flex items-center gap-2 font-medium">
        {pending.status === "running" ? <SpinnerIcon className="h-4 w-4 animate-spin" /> : <ClockIcon />}
        <span>
          {heading} <span className="font-mono">{pending.toolName}</span>
        </span>
        {pending.status === "running" || (waiting && !deferred) ? <StopButton onStop={onStop} /> : null}
        {waiting && deferred && pending.approvalId ? <WithdrawButton approvalId={pending.approvalId} /> : null}
      </div>
      {command ? <pre className="mt-1 overflow-x-auto whitespace-pre-wrap font-mono text-xs">{command}</pre> : null}
      {pending.reason ? <p className="mt-1">Why: {pending.reason}</p> : null}
      {waiting && deferred ? (
        <p className="mt-1 text-xs opacity-80">
          An owner decides in the Approvals inbox; then ask for the same call again: it runs once, or is refused with
          the owner&apos;s reason{pending.expiresAt ? ` (expires ${when(pending.expiresAt)})` : ""}.
        </p>
      ) : waiting ? (
        <p className="mt-1 text-xs opacity-80">
          An owner decides in the Approvals inbox; this chat continues by itself
          {pending.expiresAt ? ` (expires ${when(pending.expiresAt)})` : ""}.
        </p>
      ) : null}
    </div>
  );
}

/** Takes back a deferred request (POST /api/approvals/:id/withdraw); the chat reloads on the call's event. */
function WithdrawButton({ approvalId }: { approvalId: string }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  async function withdraw() {
    setState({ busy: true, error: null });
    const res = await fetch(`/api/approvals/${encodeURIComponent(approvalId)}/withdraw`, { method: "POST" }).catch(
      () => null,
    );
    const body =
      res && !res.ok ? ((await res.json().catch(() => null)) as { error?: { message?: string } } | null) : null;
    setState({ busy: false, error: res?.ok ? null : (body?.error?.message ?? "the request could not be withdrawn") });
  }
  return (
    <span className="ml-auto flex items-center gap-2">
      {state.error ? (
        <span role="alert" className="text-xs text-red-700 dark:text-red-300">
          {state.error}
        </span>
      ) : null}
      <button
        type="button"
        disabled={state.busy}
        onClick={(e) => {
          e.preventDefault();
          void withdraw();
        }}
        className="rounded border border-amber-600 px-2 py-0.5 text-xs font-medium text-amber-900 disabled:opacity-60 dark:border-amber-500 dark:text-amber-100"
      >
        Withdraw request
      </button>
    </span>
  );
}

export type ToolStoppedData = { callId: string; toolName: string; input: unknown };

export function StoppedCard({ stopped, by = "you" }: { stopped: ToolStoppedData; by?: string }) {
  const command = (stopped.input as { command?: string } | null)?.command;
  return (
    <div
      role="status"
      data-testid="tool-stopped"
      className="my-2 rounded-lg border-2 border-slate-400 bg-slate-100 px-3 py-2 text-sm dark:border-slate-600 dark:bg-slate-900"
    >
      <div className="flex items-center gap-2 font-medium">
        <BlockIcon />
        <span>
          Stopped by {by}: <span className="font-mono">{stopped.toolName}</span>
        </span>
      </div>
      {command ? <pre className="mt-1 overflow-x-auto whitespace-pre-wrap font-mono text-xs">{command}</pre> : null}
    </div>
  );
}
