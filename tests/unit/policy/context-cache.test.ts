// Attacks on the resolution caches (lib/policy/context-key.ts, context-parts.ts, provider-choice.ts): a cached
// result, part or choice must never answer for a context that differs in a field the resolution reads.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompiledPolicy, resolveProviderKey, type EffectiveToolPolicy, type PolicyContext } from "@/lib/policy";
import { ProviderChooser } from "@/lib/policy/provider-choice";
import { openDoc, TOOLS } from "./fixtures";

// Every field of the context changes something here: grants per role, team and user, a policy per team and sender,
// an agent with its own provider entries, provider/model keys, sandboxing per agent, team and user, a subagent depth
// limit. Names carry the characters a string key would use as separators.
const SEP = ["\u0000", "|", ",", ":", "1:", "-"];
const document = openDoc({
  modeGrants: { roles: { admin: ["coding"] }, teams: { "t|1": ["coding"] }, users: { "u,1": ["coding"] } },
  teams: { ops: { deny: ["exec"] }, devs: { deny: ["read"] }, "t|1": { deny: ["write"] }, t: { deny: ["edit"] } },
  senders: { "u,1": { deny: ["memory_get"] }, u1: { deny: ["web_fetch"] }, "1:u": { deny: ["web_search"] } },
  agents: {
    a: { name: "A", tools: { deny: ["process"], byProvider: { "mock/m:1": { deny: ["apply_patch"] } } } },
    "a|b": { name: "AB", tools: { deny: ["sessions_list"] } },
  },
  tools: {
    byProvider: { "mock/m1": { deny: ["gh_pr"] }, mock: { deny: ["gh_issue"] }, "MOCK/M|2": { deny: ["jira_ticket"] } },
  },
  sandbox: { sandboxed: { agents: ["a|b"], teams: ["devs"], users: ["u1"] } },
  subagents: { maxSpawnDepth: 2 },
});

const base: PolicyContext = {
  roles: ["member"],
  senderIsOwner: false,
  mode: "coding",
  provider: "mock",
  model: "m1",
  agentId: "a",
  teamIds: ["ops"],
  senderId: "u0",
  sandboxed: false,
  subagentDepth: 0,
};

/** Everything a result says, tools record included (JSON drops only check(), which the record covers). */
const snapshot = (policy: EffectiveToolPolicy) => JSON.parse(JSON.stringify(policy)) as unknown;
const asSets = (snap: unknown) => {
  const c = (snap as { context: { roles: string[]; teamIds?: string[] } }).context;
  return {
    ...(snap as object),
    context: { ...c, roles: [...c.roles].sort(), teamIds: c.teamIds && [...c.teamIds].sort() },
  };
};
const fresh = (context: PolicyContext) => new CompiledPolicy(document, TOOLS, { cacheResults: false }).resolve(context);

/** Resolves each context twice on one compiled policy (cold, then from its caches) and checks it against a fresh engine. */
function resolveAll(compiled: CompiledPolicy, contexts: PolicyContext[]): EffectiveToolPolicy[] {
  const results = contexts.map((context) => compiled.resolve(structuredClone(context)));
  contexts.forEach((context, i) => {
    const again = compiled.resolve(structuredClone(context));
    expect(again).toBe(results[i]);
    expect(snapshot(again)).toEqual(snapshot(fresh(context)));
  });
  return results;
}

