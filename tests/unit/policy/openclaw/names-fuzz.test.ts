// Property: tool, team, sender, agent and provider names are data. Prototype names (__proto__, constructor,
// toString), unicode and surrounding whitespace must neither crash compilation nor resolve to Object.prototype.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expandToolGroups,
  isToolAllowedByPolicyName,
  normalizeToolName,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  resolveToolProfilePolicy,
  type PolicyContext,
  type ToolMeta,
} from "@/lib/policy";

const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "__defineGetter__",
  "isPrototypeOf",
];
const core = fc.constantFrom(
  ...PROTOTYPE_NAMES,
  "bash",
  "apply-patch",
  "read",
  "group:fs",
  "İstanbul",
  "ﬀ",
  "e\u0301",
  "名前",
  "🔧tool",
  "",
);
const space = fc.constantFrom("", " ", "\t", "\n", "\u00a0", "\u2003", "\ufeff");
const nameArb = fc.oneof(
  fc.tuple(space, core, space).map(([a, b, c]) => `${a}${b}${c}`),
  fc.tuple(core, fc.constantFrom("", "_x", "*", ":", " Upper")).map(([a, b]) => `${a}${b}`.toUpperCase()),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
);

const context = (name: string): PolicyContext => ({
  roles: ["owner"],
  senderIsOwner: true,
  mode: "coding",
  provider: name,
  model: name,
  agentId: name,
  teamIds: [name],
  senderId: name,
});

describe("tool names fuzzed with __proto__, constructor, unicode and whitespace", () => {
  it("normalizing, expanding and matching never resolve through the prototype", () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const normalized = normalizeToolName(name);
        expect(typeof normalized).toBe("string");
        expect(expandToolGroups([name]).every((entry) => typeof entry === "string")).toBe(true);
        expect(
          resolveToolProfilePolicy(name.trim()) === undefined ||
            ["minimal", "coding", "messaging"].includes(name.trim()),
        ).toBe(true);
        if (normalized.length > 0 && !normalized.startsWith("group:")) {
          expect(isToolAllowedByPolicyName(name, { allow: [name] })).toBe(true);
          expect(isToolAllowedByPolicyName(name, { deny: [name] })).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("documents and contexts naming prototype keys compile, resolve and look up own keys only", () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const parsed = parsePolicyDocument({
          teams: { [name]: { deny: [name] } },
          senders: { [name]: { deny: ["current_time"] } },
          modeOverrides: { [name]: ["coding"] },
          tools: { allow: ["*", name], byProvider: { [name]: { deny: ["read"] } } },
        });
        if (!parsed.ok) return; // empty or whitespace-only keys are refused by the schema, as they should be
        const document = parsed.document;
        const normalized = normalizeToolName(name);
        const tools: ToolMeta[] = [
          { name: "current_time", allowedModes: ["chat_safe", "coding"] },
          { name: "read", allowedModes: ["chat_safe", "coding"] },
          ...(normalized && normalized !== "current_time" && normalized !== "read" && !normalized.startsWith("group:")
            ? [{ name, allowedModes: ["coding" as const] }]
            : []),
        ];
        const policy = resolveEffectiveToolPolicy(context(name), { document, tools });
        const sender = policy.check("current_time");
        expect(sender.allowed).toBe(!Object.hasOwn(document.senders, name));
        expect(Object.getPrototypeOf(policy.tools)).toBe(Object.prototype);
        if (tools.length === 3) {
          const decision = policy.check(name);
          expect(decision.name).toBe(normalized);
          expect(Object.hasOwn(policy.tools, normalized)).toBe(true);
          // The team's own deny names the tool; a key the schema dropped (e.g. "__proto__") denies nothing.
          if (Object.hasOwn(document.teams, name)) expect(decision.allowed).toBe(false);
        }
        expect(policy.check(`${name}\u0000missing`).errorCode).toBe("TOOL_NOT_FOUND");
      }),
      { numRuns: 300 },
    );
  });

  it("named regressions: constructor and __proto__", () => {
    expect(normalizeToolName("constructor")).toBe("constructor");
    expect(normalizeToolName("__proto__")).toBe("__proto__");
    expect(expandToolGroups(["constructor", "__proto__", "toString"])).toEqual([
      "constructor",
      "__proto__",
      "tostring",
    ]);
    const parsed = parsePolicyDocument({
      tools: { allow: ["__proto__", "constructor"], deny: ["toString"] },
      teams: { constructor: { deny: ["read"] } },
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const tools: ToolMeta[] = [
      { name: "constructor", allowedModes: ["coding"] },
      { name: "read", allowedModes: ["coding"] },
    ];
    const policy = resolveEffectiveToolPolicy(
      { ...context("constructor"), agentId: "toString", provider: "__proto__" },
      { document: parsed.document, tools },
    );
    expect(policy.check("constructor").allowed).toBe(true);
    expect(policy.check("read")).toMatchObject({ allowed: false, layer: "global" });
    expect(policy.warnings.some((w) => w.code === "unknown_agent")).toBe(true);
  });
});
