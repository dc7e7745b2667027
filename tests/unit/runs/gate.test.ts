// The execution gate (checkToolCall) and the denial it hands the model and the browser: rows S1, S2, C1, C2 of
// docs/requirements.md, invalid and raw-string arguments, and exec decisions, over the real registry and policy engine.
import { describe, expect, it } from "vitest";
import { checkToolCall, type GateVerdict } from "@/lib/runs/gate";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { toolDeniedData } from "@/lib/runs/transcript";
import type { PolicyDocument, ToolMode } from "@/lib/policy";
import { documentOf, MEMBER, policyFor } from "./support/policy";
import { loadShellParser } from "@/lib/exec/shell-parser";

// Exec decisions read the shell grammar, which the turn loads before any call; without it every command asks.
await loadShellParser();

function check(
  mode: ToolMode,
  toolName: string,
  input: unknown,
  opts: { document?: PolicyDocument; roles?: typeof MEMBER } = {},
): GateVerdict {
  const { policy, grantedModes } = policyFor(mode, opts);
  return checkToolCall({ policy, registry: getToolRegistry(), toolName, input, grantedModes });
}

function denied(v: GateVerdict) {
  if (v.verdict !== "deny") throw new Error(`expected a denial, got ${v.verdict}`);
  return v;
}

