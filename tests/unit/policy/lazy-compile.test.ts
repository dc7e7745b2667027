// Issue 16: the compiled policy builds a tool's decision when it is first read, and simple globs are string tests.
// Whatever order decisions are read in, they are the same; the string tests answer exactly as the anchored regex.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompiledPolicy, type ToolMeta } from "@/lib/policy";
import { compileEntry } from "@/lib/policy/matching";
import { ctx, doc, TOOLS } from "./fixtures";

const many: ToolMeta[] = [
  ...TOOLS,
  ...Array.from({ length: 300 }, (_, i): ToolMeta => ({
    name: `${["gh", "jira", "slack"][i % 3]}_op_${i}`,
    allowedModes: i % 7 === 0 ? ["coding"] : ["chat_safe", "coding"],
    pluginId: ["github", "jira", "slack"][i % 3],
    requiresApproval: i % 11 === 0,
  })),
];
const document = doc({
  tools: { deny: ["jira_*"], byProvider: { openai: { deny: ["*_op_1*"] } } },
  teams: { ops: { allow: ["*_op_*", "group:fs", "group:web"] } },
  senders: { u1: { deny: ["slack_op_2"] } },
  modeOverrides: { gh_op_3: ["coding"] },
  askRules: ["gh_op_9*"],
  system: { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
});
const context = ctx({ mode: "chat_safe", provider: "openai", teamIds: ["ops"], senderId: "u1" });

describe("lazy decisions", () => {
  it("check() first, tools record first, or one name at a time: the same decisions, allowedTools exactly the allowed ones", () => {
    const viaCheck = new CompiledPolicy(document, many).resolve(context);
    const byCheck = many.map((t) => viaCheck.check(t.name));
    const viaRecord = new CompiledPolicy(document, many).resolve(context);
    const record = viaRecord.tools;
    expect(byCheck).toEqual(many.map((t) => record[t.name]));
    // Reading decisions backwards on a third compilation: nothing depends on reading order.
    const backwards = new CompiledPolicy(document, many).resolve(context);
    expect(
      [...many]
        .reverse()
        .map((t) => backwards.check(t.name))
        .reverse(),
    ).toEqual(byCheck);
    expect(viaCheck.allowedTools).toEqual(byCheck.filter((d) => d.allowed).map((d) => d.name));
    // The workload removes tools in several layers and keeps some, so the comparison covers every kind of decision.
    expect(new Set(byCheck.map((d) => d.layer))).toEqual(
      new Set(["allowed", "mode", "global", "global_provider", "group", "system"]),
    );
    expect(byCheck.some((d) => d.effect === "ask")).toBe(true);
    expect(viaCheck.check("jira_op_1").chain.find((c) => c.layer === "global")).toMatchObject({
      outcome: "removed",
      rule: "deny: jira_*",
    });
  });

  it("a decision read twice is the same object (built once)", () => {
    const resolved = new CompiledPolicy(document, many).resolve(context);
    expect(resolved.check("gh_op_0")).toBe(resolved.check("gh_op_0"));
    expect(resolved.check("jira_op_4")).toBe(resolved.tools["jira_op_4"]);
  });
});

describe("glob string tests", () => {
  const reference = (entry: string) =>
    new RegExp(
      `^${entry
        .split("*")
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
  const alphabet = fc.constantFrom("a", "b", "_", ".", "-", "\n", "\u2028", "x", "ab");
  const word = fc.array(alphabet, { maxLength: 5 }).map((parts) => parts.join(""));

  it("prefix*, *suffix and *middle* match exactly what the anchored regex matches", () => {
    fc.assert(
      fc.property(word, word, fc.constantFrom("prefix", "suffix", "middle"), (part, name, shape) => {
        const entry = shape === "prefix" ? `${part}*` : shape === "suffix" ? `*${part}` : `*${part}*`;
        const compiled = compileEntry(entry);
        // Entries are normalized (trimmed, lower-cased) when compiled; compare against the normalized one.
        if (!compiled || compiled.all || compiled.group || !compiled.regex) return;
        expect(compiled.regex.test(name)).toBe(reference(compiled.entry).test(name));
      }),
      { numRuns: 3000 },
    );
  });
});
