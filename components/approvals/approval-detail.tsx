"use client";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { visibleText } from "@/lib/exec/visible-text";
import { ApprovalArgs } from "./approval-args";
import { personLabel } from "./approval-row";
import { ExpiryCountdown } from "./expiry-countdown";
import { RiskBadges } from "./risk-badges";
import { useApprovalDetail, useDecide, type Approval, type Scope } from "./use-approvals";

const STATUS_LABEL: Record<Approval["status"], string> = {
  pending: "pending",
  approved: "approved",
  denied: "denied",
  expired: "expired",
};
const SCOPE_LABEL: Record<Scope, string> = {
  user: "only the requester",
  team: "the requester's team",
  agent: "this agent",
  everyone: "everyone",
};

/** What allow-always would store, exactly as the server will store it (never guessed here). */
function allowAlwaysRules(a: Approval): { rules: string[]; refused: string[]; scopes: Scope[] | null } {
  if (a.allowAlways)
    return { rules: a.allowAlways.rules, refused: a.allowAlways.refused, scopes: a.allowAlways.scopes };
  return { rules: [], refused: ["what would be stored is not known yet"], scopes: null };
}

function AllowAlwaysConfirm({
  approval,
  onConfirm,
  onCancel,
  busy,
}: {
  approval: Approval;
  onConfirm: (scope?: Scope) => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const { rules, refused, scopes } = allowAlwaysRules(approval);
  const [scope, setScope] = useState<Scope>(scopes?.[0] ?? "user");
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="allow-always-title"
      data-testid="allow-always-confirm"
      onKeyDown={(e) => {
        if (e.key === "Escape") onCancel();
        e.stopPropagation(); // no shortcut acts while this question is open
      }}
      className="space-y-2 rounded-md border-2 border-amber-500 bg-amber-50 p-3 text-sm text-amber-950 max-md:sticky max-md:bottom-0 max-md:z-10 dark:bg-amber-950 dark:text-amber-100"
    >
      <h3 id="allow-always-title" className="font-semibold">
        Allow always? This stores a rule; matching calls will run without asking anyone.
      </h3>
      {rules.length ? (
        <ul data-testid="allow-always-rules" className="list-disc pl-5 font-mono text-xs">
          {rules.map((r) => (
            <li key={r}>{visibleText(r)}</li>
          ))}
        </ul>
      ) : (
        <p>Nothing can be stored for this request; it will be allowed this once only.</p>
      )}
      {refused.length ? <p>Not stored: {refused.join("; ")}</p> : null}
      {scopes?.length ? (
        <fieldset>
          <legend className="font-medium">Applies to</legend>
          {scopes.map((s) => (
            <label key={s} className="mr-3 inline-flex items-center gap-1">
              <input
                type="radio"
                name="allow-always-scope"
                value={s}
                checked={scope === s}
                onChange={() => setScope(s)}
              />{" "}
              {SCOPE_LABEL[s]}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="flex gap-2">
        <button
          type="button"
          disabled={busy}
          onClick={() => onConfirm(scopes?.length ? scope : undefined)}
          className="rounded-md bg-amber-700 px-3 py-2 font-medium text-white"
        >
          Confirm allow always
        </button>
        <button ref={cancel} type="button" onClick={onCancel} className="rounded-md border border-slate-400 px-3 py-2">
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * The requester's own words, kept apart from Toolgate's: quoted, attributed, in a plain box of its own, invisible
 * characters shown as code points, never rendered as markup, so it cannot pass for the system's reason or cues.
 */
function RequesterNote({ note, who }: { note: string; who: string }) {
  return (
    <figure
      data-testid="requester-note"
      className="rounded border border-dashed border-slate-400 bg-white p-2 text-sm dark:border-slate-600 dark:bg-slate-950"
    >
      <figcaption className="text-xs text-slate-600 dark:text-slate-400">
        Written by {who}, not checked by Toolgate:
      </figcaption>
      <blockquote className="mt-1 whitespace-pre-wrap font-mono text-xs [overflow-wrap:anywhere]">
        “{visibleText(note)}”
      </blockquote>
    </figure>
  );
}

export function ApprovalDetail({ approval }: { approval: Approval }) {
  const decide = useDecide();
  const detail = useApprovalDetail(approval.id);
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  // A request's status only moves on from pending, so a copy that says pending while the other has moved on is the
  // older one: the detail's first read, still under way when the decision committed, answers "pending" late (and a
  // refresh asked meanwhile joins that read instead of starting a new one). The list's copy wins until the detail
  // is read again.
  const stale = detail.data?.status === "pending" && approval.status !== "pending";
  const shown = stale ? { ...detail.data, ...approval } : { ...approval, ...(detail.data ?? {}) };
  const pending = shown.status === "pending";
  const withdrawn = shown.outcome === "withdrawn by the requester";
  const { refetch } = detail;
  useEffect(() => {
    if (stale) void refetch();
  }, [stale, refetch]);
  const send = (decision: "allow-once" | "allow-always" | "deny", scope?: Scope) =>
    decide.mutate({ id: shown.id, decision, reason, scope });

  useEffect(() => {
    if (!pending || confirming) return;
    // Shortcuts act on this request only — the one open and visible here; the pane never switches by itself
    // and never advances after a decision. "a" only opens the allow-always question, it never decides.
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (["TEXTAREA", "INPUT", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey || e.repeat || decide.isPending || document.visibilityState !== "visible")
        return;
      if (e.key === "o") send("allow-once");
      if (e.key === "d") send("deny");
      if (e.key === "a") setConfirming(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <section
      aria-label="Approval detail"
      data-testid="approval-detail"
      data-approval-id={shown.id}
      className="space-y-3"
    >
      <h2 className="text-lg font-semibold">
        <span className="font-mono">{shown.toolName}</span> requested by {personLabel(shown.requester)}
        {shown.client ? <> through the MCP client {shown.client}</> : null}
      </h2>
      <RiskBadges risks={shown.risks} withDetail />
      <dl className="grid grid-cols-[8rem_1fr] gap-x-3 gap-y-1 text-sm max-sm:grid-cols-[6rem_1fr]">
        <dt className="text-slate-600 dark:text-slate-400">Chat</dt>
        <dd className="[overflow-wrap:anywhere]">
          <span data-testid="approval-chat">
            {shown.sessionTitle ? `“${visibleText(shown.sessionTitle)}”` : "a chat"}
          </span>{" "}
          <Link
            href={`/approvals/sessions/${shown.sessionId}`}
            className="ml-1 text-sky-700 underline dark:text-sky-300"
          >
            open the conversation (read-only)
          </Link>
        </dd>
        <dt className="text-slate-600 dark:text-slate-400">Why approval</dt>
        <dd data-testid="approval-reason">{shown.reason}</dd>
        {shown.requesterNote ? (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Requester&apos;s note</dt>
            <dd>
              <RequesterNote note={shown.requesterNote} who={shown.requester.email ?? shown.requester.id} />
            </dd>
          </>
        ) : null}
        <dt className="text-slate-600 dark:text-slate-400">Status</dt>
        <dd data-testid="approval-status">
          {withdrawn ? (
            "withdrawn by the requester (they stopped the run)"
          ) : (
            <>
              {STATUS_LABEL[shown.status]}
              {shown.decision ? ` (${shown.decision})` : ""}
              {shown.resolvedBy ? ` by ${personLabel(shown.resolvedBy)}` : ""}
              {shown.resolveReason ? ` — ${shown.resolveReason}` : ""}
            </>
          )}
        </dd>
        {shown.routing ? (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Routing</dt>
            <dd data-testid="approval-routing">
              rule “{shown.routing.rule}”
              {shown.routing.quorum.needed > 1
                ? ` — needs ${shown.routing.quorum.needed} different owners (${shown.routing.quorum.given} of ${shown.routing.quorum.needed} allowed)`
                : ""}
              {shown.routing.escalated ? " — escalated" : ""}
            </dd>
          </>
        ) : null}
        <dt className="text-slate-600 dark:text-slate-400">Requested</dt>
        <dd>{new Date(shown.createdAt).toLocaleString()}</dd>
        {pending ? (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Expires</dt>
            <dd>
              {new Date(shown.expiresAt).toLocaleString()} (<ExpiryCountdown expiresAt={shown.expiresAt} />)
            </dd>
          </>
        ) : shown.resolvedAt ? (
          <>
            <dt className="text-slate-600 dark:text-slate-400">
              {withdrawn ? "Withdrawn" : shown.status === "expired" ? "Expired" : "Decided"}
            </dt>
            <dd>{new Date(shown.resolvedAt).toLocaleString()}</dd>
          </>
        ) : null}
      </dl>
      {detail.data?.context?.length ? (
        <div>
          <div className="text-xs font-semibold uppercase text-slate-600 dark:text-slate-400">
            Conversation before this request
          </div>
          <ol
            data-testid="approval-context"
            className="mt-1 space-y-1 rounded bg-slate-50 p-2 text-sm dark:bg-slate-900"
          >
            {detail.data.context.map((m, i) => (
              <li key={i} className="whitespace-pre-wrap [overflow-wrap:anywhere]">
                <span className="font-semibold">{m.role === "user" ? "Requester" : "Agent"}: </span>
                {m.content}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {shown.command !== null ? (
        <div>
          <div className="text-xs font-semibold uppercase text-slate-600 dark:text-slate-400">Command</div>
          {/* Wrapped, never scrolled sideways: every character of the command is in view when deciding. */}
          <pre
            data-testid="approval-command"
            className="whitespace-pre-wrap break-all rounded bg-slate-900 p-3 font-mono text-sm text-slate-100"
          >
            {visibleText(shown.command)}
          </pre>
          <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Analysis:{" "}
            {!shown.analysis
              ? "not analysed"
              : shown.analysis.ok
                ? `ok — executables: ${(shown.analysis.segments ?? []).map((s) => s.executable).join(", ")}`
                : `not analysable: ${shown.analysis.reason ?? "unknown reason"}`}
          </div>
        </div>
      ) : null}
      <ApprovalArgs args={shown.args} />
      {pending ? (
        <div className="space-y-2">
          <label className="block text-sm">
            <span className="font-medium">Reason (optional, shown to the requester on deny)</span>
            <textarea
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              rows={2}
              className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
            />
          </label>
          {confirming ? (
            <AllowAlwaysConfirm
              approval={shown}
              busy={decide.isPending}
              onCancel={() => setConfirming(false)}
              onConfirm={(scope) => {
                setConfirming(false);
                send("allow-always", scope);
              }}
            />
          ) : (
            // On a phone the bar sticks to the bottom of the screen while this request is in view.
            <div
              data-testid="decision-bar"
              className="flex flex-wrap gap-2 max-md:sticky max-md:bottom-0 max-md:z-10 max-md:-mx-4 max-md:border-t max-md:border-slate-200 max-md:bg-white max-md:px-4 max-md:py-2 max-md:dark:border-slate-800 max-md:dark:bg-slate-950"
            >
              <button
                type="button"
                disabled={decide.isPending}
                onClick={() => send("allow-once")}
                className="rounded-md bg-emerald-700 px-3 py-2 text-sm font-medium text-white"
              >
                Allow once <kbd className="ml-1 text-xs">o</kbd>
              </button>
              <button
                type="button"
                disabled={decide.isPending}
                onClick={() => setConfirming(true)}
                className="rounded-md border border-emerald-700 px-3 py-2 text-sm font-medium text-emerald-800 dark:text-emerald-300"
              >
                Allow always… <kbd className="ml-1 text-xs">a</kbd>
              </button>
              <button
                type="button"
                disabled={decide.isPending}
                onClick={() => send("deny")}
                className="rounded-md bg-red-700 px-3 py-2 text-sm font-medium text-white"
              >
                Deny <kbd className="ml-1 text-xs">d</kbd>
              </button>
            </div>
          )}
          {decide.error ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {decide.error.message}
            </p>
          ) : null}
        </div>
      ) : null}
      {decide.data?.refused.length ? (
        <p className="text-sm text-amber-800 dark:text-amber-300">
          Not added to the allowlist: {decide.data.refused.join("; ")}
        </p>
      ) : null}
    </section>
  );
}