const variants: Array<[string, Partial<PolicyContext>, Partial<PolicyContext>]> = [
  ["mode", { mode: "coding" }, { mode: "chat_safe" }],
  ["mode: invalid", { mode: "coding" }, { mode: "root" as PolicyContext["mode"] }],
  ["roles: content", { roles: ["member"] }, { roles: ["admin"] }],
  ["roles: one more", { roles: ["member"] }, { roles: ["member", "admin"] }],
  ["teamIds: content", { teamIds: ["ops"] }, { teamIds: ["devs"] }],
  ["teamIds: a duplicate", { teamIds: ["ops"] }, { teamIds: ["ops", "ops"] }],
  ["teamIds: missing vs empty", { teamIds: undefined }, { teamIds: [] }],
  ["teamIds: a name containing a separator", { teamIds: ["t|1"] }, { teamIds: ["t", "1"] }],
  ["senderId", { senderId: "u0" }, { senderId: "u1" }],
  ["senderId: missing vs empty", { senderId: undefined }, { senderId: "" }],
  ["senderId vs a team, separators between them", { senderId: "u", teamIds: [",1"] }, { senderId: "u,1", teamIds: [] }],
  ["senderIsOwner", { senderIsOwner: false }, { senderIsOwner: true }],
  ["provider", { provider: "mock" }, { provider: "openai" }],
  ["provider: missing vs empty", { provider: undefined }, { provider: "" }],
  ["model", { model: "m1" }, { model: "m2" }],
  ["model: provider/model split differently", { provider: "mock", model: "m|2" }, { provider: "mock/m", model: "|2" }],
  ["agentId", { agentId: "a" }, { agentId: "a|b" }],
  ["agentId vs model, separators between them", { agentId: "a", model: "m:1" }, { agentId: "a:m", model: "1" }],
  ["agentId: missing vs unknown", { agentId: undefined }, { agentId: "nobody" }],
  ["sandboxed", { sandboxed: false }, { sandboxed: true }],
  ["sandboxed: missing vs false", { sandboxed: undefined }, { sandboxed: false }],
  ["subagentDepth", { subagentDepth: 1 }, { subagentDepth: 2 }],
  ["subagentDepth: 0 vs missing", { subagentDepth: 0 }, { subagentDepth: undefined }],
  ["subagentDepth: a number vs its text", { subagentDepth: 1 }, { subagentDepth: "1" as unknown as number }],
  ["a length prefix inside a name", { senderId: "1:u", agentId: undefined }, { senderId: "1", agentId: "u" }],
];

