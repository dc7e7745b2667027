// Security review of the context caches (context-key.ts, context-parts.ts, provider-choice.ts, effective-policy.ts):
// every attack is a test. The oracle is always a fresh engine without result caches, given the same context.
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import {
  CompiledPolicy,
  parsePolicyDocument,
  type EffectiveToolPolicy,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentInput,
} from "@/lib/policy";
import { ProviderChooser } from "@/lib/policy/provider-choice";
import { openDoc, TOOLS } from "./fixtures";

// Thousands of property runs each: 17 s beside the build on two cores and past 30 s at load 10, so a slow machine,
// not a wrong answer, would fail them at the unit tier's default.
vi.setConfig({ testTimeout: 300_000 }); // thousands of engine builds; 133 s once on a machine at load 28

/** Everything a result says, tools record included (JSON drops only check(), which the record covers). */
const snapshot = (policy: EffectiveToolPolicy) => JSON.parse(JSON.stringify(policy)) as unknown;
const freshFor = (document: PolicyDocument) => (context: PolicyContext) =>
  new CompiledPolicy(document, TOOLS, { cacheResults: false }).resolve(context);

// Names an attacker can choose (user-created ids, a hostile import): prototype names, separators, case and
// normalization twins, keys of Object.prototype, integer-like keys (which Object.keys puts first).
const NFC = "\u00e9";
const NFD = "e\u0301";
const IDS = [
  "a",
  "A",
  "x:y",
  "x",
  "y:z",
  "constructor",
  "toString",
  "hasOwnProperty",
  NFC,
  NFD,
  "\u0130",
  "i\u0307",
  "1",
  "01",
  "a|b",
];
const PROVIDER_KEYS = [
  "openai",
  "OpenAI",
  "OPENAI",
  "openai/gpt-4o",
  "openai/GPT-4o",
  "OpenAI/gpt-4o",
  "mock",
  "mock/m1",
  "mock/",
  "/m1",
  "a/b/c",
  "a/b",
  "constructor",
  "toString",
  "\u0130",
  "i\u0307",
  "\u03a3",
  "\u03c3",
  "\u03c2",
  "x\u03a3/y",
  "1",
  "2",
];
const TOOL_NAMES = TOOLS.map((tool) => tool.name);
const ENTRIES = [...TOOL_NAMES, "group:fs", "group:runtime", "group:plugins", "github", "*"];

const list = (pool: readonly string[], maxLength = 3) => fc.uniqueArray(fc.constantFrom(...pool), { maxLength });
const policyArb = fc.record(
  { deny: list(ENTRIES), allow: fc.option(list(ENTRIES, 6), { nil: undefined }) },
  { requiredKeys: ["deny"] },
);
const scopedArb = fc.record(
  {
    deny: list(ENTRIES),
    allow: fc.option(list(ENTRIES, 8), { nil: undefined }),
    profile: fc.option(fc.constantFrom("minimal", "coding", "full"), { nil: undefined }),
  },
  { requiredKeys: ["deny"] },
);
const table = <T>(keys: readonly string[], value: fc.Arbitrary<T>, maxLength = 4) =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...keys), value), { maxLength, selector: ([key]) => key })
    .map((entries) => Object.fromEntries(entries));
const modesArb = fc.subarray(["chat_safe", "coding"] as const).map((modes) => [...modes]);

