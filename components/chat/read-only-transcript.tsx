"use client";
import type { UIMessage } from "ai";
import { AskUserCard, isAskUserOutput } from "./ask-user-card";
import { Markdown } from "./markdown";
import { ModeBadge } from "./mode-badge";
import {
  ApprovalDecidedNote,
  DenialCard,
  PendingApprovalCard,
  StoppedCard,
  ToolCallCard,
  type ApprovalDecidedData,
  type ApprovalPendingData,
  type ToolDeniedData,
  type ToolStoppedData,
} from "./tool-cards";

/** The parts of one message as cards; with onStop, running and waiting calls get a Stop button. */
export function MessageParts({
  message,
  onStop,
  stoppedBy = "you",
  sessionId,
  onAnswer,
}: {
  message: UIMessage;
  onStop?: () => void;
  stoppedBy?: string;
  sessionId?: string;
  onAnswer?: (callId: string, choice: string) => void;
}) {
  return (
    <>
      {message.parts.map((part, i) => {
        if (part.type === "text")
          // Only the model's text is Markdown; what a person typed is shown exactly as typed.
          return message.role === "assistant" ? (
            <Markdown key={i} text={part.text} />
          ) : (
            <p key={i} className="whitespace-pre-wrap [overflow-wrap:anywhere]">
              {part.text}
            </p>
          );
        if (
          part.type === "dynamic-tool" &&
          part.toolName === "ask_user" &&
          part.state === "output-available" &&
          isAskUserOutput(part.output)
        )
          return (
            <AskUserCard
              key={i}
              output={part.output}
              onAnswer={onAnswer ? (choice) => onAnswer(part.toolCallId, choice) : undefined}
            />
          );
        if (part.type === "dynamic-tool")
          return (
            <ToolCallCard
              key={i}
              toolName={part.toolName}
              callId={part.toolCallId}
              state={part.state}
              input={part.input}
              output={part.state === "output-available" ? part.output : undefined}
              errorText={part.state === "output-error" ? part.errorText : undefined}
              onStop={onStop}
              sessionId={sessionId}
            />
          );
        if (part.type === "data-tool_denied")
          return <DenialCard key={i} denial={(part as { data: ToolDeniedData }).data} />;
        if (part.type === "data-tool_stopped")
          return <StoppedCard key={i} stopped={(part as { data: ToolStoppedData }).data} by={stoppedBy} />;
        if (part.type === "data-approval_decided")
          return <ApprovalDecidedNote key={i} decided={(part as { data: ApprovalDecidedData }).data} />;
        if (part.type === "data-approval_pending")
          return <PendingApprovalCard key={i} pending={(part as { data: ApprovalPendingData }).data} onStop={onStop} />;
        return null;
      })}
    </>
  );
}

/** A server notice (stopped, interrupted) or a mode switch's marker line, between the messages. */
export function RunNotice({ message }: { message: UIMessage }) {
  const text = message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  const mode =
    (message.metadata as { kind?: string; to?: string } | undefined)?.kind === "mode_changed"
      ? (message.metadata as { to?: string }).to
      : undefined;
  if (mode) {
    return (
      <li
        data-testid="mode-marker"
        data-mode={mode}
        className="flex items-center gap-3 text-xs text-slate-600 dark:text-slate-400"
      >
        <span aria-hidden className="h-px flex-1 bg-slate-300 dark:bg-slate-700" />
        <span className="flex items-center gap-1.5">
          {text} <ModeBadge mode={mode} compact />
        </span>
        <span aria-hidden className="h-px flex-1 bg-slate-300 dark:bg-slate-700" />
      </li>
    );
  }
  return (
    <li
      role="status"
      data-testid="run-notice"
      className="mx-auto max-w-[90%] rounded-md border border-slate-300 bg-slate-100 px-3 py-2 text-center text-sm dark:border-slate-700 dark:bg-slate-900"
    >
      {text}
    </li>
  );
}

/** A transcript without a composer or Stop: what an owner reads to judge a request in context. */
export function ReadOnlyTranscript({ messages }: { messages: UIMessage[] }) {
  return (
    <ol aria-label="Transcript (read-only)" data-testid="review-transcript" className="space-y-4 px-4 py-4">
      {messages.map((m) =>
        m.role === "system" ? (
          <RunNotice key={m.id} message={m} />
        ) : (
          <li key={m.id} className={m.role === "user" ? "flex justify-end" : ""}>
            <div
              className={m.role === "user" ? "max-w-[80%] rounded-2xl bg-sky-700 px-4 py-2 text-white" : "max-w-[90%]"}
            >
              <MessageParts message={m} stoppedBy="the requester" />
            </div>
          </li>
        ),
      )}
    </ol>
  );
}
