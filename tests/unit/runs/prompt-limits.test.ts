// Issue 32, limits in the prompt: the model is told the file, exec, disk and per-turn limits its tools enforce, and
// only for tools this run can call (chat_safe names no file or exec limit; coding names each of them).
import { describe, expect, it } from "vitest";
import { buildSystemPrompt, layerLimits, type PromptLimits } from "@/lib/runs/prompt";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { policyFor } from "./support/policy";

const limits: PromptLimits = {
  maxReadBytes: 123_456,
  maxWriteBytes: 65_432,
  exec: { timeoutMs: 45_000, maxOutputBytes: 98_765 },
  disk: { workspaceQuotaBytes: 50_000_000, maxFileBytes: 7_777_777 },
  maxSteps: 8,
};

describe("limits layer of the system prompt", () => {
  const registry = getToolRegistry();

  it("coding: states the read, write, exec, disk and step limits with the run's own numbers", () => {
    const { policy } = policyFor("coding");
    const { system, tools } = buildSystemPrompt({ mode: "coding", policy, registry, limits });
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["read", "write", "exec"]));
    expect(system).toContain("## Limits");
    for (const n of ["123456", "65432", "45 s", "98765", "50000000", "7777777", "at most 8 model steps"])
      expect(system).toContain(n);
  });

  it("chat_safe: no file or exec tool, so no file or exec limit is named (only the turn's steps)", () => {
    const { policy } = policyFor("chat_safe");
    const { system, tools } = buildSystemPrompt({ mode: "chat_safe", policy, registry, limits });
    expect(tools.map((t) => t.name)).not.toContain("exec");
    expect(system).toContain("at most 8 model steps");
    for (const n of ["123456", "65432", "98765", "50000000", "7777777"]) expect(system).not.toContain(n);
  });

  it("an unset disk limit (0) is not stated as a limit of zero bytes", () => {
    const { policy } = policyFor("coding");
    const text = layerLimits(registry.listToolsFor(policy), {
      ...limits,
      disk: { workspaceQuotaBytes: 0, maxFileBytes: 0 },
    });
    expect(text).not.toMatch(/at most 0 bytes|of at most 0/);
    expect(text).toContain("98765");
  });
});