const documentArb: fc.Arbitrary<PolicyDocument> = fc
  .record({
    tools: fc.record({ deny: list(ENTRIES, 2), byProvider: table(PROVIDER_KEYS, scopedArb, 6) }),
    agents: table(
      IDS,
      fc.record({
        name: fc.constant("agent"),
        tools: fc.record({
          deny: list(ENTRIES, 2),
          profile: fc.option(fc.constantFrom("coding", "full"), { nil: undefined }),
          byProvider: table(PROVIDER_KEYS, scopedArb, 4),
        }),
        system: fc.option(
          fc.record({ fs: fc.record({ enabled: fc.boolean() }), exec: fc.record({ enabled: fc.boolean() }) }),
          { nil: undefined },
        ),
      }),
    ),
    teams: table(IDS, policyArb),
    senders: table(IDS, policyArb),
    sandbox: fc.record({ sandboxed: fc.record({ agents: list(IDS, 2), teams: list(IDS, 2), users: list(IDS, 2) }) }),
    subagents: fc.record({ maxSpawnDepth: fc.integer({ min: 0, max: 3 }) }),
    modeGrants: fc.record({ teams: table(IDS, modesArb), users: table(IDS, modesArb) }),
    exec: fc.record({ applyPatchProviders: list(["openai", "OpenAI", "mock", "\u0130", "constructor"], 2) }),
  })
  .map((input) => {
    const parsed = parsePolicyDocument({
      ...input,
      system: { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
    } as PolicyDocumentInput);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return parsed.document;
  });

const PROVIDERS = [
  undefined,
  "",
  " ",
  "openai",
  "OpenAI",
  " openai ",
  "OPENAI",
  "mock",
  "MOCK",
  "a",
  "a/b",
  "\u0130",
  "i\u0307",
  "\u03a3",
  "x\u03a3",
  "constructor",
  "toString",
  "1",
];
const MODELS = [
  undefined,
  "",
  "gpt-4o",
  "GPT-4o",
  "openai/gpt-4o",
  "OpenAI/GPT-4o",
  "m1",
  "b/c",
  "c",
  "y",
  "/y",
  "mock/m1",
];
const contextArb: fc.Arbitrary<PolicyContext> = fc.record({
  roles: fc
    .subarray(["member", "owner", "admin"] as const)
    .chain((roles) => fc.shuffledSubarray(roles, { minLength: roles.length }))
    .map((roles) => [...roles]),
  senderIsOwner: fc.boolean(),
  mode: fc.constantFrom("coding", "chat_safe", "root" as PolicyContext["mode"]),
  provider: fc.constantFrom(...PROVIDERS),
  model: fc.constantFrom(...MODELS),
  agentId: fc.constantFrom(undefined, "nobody", ...IDS),
  teamIds: fc.option(fc.array(fc.constantFrom(...IDS), { maxLength: 3 }), { nil: undefined }),
  senderId: fc.constantFrom(undefined, "", ...IDS),
  sandboxed: fc.constantFrom(undefined, false, true),
  subagentDepth: fc.constantFrom(undefined, 0, 1, 2, 3, 1.5, 2 ** 32 + 1, Number.NaN, Number.POSITIVE_INFINITY),
});

const base: PolicyContext = {
  roles: ["member"],
  senderIsOwner: false,
  mode: "chat_safe",
  provider: "mock",
  model: "m1",
  agentId: "a",
  teamIds: ["ops"],
  senderId: "u0",
  sandboxed: false,
  subagentDepth: 0,
};
const document = openDoc({
  modeGrants: { roles: { admin: ["chat_safe", "coding"] }, users: { boss: ["chat_safe", "coding"] } },
  teams: { ops: { deny: ["exec"] } },
  senders: { u1: { deny: ["read"] }, u2: { deny: ["write"] } },
  agents: { a: { name: "A", tools: { deny: ["process"] } } },
});
const fresh = freshFor(document);

describe("model-based: random documents, random context sequences, one cached engine against a fresh one", () => {
  it("property: every result is the fresh engine's, across documents with odd keys in every table", () => {
    fc.assert(
      fc.property(
        documentArb,
        fc.array(contextArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 24 }),
        (doc, contexts, replays) => {
          const compiled = new CompiledPolicy(doc, TOOLS);
          const oracle = freshFor(doc);
          // First the contexts in order, then re-asks in a random interleaving (hits mixed with misses).
          const order = [...contexts.keys(), ...replays.map((n) => n % contexts.length)];
          for (const i of order) {
            const context = structuredClone(contexts[i]!);
            expect(snapshot(compiled.resolve(context))).toEqual(snapshot(oracle(contexts[i]!)));
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("more contexts than every cache holds, then reuse: evicted entries are rebuilt, never confused", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const contextAt = (i: number): PolicyContext => ({
      ...base,
      senderId: i % 5 === 0 ? "u1" : i % 5 === 1 ? "u2" : `user-${i}`,
      teamIds: i % 3 === 0 ? ["ops"] : [`team-${i % 700}`],
      model: `model-${i % 600}`,
      agentId: i % 7 === 0 ? "a" : `agent-${i % 530}`,
      mode: i % 2 === 0 ? "coding" : "chat_safe",
      roles: i % 11 === 0 ? ["admin"] : ["member"],
    });
    // One engine without result caches as the oracle (its units are compiled once; a new one per context is slow).
    const oracle = new CompiledPolicy(document, TOOLS, { cacheResults: false });
    const asked: number[] = [];
    for (let i = 0; i < 1600; i += 1) asked.push(i, (i * 7919) % (i + 1), i >> 1);
    const results = new Map<number, unknown>();
    for (const i of asked) {
      const got = snapshot(compiled.resolve(contextAt(i)));
      if (!results.has(i)) results.set(i, snapshot(oracle.resolve(contextAt(i))));
      expect(got).toEqual(results.get(i));
    }
  });

  it("hash collisions: many contexts sharing every hash (same length, same first and last 32 characters), interleaved", () => {
    const long = (middle: string) => `${"x".repeat(40)}${middle}${"y".repeat(40)}`;
    const doc = openDoc({
      senders: Object.fromEntries(["A", "B", "C"].map((m, i) => [long(m), { deny: [TOOL_NAMES[i]!] }])),
      teams: { [long("B")]: { deny: ["exec"] } },
    });
    const compiled = new CompiledPolicy(doc, TOOLS);
    const oracle = freshFor(doc);
    const middles = ["A", "B", "C", "D", "E", "F", "G", "H"];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...middles), fc.constantFrom(...middles)), { minLength: 1, maxLength: 30 }),
        (pairs) => {
          for (const [s, t] of pairs) {
            const context = { ...base, senderId: long(s), teamIds: [long(t)] };
            expect(snapshot(compiled.resolve(context))).toEqual(snapshot(oracle(context)));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('numbers the key hashes alike (1 and 2^32 + 1, 1.5, NaN, Infinity) or that are not numbers ("1") stay apart', () => {
    const doc = openDoc({ subagents: { maxSpawnDepth: 2 } });
    const compiled = new CompiledPolicy(doc, TOOLS);
    const oracle = freshFor(doc);
    const depths = [1, 2 ** 32 + 1, 1.5, 2, Number.NaN, Number.POSITIVE_INFINITY, "1", "2", true, 0] as unknown[];
    for (const round of [0, 1]) {
      for (const depth of round ? [...depths].reverse() : depths) {
        const context = { ...base, subagentDepth: depth as number };
        expect(snapshot(compiled.resolve(context))).toEqual(snapshot(oracle(context)));
      }
    }
  });
});

describe("the result's context is the caller's, not another request's", () => {
  it("extra keys: a second request with other extra values never gets the first one's", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const first = compiled.resolve({ ...base, requestId: "A" } as PolicyContext);
    const second = compiled.resolve({ ...base, requestId: "B" } as PolicyContext);
    for (const policy of [first, second]) expect(Object.hasOwn(policy.context, "requestId")).toBe(false);
    expect(snapshot(second)).toEqual(snapshot(fresh({ ...base, requestId: "B" } as PolicyContext)));
  });

  it("a missing key and a key holding undefined, keys in another order: one copy, the same as a fresh engine's", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const withKey: PolicyContext = { roles: ["member"], senderIsOwner: false, mode: "chat_safe", provider: undefined };
    const without: PolicyContext = { roles: ["member"], senderIsOwner: false, mode: "chat_safe" };
    const reordered: PolicyContext = { mode: "chat_safe", senderIsOwner: false, roles: ["member"] };
    for (const context of [withKey, without, reordered, without, withKey]) {
      const policy = compiled.resolve(context);
      expect(Object.keys(policy.context)).toEqual(Object.keys(fresh(context).context));
      expect(snapshot(policy)).toEqual(snapshot(fresh(context)));
    }
  });
});

/** A context whose field `field` reads as `before` for its first `after` reads, then as `then`. */
function flipping(
  plain: PolicyContext,
  field: keyof PolicyContext,
  before: unknown,
  then: unknown,
  after: number,
): PolicyContext {
  const context = { ...plain } as Record<string, unknown>;
  let reads = 0;
  Object.defineProperty(context, field, { enumerable: true, get: () => (reads++ < after ? before : then) });
  return context as PolicyContext;
}

describe("the engine reads each field once: a context whose getters change between reads", () => {
  // Each pair: a harmless value, then the value that would escalate if read again after the harmless one was checked.
  const flips: Array<[keyof PolicyContext, unknown, unknown]> = [
    ["mode", "chat_safe", "coding"],
    ["roles", ["member"], ["admin"]],
    ["senderId", "u1", "boss"],
    ["teamIds", ["ops"], []],
    ["senderIsOwner", false, true],
    ["agentId", "a", "nobody"],
    ["provider", "mock", "openai"],
    ["sandboxed", true, false],
    ["subagentDepth", 1, 0],
  ];
  for (const [cached, warm] of [
    [true, true],
    [true, false],
    [false, false],
  ] as const) {
    it(`${cached ? "cached" : "uncached"} engine${warm ? ", caches warm with both values" : ""}: the result is the fresh engine's for the context it reports`, () => {
      for (const [field, before, then] of flips) {
        for (let after = 0; after <= 8; after += 1) {
          const compiled = new CompiledPolicy(document, TOOLS, { cacheResults: cached });
          // Warm every cache with both values, so a stale part would be found rather than built.
          if (warm) compiled.resolve({ ...base, [field]: before });
          if (warm) compiled.resolve({ ...base, [field]: then });
          const policy = compiled.resolve(flipping(base, field, before, then, after));
          const reported = { ...policy.context };
          expect(snapshot(policy), `${field} flips after ${after} reads`).toEqual(snapshot(fresh(reported)));
          // And the next plain context is not answered from what the flip left behind.
          for (const value of [before, then]) {
            const plain = { ...base, [field]: value } as PolicyContext;
            expect(snapshot(compiled.resolve(plain))).toEqual(snapshot(fresh(plain)));
          }
        }
      }
    });
  }

  it("mode escalation: a member whose mode reads chat_safe at the grant check never runs in coding", () => {
    for (let after = 0; after <= 8; after += 1) {
      for (const compiled of [
        new CompiledPolicy(document, TOOLS),
        new CompiledPolicy(document, TOOLS, { cacheResults: false }),
      ]) {
        const policy = compiled.resolve(flipping(base, "mode", "chat_safe", "coding", after));
        if (policy.mode === "coding") expect(policy.grantedModes).toContain("coding");
        expect(policy.check("exec").allowed).toBe(false);
      }
    }
  });

  it("a list whose length and items change between reads (a Proxy) is read once", () => {
    for (let after = 0; after <= 12; after += 1) {
      const compiled = new CompiledPolicy(document, TOOLS);
      compiled.resolve({ ...base, roles: ["member"] });
      compiled.resolve({ ...base, roles: ["admin"] });
      let reads = 0;
      const roles = new Proxy(["member"], {
        get: (target, key, receiver) =>
          reads++ < after ? Reflect.get(target, key, receiver) : Reflect.get(["admin", "member"], key),
      });
      const policy = compiled.resolve({ ...base, mode: "coding", roles: roles as PolicyContext["roles"] });
      const reported = { ...policy.context, roles: [...policy.context.roles] };
      expect(snapshot(policy)).toEqual(snapshot(fresh(reported)));
    }
  });

  it("a long list (> 16 teams, sorted by copy) whose item turns into an object on a later read is read once", () => {
    // The key used to check the items, then copy them: an item that was a string at the check and an object in the
    // copy was not written, so the previous context's team stayed in its place and the result was that context's
    // (here: a sender in team "ops", which denies exec, got the result of a sender in team "zz").
    const fillers = Array.from({ length: 16 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    const team = { toString: () => "ops" };
    for (let after = 0; after <= 40; after += 1) {
      const compiled = new CompiledPolicy(document, TOOLS);
      const admin: PolicyContext = { ...base, roles: ["admin"], mode: "coding" };
      compiled.resolve({ ...admin, teamIds: [...fillers, "zz"] });
      let reads = 0;
      const teamIds = new Proxy([...fillers, "zy"], {
        get: (target, key, receiver) => (key === "16" && reads++ >= after ? team : Reflect.get(target, key, receiver)),
      });
      const policy = compiled.resolve({ ...admin, teamIds: teamIds as unknown as string[] });
      const reported = { ...policy.context, teamIds: [...policy.context.teamIds!] };
      // "zz" was the previous context's team: this caller never listed it.
      expect(reported.teamIds, `flips after ${after} reads`).not.toContain("zz");
      expect(snapshot(policy)).toEqual(snapshot(fresh(reported)));
    }
  });

  it("a getter that resolves another context on the same engine (re-entry) leaves no mixed key behind", () => {
    for (const field of ["mode", "roles", "senderId", "teamIds", "agentId", "model"] as const) {
      for (let when = 0; when <= 4; when += 1) {
        const compiled = new CompiledPolicy(document, TOOLS);
        const other: PolicyContext = {
          ...base,
          senderId: "u1",
          roles: ["admin"],
          mode: "coding",
          teamIds: [],
          agentId: undefined,
          model: "other",
        };
        const context = { ...base } as Record<string, unknown>;
        const value = context[field];
        let reads = 0;
        Object.defineProperty(context, field, {
          enumerable: true,
          get: () => {
            if (reads++ === when) compiled.resolve(structuredClone(other));
            return value;
          },
        });
        const policy = compiled.resolve(context as PolicyContext);
        expect(snapshot(policy), `${field}, re-entry at read ${when}`).toEqual(snapshot(fresh(base)));
        for (const plain of [base, other, { ...base, senderId: "u1" }, { ...other, senderId: "u0" }]) {
          expect(snapshot(compiled.resolve(structuredClone(plain)))).toEqual(snapshot(fresh(plain)));
        }
      }
    }
  });
});

describe("arrays and objects outside the type system", () => {
  it("holes, extra properties and non-strings in roles and teams: the fresh engine's answer", () => {
    const holey = ["ops"];
    holey.length = 3;
    const extra = Object.assign(["ops"], { admin: true, 5: "x" });
    const lists: unknown[] = [
      holey,
      extra,
      ["ops", undefined],
      ["ops", 1],
      [new String("ops")],
      Object.assign([], { length: 0, 0: "ops" }),
    ];
    const compiled = new CompiledPolicy(document, TOOLS);
    for (const teamIds of lists) {
      const context = { ...base, teamIds } as PolicyContext;
      let expected: unknown;
      try {
        expected = snapshot(fresh(context));
      } catch (error) {
        expected = String(error);
      }
      let got: unknown;
      try {
        got = snapshot(compiled.resolve(context));
      } catch (error) {
        got = String(error);
      }
      expect(got).toEqual(expected);
    }
  });

  it("a mutated context object resolved again answers for its new values", () => {
    const compiled = new CompiledPolicy(document, TOOLS);
    const context: PolicyContext = { ...base, senderId: "u1", teamIds: ["ops"] };
    compiled.resolve(context);
    context.senderId = "u2";
    context.teamIds!.splice(0, 1);
    context.roles.splice(0, 1, "admin");
    context.mode = "coding";
    expect(snapshot(compiled.resolve(context))).toEqual(snapshot(fresh(structuredClone(context))));
  });
});

describe("names: prototype keys, case and Unicode twins", () => {
  it("prototype names in every table and context field: the fresh engine's answer, and no table reads through Object.prototype", () => {
    const input = JSON.parse(
      JSON.stringify({
        tools: {
          byProvider: {
            constructor: { deny: ["exec"] },
            toString: { deny: ["read"] },
            hasOwnProperty: { deny: ["write"] },
          },
        },
        agents: { constructor: { name: "C", tools: { deny: ["process"] }, system: { fs: { enabled: false } } } },
        teams: { constructor: { deny: ["edit"] }, valueOf: { deny: ["web_fetch"] } },
        senders: { toString: { deny: ["web_search"] } },
        modeGrants: { teams: { constructor: ["coding"] }, users: { valueOf: ["coding"] } },
      }),
    ) as PolicyDocumentInput;
    const doc = openDoc(input);
    const compiled = new CompiledPolicy(doc, TOOLS);
    const oracle = freshFor(doc);
    const names = [
      "constructor",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "__proto__",
      "__defineGetter__",
      "prototype",
    ];
    for (const name of names) {
      for (const context of [
        { ...base, provider: name },
        { ...base, provider: "mock", model: name },
        { ...base, provider: name.toUpperCase() },
        { ...base, agentId: name },
        { ...base, teamIds: [name] },
        { ...base, senderId: name },
        { ...base, senderId: name, teamIds: [name], agentId: name, provider: name, mode: "coding" as const },
      ]) {
        expect(snapshot(compiled.resolve(context))).toEqual(snapshot(oracle(context)));
      }
    }
    const admin: PolicyContext = { ...base, roles: ["admin"], mode: "coding", teamIds: [] };
    expect(compiled.resolve({ ...admin, provider: "CONSTRUCTOR" }).check("exec").allowed).toBe(false);
    expect(compiled.resolve({ ...admin, teamIds: ["__proto__"] }).check("edit").allowed).toBe(true);
    expect(compiled.resolve({ ...admin, teamIds: ["constructor"] }).check("edit").allowed).toBe(false);
    expect(compiled.resolve({ ...admin, agentId: "constructor" }).limits.fs.enabled).toBe(false);
    expect(compiled.resolve({ ...admin, agentId: "hasOwnProperty" }).limits.fs.enabled).toBe(true);
  });

  it("ids are not normalized (NFC and NFD are different teams, senders, agents), the same in both engines; provider keys fold case only", () => {
    const doc = openDoc({
      teams: { [NFC]: { deny: ["exec"] } },
      senders: { [NFC]: { deny: ["read"] } },
      tools: { byProvider: { [`p${NFC}`]: { deny: ["write"] } } },
    });
    const compiled = new CompiledPolicy(doc, TOOLS);
    const oracle = freshFor(doc);
    for (const id of [NFC, NFD]) {
      for (const context of [
        { ...base, teamIds: [id] },
        { ...base, senderId: id },
        { ...base, provider: `p${id}` },
        { ...base, provider: `P${id.toUpperCase()}` },
      ]) {
        expect(snapshot(compiled.resolve(context))).toEqual(snapshot(oracle(context)));
      }
    }
    const admin: PolicyContext = { ...base, roles: ["admin"], mode: "coding", teamIds: [] };
    expect(compiled.resolve({ ...admin, teamIds: [NFC] }).check("exec").allowed).toBe(false);
    expect(compiled.resolve({ ...admin, teamIds: [NFD] }).check("exec").allowed).toBe(true);
    expect(compiled.resolve({ ...admin, provider: `P${NFC.toUpperCase()}` }).check("write").allowed).toBe(false);
  });
});

/** resolveProviderKey and the apply_patch rule as they were before the chooser (git show 4bbe85c:lib/policy/compiled-policy.ts). */
function oldProviderKey(
  byProvider: Readonly<Record<string, unknown>> | undefined,
  provider?: string,
  model?: string,
): string | undefined {
  if (!byProvider || !provider) return undefined;
  const p = provider.trim().toLowerCase();
  const m = model?.trim().toLowerCase();
  const full = m ? (m.startsWith(`${p}/`) ? m : `${p}/${m}`) : undefined;
  const keys = Object.keys(byProvider);
  return keys.find((key) => key.toLowerCase() === full) ?? keys.find((key) => key.toLowerCase() === p);
}
const oldApplyPatchListed = (entries: readonly string[], provider?: string) => {
  const p = provider?.trim().toLowerCase() ?? "";
  return entries.some((entry) => entry.toLowerCase() === p);
};

describe("provider choice against the previous resolveProviderKey", () => {
  const atoms = [
    "openai",
    "OpenAI",
    "gpt-4o",
    "GPT-4o",
    "/",
    " ",
    "\u0130",
    "i\u0307",
    "\u03a3",
    "\u03c3",
    "\u03c2",
    "\u1e9e",
    "ss",
    "\u212a",
    "k",
    "\ufb00",
    "ff",
    "a",
    "A",
    "1",
    "constructor",
  ];
  const text = fc.array(fc.constantFrom(...atoms), { maxLength: 4 }).map((parts) => parts.join(""));
  const anyText = fc.oneof(
    text,
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.string({ unit: "grapheme", maxLength: 4 }),
  );

  it("property: the same keys for any provider, model and table, in one chooser asked many times", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          anyText.filter((key) => key.trim().length > 0),
          { maxLength: 8 },
        ),
        fc.uniqueArray(
          anyText.filter((key) => key.trim().length > 0),
          { maxLength: 5 },
        ),
        fc.uniqueArray(fc.constantFrom("openai", "OpenAI", "\u0130", "i\u0307", "\u03a3", "mock"), { maxLength: 3 }),
        fc.array(
          fc.tuple(
            fc.constantFrom("a", "b", undefined),
            fc.option(anyText, { nil: undefined }),
            fc.option(anyText, { nil: undefined }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (toolKeys, agentKeys, applyPatchProviders, asks) => {
          const byProvider = Object.fromEntries(toolKeys.map((key) => [key.trim(), {}]));
          const agentByProvider = Object.fromEntries(agentKeys.map((key) => [key.trim(), {}]));
          const parsed = parsePolicyDocument({
            tools: { byProvider },
            agents: { a: { name: "A", tools: { byProvider: agentByProvider } } },
            exec: { applyPatchProviders },
          });
          if (!parsed.ok) return;
          const doc = parsed.document;
          const chooser = new ProviderChooser(doc);
          const byId = new Map<string, string>();
          for (const [agentId, provider, model] of asks) {
            const choice = chooser.choose(agentId, provider, model);
            const agentTable = agentId === "a" ? doc.agents.a!.tools.byProvider : undefined;
            expect(choice.toolsKey).toBe(oldProviderKey(doc.tools.byProvider, provider, model));
            expect(choice.agentKey).toBe(oldProviderKey(agentTable, provider, model));
            expect(choice.applyPatchListed).toBe(oldApplyPatchListed(doc.exec.applyPatchProviders, provider));
            // Under one agent, one id names one (tools key, agent key, apply_patch).
            const what = `${choice.toolsKey}\u0000${choice.agentKey}\u0000${choice.applyPatchListed}`;
            const at = `${agentId}:${choice.id}`;
            expect(byId.get(at) ?? what).toBe(what);
            byId.set(at, what);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("OpenAI vs openai, openai/gpt-4o vs openai/GPT-4o: the first key in document order wins, as before", () => {
    const doc = openDoc({
      tools: {
        byProvider: {
          OpenAI: { deny: ["exec"] },
          openai: { deny: ["read"] },
          "openai/GPT-4o": { deny: ["write"] },
          "OpenAI/gpt-4o": { deny: ["edit"] },
        },
      },
    });
    const compiled = new CompiledPolicy(doc, TOOLS);
    const oracle = freshFor(doc);
    for (const [provider, model] of [
      ["openai", "gpt-4o"],
      ["OPENAI", "GPT-4O"],
      ["openai", "openai/gpt-4o"],
      ["OpenAI", undefined],
      [" openai ", " gpt-4o "],
      ["openai", "gpt-4o-mini"],
    ] as const) {
      const context = { ...base, provider, model, mode: "coding" as const, roles: ["admin" as const], teamIds: [] };
      const policy = compiled.resolve(context);
      expect(snapshot(policy)).toEqual(snapshot(oracle(context)));
      expect(policy.check("exec").allowed).toBe(model === undefined || model === "gpt-4o-mini" ? false : true);
      expect(policy.check("write").allowed).toBe(model === undefined || model === "gpt-4o-mini");
    }
  });
});