describe("checkToolCall", () => {
  it("S1 an unknown tool name is TOOL_NOT_FOUND, not MODE_DENIED", () => {
    for (const mode of ["chat_safe", "coding"] as const) {
      const v = denied(check(mode, "write_file", { path: "x" }));
      expect(v.denial.error_code).toBe("TOOL_NOT_FOUND");
      expect(v.layer).toBe("not_found");
    }
  });

  it("S2 a registered tool outside the session's mode is MODE_DENIED from the mode layer", () => {
    const v = denied(check("chat_safe", "read", { path: "README.md" }));
    expect(v.denial).toMatchObject({ ok: false, error_code: "MODE_DENIED", tool_name: "read", mode: "chat_safe" });
    expect(v.layer).toBe("mode");
    expect(v.rule).toBeTruthy();
  });

  it("a member's MODE_DENIED next_action asks for a grant; an owner's says switch the mode", () => {
    const member = denied(check("chat_safe", "read", { path: "a" }, { roles: MEMBER }));
    expect(member.denial.next_action).toMatch(/ask an admin to grant the coding mode/i);
    const owner = denied(check("chat_safe", "read", { path: "a" }));
    expect(owner.denial.next_action).toMatch(/switch this session to coding/i);
  });

  it("aliases and case resolve before the check (BASH → exec)", () => {
    expect(denied(check("chat_safe", "BASH", { command: "ls" })).denial).toMatchObject({
      error_code: "MODE_DENIED",
      tool_name: "exec",
    });
  });

  it("arguments that fail the tool's schema are INVALID_ARGUMENTS naming the problem", () => {
    const v = denied(check("coding", "read", { path: 42 }));
    expect(v.denial.error_code).toBe("INVALID_ARGUMENTS");
    expect(v.denial.message).toMatch(/path/);
    expect(v.layer).toBe("arguments");
  });

  it.each([
    ["a raw JSON string", '{"path":"README.md"}'],
    ["malformed JSON text", '{"path": "READ'],
    ["null", null],
    ["an array", [{ path: "README.md" }]],
  ])("%s as arguments is INVALID_ARGUMENTS, never parsed into a call", (_label, input) => {
    expect(denied(check("coding", "read", input)).denial.error_code).toBe("INVALID_ARGUMENTS");
  });

  it("a mode denial wins over bad arguments (the model learns the real reason)", () => {
    expect(denied(check("chat_safe", "read", "not json")).denial.error_code).toBe("MODE_DENIED");
  });

  it("a valid allowed call runs with the parsed input and the deciding layer", () => {
    const v = check("chat_safe", "current_time", { timezone: "UTC" });
    expect(v).toMatchObject({
      verdict: "run",
      input: { timezone: "UTC" },
      decision: { allowed: true, layer: "allowed" },
    });
  });

  describe("exec", () => {
    it("security deny refuses any command with the exec layer and rule", () => {
      const v = denied(
        check("coding", "exec", { command: "ls" }, { document: documentOf({ exec: { security: "deny" } }) }),
      );
      expect(v.denial.error_code).toBe("POLICY_DENIED");
      expect(v.layer).toBe("exec");
      expect(v.rule).toBe("exec.security: deny");
    });

    it("security full runs a command", () => {
      expect(
        check("coding", "exec", { command: "sleep 1" }, { document: documentOf({ exec: { security: "full" } }) })
          .verdict,
      ).toBe("run");
    });

    it("allowlist security does not run an unlisted command", () => {
      expect(
        check(
          "coding",
          "exec",
          { command: "rm -rf /tmp/x" },
          { document: documentOf({ exec: { security: "allowlist" } }) },
        ).verdict,
      ).not.toBe("run");
    });

    it("an allowlisted safe bin runs under allowlist security", () => {
      expect(
        check("coding", "exec", { command: "wc -l" }, { document: documentOf({ exec: { security: "allowlist" } }) })
          .verdict,
      ).toBe("run");
    });

    it("the default sandbox security runs any command without an owner, and its reason names the mode", () => {
      for (const command of [
        "ls -la",
        "cat notes.md | grep v1",
        "sh -c 'echo hi > out.txt'",
        "./build.sh",
        'eval "$(cat x)"',
        "rm -rf dir",
      ]) {
        const v = check("coding", "exec", { command });
        expect(v, command).toMatchObject({
          verdict: "run",
          reason: expect.stringMatching(/^sandbox mode: runs in the sandbox/),
        });
      }
    });

    it("sandbox mode: host execution is an escalation (the allowlist decides there), and so is an admin's ask rule", () => {
      const { policy, grantedModes } = policyFor("coding");
      const onHost = checkToolCall({
        policy,
        registry: getToolRegistry(),
        toolName: "exec",
        input: { command: "ls -la" },
        grantedModes,
        execHost: "exec.host.teams: ops",
      });
      expect(onHost).toMatchObject({
        verdict: "ask",
        reason: expect.stringMatching(/^sandbox mode: the command would run on the host \(exec.host.teams: ops\)/),
      });
      // A safe-bin use is covered on the host as in allowlist mode.
      expect(
        checkToolCall({
          policy,
          registry: getToolRegistry(),
          toolName: "exec",
          input: { command: "wc -l" },
          grantedModes,
          execHost: "exec.host.teams: ops",
        }).verdict,
      ).toBe("run");
      const document = documentOf({ version: 2, exec: { askRules: ["rm *"] } } as never);
      expect(check("coding", "exec", { command: "ls && /bin/rm -rf dir" }, { document })).toMatchObject({
        verdict: "ask",
        reason: expect.stringMatching(/exec.askRules: rm \*/),
      });
      expect(check("coding", "exec", { command: "ls -la" }, { document }).verdict).toBe("run");
      // With an ask rule in force, a command the analysis cannot split might hide a match: it waits.
      expect(check("coding", "exec", { command: "$(echo rm) -rf dir" }, { document })).toMatchObject({
        verdict: "ask",
        reason: expect.stringMatching(/could not be split/),
      });
      const off = documentOf({ version: 2, exec: { askRules: ["rm *"], ask: "off" } } as never);
      expect(check("coding", "exec", { command: "rm -rf dir" }, { document: off }).verdict).toBe("deny");
    });
  });

  it("P27 an askRules match needs approval (ask), it does not run", () => {
    expect(
      check("chat_safe", "current_time", {}, { document: documentOf({ askRules: ["current_time"] }) }).verdict,
    ).toBe("ask");
  });
});

describe("the tool_denied event (C rows)", () => {
  it("C1 carries all six fields, each non-empty", () => {
    const v = denied(check("chat_safe", "read", { path: "README.md" }, { roles: MEMBER }));
    const event = toolDeniedData("call_1", v.denial);
    expect(Object.keys(event).sort()).toEqual(["callId", "errorCode", "message", "mode", "nextAction", "toolName"]);
    for (const [key, value] of Object.entries(event))
      expect({ key, empty: typeof value !== "string" || value.trim() === "" }).toEqual({ key, empty: false });
    expect(event).toMatchObject({ callId: "call_1", toolName: "read", mode: "chat_safe", errorCode: "MODE_DENIED" });
  });

  it("C2 the same refused call always yields the same denial", () => {
    const outputs = Array.from({ length: 5 }, () =>
      JSON.stringify(
        toolDeniedData("call_x", denied(check("chat_safe", "read", { path: "a" }, { roles: MEMBER })).denial),
      ),
    );
    expect(new Set(outputs).size).toBe(1);
    const other = JSON.stringify(
      toolDeniedData("call_x", denied(check("chat_safe", "exec", { command: "ls" }, { roles: MEMBER })).denial),
    );
    expect(other).not.toBe(outputs[0]);
  });
});

