// Issue 31: the member's chat shows who decided a call that needed an owner, whichever channel the decision came
// from: "Allowed by <name> at <time>" above a result that ran, "Denied by <name>: <reason>" on the denial card.
import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { toUIMessages, type StoredMessage } from "@/lib/runs/transcript";
import { MessageParts } from "@/components/chat/read-only-transcript";

const at = new Date("2026-11-25T22:00:00Z");
const row = (
  seq: number,
  role: string,
  content: string,
  parts: unknown,
  toolCallId: string | null = null,
): StoredMessage => ({
  id: `m${seq}`,
  seq,
  role,
  content,
  parts,
  toolCallId,
  toolName: toolCallId ? "exec" : null,
  createdAt: at,
});

function transcript(status: "ok" | "denied" | "pending", output: unknown) {
  return [
    row(1, "user", "run it", null),
    row(2, "assistant", "", { toolCalls: [{ toolCallId: "c1", toolName: "exec", input: { command: "ls" } }] }),
    row(3, "tool", JSON.stringify(output), { status, output }, "c1"),
    row(4, "assistant", "done", null),
  ];
}

const html = (messages: ReturnType<typeof toUIMessages>) =>
  messages.map((m) => renderToStaticMarkup(createElement(MessageParts, { message: m }))).join("");

describe("decided approval cards", () => {
  it("a call that ran after an owner allowed it: Allowed by <name> at <time>", () => {
    const messages = toUIMessages(
      transcript("ok", { stdout: "a" }),
      new Map([["c1", { status: "done", decidedBy: "owner@example.com", decidedAt: at }]]),
    );
    const part = messages[1]!.parts.find((p) => p.type === "data-approval_decided") as { data: unknown } | undefined;
    expect(part?.data).toEqual({ callId: "c1", decidedBy: "owner@example.com", decidedAt: at.toISOString() });
    expect(html(messages)).toMatch(/Allowed by owner@example\.com at /);
  });

  it("an owner's denial: Denied by <name>: <reason>", () => {
    const denial = {
      ok: false,
      error_code: "APPROVAL_DENIED",
      tool_name: "exec",
      mode: "coding",
      message: "an owner denied this call: not on a Friday",
      next_action: "Continue without it.",
    };
    const messages = toUIMessages(
      transcript("denied", denial),
      new Map([
        ["c1", { status: "denied", decidedBy: "owner@example.com", decidedAt: at, decisionReason: "not on a Friday" }],
      ]),
    );
    expect(html(messages)).toContain("Denied by owner@example.com: not on a Friday");
  });

  it("a call nobody had to approve shows no decision", () => {
    const messages = toUIMessages(
      transcript("ok", { stdout: "a" }),
      new Map([["c1", { status: "done", decidedBy: null, decidedAt: null }]]),
    );
    expect(messages[1]!.parts.some((p) => p.type === "data-approval_decided")).toBe(false);
    const policy = {
      ok: false,
      error_code: "POLICY_DENIED",
      tool_name: "exec",
      mode: "coding",
      message: "no",
      next_action: "x",
    };
    expect(html(toUIMessages(transcript("denied", policy)))).toContain("denied");
    expect(html(toUIMessages(transcript("denied", policy)))).not.toContain("Denied by");
  });

  it("a deferred request (its turn stopped waiting): the card says the chat no longer waits, offers Withdraw, not Stop; allowed, it says to make the call again", () => {
    const deferred = {
      ok: false,
      pending: true,
      deferred: true,
      error_code: "APPROVAL_PENDING",
      tool_name: "exec",
      approvalId: "a1",
      reason: "an ask rule matches (exec)",
    };
    const waiting = html(
      toUIMessages(
        transcript("pending", deferred),
        new Map([["c1", { status: "pending", decidedBy: null, decidedAt: null }]]),
      ),
    );
    expect(waiting).toContain("this chat no longer waits");
    expect(waiting).toContain("Withdraw request");
    expect(waiting).not.toMatch(/>Stop</);
    const allowed = html(
      toUIMessages(
        transcript("pending", deferred),
        new Map([["c1", { status: "approved", decidedBy: "owner@example.com", decidedAt: at }]]),
      ),
    );
    expect(allowed).toMatch(/Allowed by owner@example\.com at .* make the same call again to run it/);
    expect(allowed).not.toContain("Withdraw request");
    // A request its turn still waits on keeps Stop and no Withdraw.
    const live = html(
      toUIMessages(
        transcript("pending", { ...deferred, deferred: undefined }),
        new Map([["c1", { status: "pending", decidedBy: null, decidedAt: null }]]),
      ),
    );
    expect(live).not.toContain("Withdraw request");
  });
});
