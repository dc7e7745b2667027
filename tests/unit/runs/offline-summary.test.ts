// Issue 15: the offline model reports tool results in prose. It never echoes the result's JSON (the card shows it)
// nor a denial card's message and next step, a non-zero exit is a failure, and a missing file is "not found".
import type { LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { planOfflineReply } from "@/lib/runs/offline-model";
import { describeResult } from "@/lib/runs/offline-summary";

function result(toolName: string, value: unknown, type: "json" | "error-json" = "json"): LanguageModelV3ToolResultPart {
  return { type: "tool-result", toolCallId: "c1", toolName, output: { type, value: value as never } };
}

/** The prompt of a turn that called one tool and came back with its result. */
function afterCall(toolName: string, input: unknown, value: unknown): LanguageModelV3Prompt {
  return [
    { role: "user", content: [{ type: "text", text: "do it" }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName, input }] },
    { role: "tool", content: [result(toolName, value)] },
  ];
}

const curl6 = {
  exitCode: 6,
  signal: null,
  stdout: "",
  stderr: "curl: (6) Could not resolve host: nowhere.invalid\n",
  timedOut: false,
  aborted: false,
  truncated: false,
  durationMs: 12,
};

describe("offline model: tool results in prose", () => {
  it("a non-zero exit is a failure, names the status and the command, and shows no JSON", () => {
    const reply = planOfflineReply({ prompt: afterCall("exec", { command: "curl https://nowhere.invalid" }, curl6) });
    expect(reply.calls).toEqual([]);
    expect(reply.text).toContain("exit status 6");
    expect(reply.text).toContain("the command failed");
    expect(reply.text).toContain("`curl https://nowhere.invalid`");
    expect(reply.text).toContain("Could not resolve host");
    expect(reply.text).not.toMatch(/[{}]|"stderr"|exitCode/);
  });

  it("a successful command says so, counts its lines and mentions a cut", () => {
    const text = describeResult(
      result("exec", { ...curl6, exitCode: 0, stdout: "a\nb\nc\n", stderr: "", truncated: true }),
      { command: "ls" },
    );
    expect(text).toContain("exit status 0");
    expect(text).toContain("succeeded with 3 lines of output");
    expect(text).toContain("cut at the size limit");
    expect(text).not.toContain("failed");
  });

  it("a timed-out command is neither done nor a plain exit", () => {
    expect(describeResult(result("exec", { ...curl6, exitCode: null, timedOut: true }))).toContain("ran out of time");
  });

  it("a missing file is 'not found', never 'not allowed'", () => {
    const text = describeResult(
      result(
        "read",
        { ok: false, error_code: "NOT_FOUND", tool_name: "read", message: "file not found: notes.md" },
        "error-json",
      ),
    );
    expect(text).toContain("failed (not found)");
    expect(text).toContain("notes.md");
    expect(text).not.toMatch(/not allowed|NOT_FOUND/);
  });

  it("a denial is described by its meaning and points at the card instead of repeating it", () => {
    const denial = {
      ok: false,
      error_code: "POLICY_DENIED",
      tool_name: "exec",
      mode: "coding",
      message: "exec is denied by the global layer (rule tools.deny)",
      next_action: "Ask an admin to allow exec.",
    };
    const text = describeResult(result("exec", denial));
    expect(text).toContain("blocked by the tool policy");
    expect(text).toContain("The card above");
    expect(text).not.toContain(denial.message);
    expect(text).not.toContain(denial.next_action);
    expect(text).not.toContain("POLICY_DENIED");
  });

  it("a file read and other objects become a sentence, not JSON", () => {
    const read = describeResult(
      result("read", {
        path: "notes.md",
        content: "# Notes\nbuy milk\n",
        bytes: 17,
        totalLines: 2,
        startLine: 1,
        endLine: 2,
      }),
    );
    expect(read).toBe('The tool "read" returned `notes.md`: 2 lines, starting with “# Notes”.');
    const search = describeResult(result("memory_search", { query: "milk", results: [{ id: 1 }, { id: 2 }] }));
    expect(search).toContain("2 items in results");
    expect(search).toContain("query “milk”");
    expect(search).not.toMatch(/[{}[\]]/);
  });
});