describe("context caches: a field the resolution reads is never shared", () => {
  it.each(variants)("%s", (_, a, b) => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const [first, second] = resolveAll(compiled, [
      { ...base, ...a },
      { ...base, ...b },
    ]);
    expect(second).not.toBe(first);
    expect(Object.is(second!.context.subagentDepth, { ...base, ...b }.subagentDepth)).toBe(true);
  });

  it("every separator-laden name in every field: each result is what a fresh engine says", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const contexts = SEP.flatMap((sep) => [
      { ...base, senderId: `u${sep}1` },
      { ...base, agentId: `a${sep}b` },
      { ...base, teamIds: [`t${sep}1`], roles: ["member", "admin"] as PolicyContext["roles"] },
      { ...base, model: `m${sep}1`, provider: `mock${sep}` },
    ]);
    const results = resolveAll(compiled, contexts);
    expect(new Set(results).size).toBe(new Set(contexts.map((c) => JSON.stringify(c))).size);
  });

  it("names that share a hash (the same 32 first and last characters) are still told apart", () => {
    const long = (middle: string) => `${"x".repeat(40)}${middle}${"y".repeat(40)}`;
    const compiled = new CompiledPolicy(document, TOOLS);
    const contexts = ["A", "B", "u1", "C", "D", "E"].map((middle) => ({
      ...base,
      senderId: long(middle),
      teamIds: [long(middle)],
    }));
    const results = contexts.map((context) => compiled.resolve(structuredClone(context)));
    expect(new Set(results).size).toBe(contexts.length);
    expect(compiled.resolve(structuredClone(contexts.at(-1)!))).toBe(results.at(-1));
    // More colliding keys than a chain keeps: the oldest are forgotten, never confused with another.
    for (const [i, context] of contexts.entries()) {
      expect(snapshot(results[i]!)).toEqual(snapshot(fresh(context)));
      expect(snapshot(compiled.resolve(structuredClone(context)))).toEqual(snapshot(fresh(context)));
    }
  });

  it("roles and teams are sets: order shares a result, and the result's lists are the first caller's order", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const first = compiled.resolve({ ...base, roles: ["member", "admin"], teamIds: ["ops", "devs"] });
    const second = compiled.resolve({ ...base, roles: ["admin", "member"], teamIds: ["devs", "ops"] });
    expect(second).toBe(first);
    // A new context of the same principal in another order gets its own lists, in its own order.
    const other = compiled.resolve({ ...base, roles: ["admin", "member"], teamIds: ["devs", "ops"], model: "m2" });
    expect(other.context.roles).toEqual(["admin", "member"]);
    expect(other.context.teamIds).toEqual(["devs", "ops"]);
    expect(Object.isFrozen(other.context.teamIds)).toBe(true);
  });

  it("a result never changes when its caller mutates the context afterwards", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const context: PolicyContext = { ...base, roles: ["member"], teamIds: ["ops"] };
    const policy = compiled.resolve(context);
    const before = snapshot(policy);
    context.roles.push("admin");
    context.teamIds!.push("devs");
    context.mode = "chat_safe";
    expect(snapshot(policy)).toEqual(before);
    expect(snapshot(compiled.resolve(context))).toEqual(snapshot(fresh(context)));
    expect(Object.isFrozen(policy.context)).toBe(true);
  });

  it("the context copy holds the declared fields, in their declared order, and nothing else", () => {
    // A result is shared by every equal context, so its copy may only hold what the key compared: an extra key of
    // the first caller would reach every later one (context-cache-attacks.test.ts).
    const declared = [
      "roles",
      "senderIsOwner",
      "mode",
      "provider",
      "model",
      "agentId",
      "teamIds",
      "senderId",
      "sandboxed",
      "subagentDepth",
    ];
    const shapes: PolicyContext[] = [
      { ...base },
      { mode: "coding", roles: ["member"], senderIsOwner: false, provider: "mock" },
      { ...base, extra: "dropped" } as PolicyContext,
      Object.assign(Object.create({ inherited: true }) as object, base) as PolicyContext,
    ];
    for (const shape of shapes) {
      for (const compiled of [
        new CompiledPolicy(document, TOOLS),
        new CompiledPolicy(document, TOOLS, { cacheResults: false }),
      ]) {
        const { context } = compiled.resolve(shape);
        expect(Object.keys(context)).toEqual(declared);
        expect(context).toEqual({
          ...Object.fromEntries(declared.map((field) => [field, undefined])),
          ...structuredClone({ ...shape, extra: undefined }),
        });
        expect(Object.isFrozen(context)).toBe(true);
      }
    }
  });

  it("a field of a type the key does not encode is resolved afresh each time, the same as a fresh engine", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const odd = [
      { ...base, senderId: { toString: () => "u1" } } as unknown as PolicyContext,
      { ...base, subagentDepth: -0 },
    ];
    for (const context of odd) {
      const first = compiled.resolve(context);
      expect(compiled.resolve(context)).not.toBe(first);
      expect(snapshot(first)).toEqual(snapshot(fresh(context)));
    }
    // -0 is not taken for a cached 0 (a copy keeps the sign).
    compiled.resolve({ ...base, subagentDepth: 0 });
    expect(Object.is(compiled.resolve({ ...base, subagentDepth: -0 }).context.subagentDepth, -0)).toBe(true);
  });

  it("property: any sequence of contexts over separator-laden names resolves as a fresh engine does", () => {
    const name = fc
      .stringMatching(/^[a-z1]{0,2}$/)
      .chain((head) => fc.constantFrom("", ...SEP).map((sep) => `${head}${sep}`));
    const contextArb: fc.Arbitrary<PolicyContext> = fc.record({
      roles: fc.subarray(["member", "owner", "admin"] as const).map((roles) => [...roles]),
      senderIsOwner: fc.boolean(),
      mode: fc.constantFrom("coding", "chat_safe"),
      provider: fc.option(fc.constantFrom("mock", "MOCK", "openai", "mock/m"), { nil: undefined }),
      model: fc.option(fc.constantFrom("m1", "M1", "m:1", "mock/m1", "|2"), { nil: undefined }),
      agentId: fc.option(fc.constantFrom("a", "a|b", "nobody"), { nil: undefined }),
      teamIds: fc.option(fc.array(fc.constantFrom("ops", "devs", "t|1", "t"), { maxLength: 3 }), { nil: undefined }),
      senderId: fc.option(fc.oneof(fc.constantFrom("u1", "u,1", "1:u"), name), { nil: undefined }),
      sandboxed: fc.option(fc.boolean(), { nil: undefined }),
      subagentDepth: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    });
    const compiled = new CompiledPolicy(document, TOOLS);
    fc.assert(
      fc.property(fc.array(contextArb, { minLength: 1, maxLength: 8 }), (contexts) => {
        // Roles and teams are sets: an earlier run's context that differs only in their order shares its result, lists
        // in that caller's order (see "roles and teams are sets" above), so the lists are compared as sets.
        for (const context of contexts)
          expect(asSets(snapshot(compiled.resolve(structuredClone(context))))).toEqual(
            asSets(snapshot(fresh(context))),
          );
      }),
      { numRuns: 150 },
    );
  });
});