describe("the reason a plugin call waits for an owner", () => {
  it("names the server's annotation when the tool itself asks, and the ask rule otherwise", async () => {
    const { ToolRegistry, resolveEffectiveToolPolicy } = await import("@/lib/policy");
    const { z } = await import("zod");
    const registry = new ToolRegistry();
    const base = {
      group: "plugins",
      allowedModes: ["chat_safe", "coding"] as ToolMode[],
      inputSchema: z.object({}),
      execute: async () => ({ ok: true }),
    };
    registry.register({
      ...base,
      name: "mcp__fx__drop",
      description: "drop",
      pluginId: "fx",
      requiresApproval: true,
      approvalReason:
        "MCP server fx requires approval for destructive tools and the server marks it destructiveHint: true",
    } as never);
    registry.register({ ...base, name: "mcp__fx__list", description: "list", pluginId: "fx" } as never);
    const document = documentOf({
      askRules: ["mcp__fx__list"],
      system: { mcp: { enabled: true, allowedServers: ["fx"] } },
    } as never);
    const policy = resolveEffectiveToolPolicy(
      { roles: MEMBER, senderIsOwner: false, mode: "chat_safe", provider: "offline" },
      { document, tools: registry.meta() },
    );
    const drop = checkToolCall({ policy, registry, toolName: "mcp__fx__drop", input: {}, grantedModes: ["chat_safe"] });
    expect(drop).toMatchObject({ verdict: "ask", reason: expect.stringMatching(/destructiveHint: true/) });
    const list = checkToolCall({ policy, registry, toolName: "mcp__fx__list", input: {}, grantedModes: ["chat_safe"] });
    expect(list).toMatchObject({ verdict: "ask", reason: expect.stringMatching(/an ask rule matches/) });
  });
});

// Width, not depth: a long array of wrong items is a few hundred kilobytes of arguments. Its refusal is written to the
// transcript and the audit row and sent back to the model on every later step, so it must stay small; and the
// subset validator (schemas zod cannot convert) must answer rather than overflow collecting its problems.
describe("a wide refusal stays small", () => {
  const wide = { paths: Array<number>(200_000).fill(0) };
  async function pluginGate(schema: Record<string, unknown>) {
    const { ToolRegistry, resolveEffectiveToolPolicy } = await import("@/lib/policy");
    const { jsonSchemaToZod } = await import("@/lib/tools/mcp");
    const registry = new ToolRegistry();
    registry.register({
      name: "mcp__fx__files",
      description: "files",
      pluginId: "fx",
      group: "plugins",
      allowedModes: ["chat_safe", "coding"],
      inputSchema: jsonSchemaToZod(schema),
      execute: async () => ({ ok: true }),
    } as never);
    const document = documentOf({ system: { mcp: { enabled: true, allowedServers: ["fx"] } } } as never);
    const policy = resolveEffectiveToolPolicy(
      { roles: MEMBER, senderIsOwner: false, mode: "chat_safe", provider: "offline" },
      { document, tools: registry.meta() },
    );
    return (input: unknown) =>
      checkToolCall({ policy, registry, toolName: "mcp__fx__files", input, grantedModes: ["chat_safe"] });
  }
  const paths = { type: "object", properties: { paths: { type: "array", items: { type: "string" } } } };

  it.each([
    ["a schema zod converts", paths],
    ["a schema only the subset validator reads", { ...paths, if: { required: ["x"] }, then: {} }],
  ])("%s: 200,000 wrong items are a refusal of a few lines", async (_label, schema) => {
    const gate = await pluginGate(schema);
    const v = denied(gate(wide));
    expect(v.denial.error_code).toBe("INVALID_ARGUMENTS");
    expect(v.denial.message).toContain("paths.0");
    expect(v.denial.message.length).toBeLessThan(4_000);
    expect(v.reason!.length).toBeLessThan(4_000);
    expect(denied(gate({ paths: [1, 2] })).denial.message).not.toContain("more");
  });

  it("lists the first issues and how many more there are", async () => {
    const v = denied((await pluginGate(paths))(wide));
    expect(v.denial.message).toMatch(/and \d+ more/);
  });
});