describe("compiled units", () => {
  it('an agent id and a provider key split differently name different units (agent "a:b" + "c" vs agent "a" + "b:c")', () => {
    const split = openDoc({
      agents: {
        "a:b": { name: "AB", tools: { byProvider: { c: { deny: ["exec"] } } } },
        a: { name: "A", tools: { byProvider: { "b:c": { deny: ["read"] } } } },
      },
    });
    const compiled = new CompiledPolicy(split, TOOLS);
    const owner: PolicyContext = { roles: ["owner"], senderIsOwner: true, mode: "coding" };
    const first = compiled.resolve({ ...owner, agentId: "a:b", provider: "c" });
    const second = compiled.resolve({ ...owner, agentId: "a", provider: "b:c" });
    expect(first.check("exec").source).toBe("agents.a:b.tools.byProvider.c");
    expect(second.check("read").source).toBe("agents.a.tools.byProvider.b:c");
    expect(second.check("exec").layer).not.toBe("agent_provider");
  });
});

describe("provider choice", () => {
  it("property: the chosen byProvider keys are resolveProviderKey's, without building provider/model", () => {
    const key = fc.constantFrom(
      "mock",
      "MOCK",
      "mock/m1",
      "Mock/M1",
      "mock/",
      "/m1",
      "m1",
      "openai",
      "openai/gpt",
      "mock/mock/m1",
      "a/b/c",
    );
    const text = fc.constantFrom(
      undefined,
      "",
      " mock ",
      "mock",
      "MOCK",
      "mock/m1",
      "m1",
      " M1",
      "mock/mock/m1",
      "/m1",
      "b/c",
      "a",
      "openai",
      "gpt",
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { maxLength: 6 }),
        fc.uniqueArray(key, { maxLength: 4 }),
        text,
        text,
        (toolKeys, agentKeys, provider, model) => {
          const byProvider = Object.fromEntries(toolKeys.map((k) => [k, {}]));
          const agentByProvider = Object.fromEntries(agentKeys.map((k) => [k, {}]));
          const chooser = new ProviderChooser(
            openDoc({ tools: { byProvider }, agents: { a: { name: "A", tools: { byProvider: agentByProvider } } } }),
          );
          const choice = chooser.choose("a", provider, model);
          expect(choice.toolsKey).toBe(resolveProviderKey(byProvider, provider, model));
          expect(choice.agentKey).toBe(resolveProviderKey(agentByProvider, provider, model));
        },
      ),
      { numRuns: 400 },
    );
  });
});
