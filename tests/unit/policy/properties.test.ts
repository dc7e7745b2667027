// A row id at the start of a test name (a letter and a number) names a row of docs/requirements.md.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildPluginToolGroups,
  computeEffectiveModes,
  DEFAULT_SANDBOX_TOOL_POLICY,
  isToolAllowedByPolicyName,
  POLICY_LAYERS,
  resolveEffectiveToolPolicy,
  TOOL_MODES,
  ToolRegistry,
  type PolicyContext,
  type PolicyDocumentInput,
  type ToolMode,
} from "@/lib/policy";
import { openDoc, tool, TOOLS } from "./fixtures";

const ENTRIES = [
  ...TOOLS.map((t) => t.name),
  "group:fs",
  "group:web",
  "group:runtime",
  "group:sessions",
  "group:plugins",
  "github",
  "web_*",
  "sessions_*",
  "*",
  "bash",
  "apply-patch",
];
const entry = fc.constantFrom(...ENTRIES);
const list = fc.array(entry, { maxLength: 4 });
const policy = fc.record({ allow: list, deny: list }, { requiredKeys: [] });
const modes = fc.subarray([...TOOL_MODES]);

const documentArb: fc.Arbitrary<PolicyDocumentInput> = fc.record(
  {
    tools: fc.record(
      {
        profile: fc.constantFrom("minimal", "coding", "messaging", "full"),
        allow: list,
        deny: list,
        byProvider: fc.record({ mock: policy }),
      },
      { requiredKeys: [] },
    ),
    agents: fc.record({
      a1: fc.record({
        name: fc.constant("A1"),
        tools: fc.record({ allow: list, deny: list, byProvider: fc.record({ mock: policy }) }, { requiredKeys: [] }),
      }),
    }),
    teams: fc.record({ ops: policy }),
    senders: fc.record({ u1: policy }),
    sandbox: fc.record({ tools: policy }),
    subagents: fc.record({ maxSpawnDepth: fc.integer({ min: 0, max: 3 }), tools: policy }),
    modeOverrides: fc.dictionary(fc.constantFrom(...TOOLS.map((t) => t.name)), modes, { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);

const contextArb: fc.Arbitrary<PolicyContext> = fc.record({
  roles: fc.subarray(["member", "owner", "admin"] as const, { minLength: 1 }).map((r) => [...r]),
  senderIsOwner: fc.boolean(),
  mode: fc.constantFrom(...TOOL_MODES),
  provider: fc.constant("mock"),
  agentId: fc.constantFrom(undefined, "a1"),
  teamIds: fc.constantFrom(undefined, ["ops"]),
  senderId: fc.constantFrom(undefined, "u1"),
  sandboxed: fc.boolean(),
  subagentDepth: fc.integer({ min: 0, max: 3 }),
});

const allowedSet = (input: PolicyDocumentInput, context: PolicyContext) =>
  new Set(resolveEffectiveToolPolicy(context, { document: openDoc(input), tools: TOOLS }).allowedTools);

describe("properties", () => {
  it("a tool is allowed iff no layer in its chain removed it, and the decision names the first removing layer", () => {
    fc.assert(
      fc.property(documentArb, contextArb, (input, context) => {
        const policy = resolveEffectiveToolPolicy(context, { document: openDoc(input), tools: TOOLS });
        for (const decision of Object.values(policy.tools)) {
          const first = decision.chain.find((e) => e.outcome === "removed");
          expect(decision.allowed).toBe(first === undefined);
          expect(decision.layer).toBe(first?.layer ?? "allowed");
          expect(decision.chain.map((e) => e.layer)).toEqual([...POLICY_LAYERS]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("L2 a later layer can never add a tool an earlier one removed: adding restrictions only shrinks the allowed set", () => {
    fc.assert(
      fc.property(
        documentArb,
        contextArb,
        policy,
        fc.constantFrom("teams", "senders", "agent", "sandbox", "subagents", "global"),
        (input, context, extra, where) => {
          const before = allowedSet(input, context);
          const tightened: PolicyDocumentInput = structuredClone(input);
          const deny = [...(extra.deny ?? []), "exec"];
          if (where === "teams")
            tightened.teams = {
              ...tightened.teams,
              ops: { ...tightened.teams?.ops, deny: [...(tightened.teams?.ops?.deny ?? []), ...deny] },
            };
          if (where === "senders")
            tightened.senders = {
              u1: { ...tightened.senders?.u1, deny: [...(tightened.senders?.u1?.deny ?? []), ...deny] },
            };
          if (where === "agent")
            tightened.agents = {
              a1: {
                name: "A1",
                tools: {
                  ...tightened.agents?.a1?.tools,
                  deny: [...(tightened.agents?.a1?.tools?.deny ?? []), ...deny],
                },
              },
            };
          // A configured sandbox policy replaces the default one, so tighten starting from whatever is in force.
          const sandboxTools = tightened.sandbox?.tools ?? DEFAULT_SANDBOX_TOOL_POLICY;
          if (where === "sandbox")
            tightened.sandbox = {
              tools: {
                ...sandboxTools,
                allow: sandboxTools.allow && [...sandboxTools.allow],
                deny: [...(sandboxTools.deny ?? []), ...deny],
              },
            };
          if (where === "subagents")
            tightened.subagents = {
              ...tightened.subagents,
              tools: { ...tightened.subagents?.tools, deny: [...(tightened.subagents?.tools?.deny ?? []), ...deny] },
            };
          if (where === "global")
            tightened.tools = { ...tightened.tools, deny: [...(tightened.tools?.deny ?? []), ...deny] };
          const after = allowedSet(tightened, context);
          for (const name of after) expect(before.has(name)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("whatever later layers allow, a tool denied by the global layer stays denied", () => {
    fc.assert(
      fc.property(documentArb, contextArb, fc.constantFrom(...TOOLS.map((t) => t.name)), (input, context, name) => {
        const everythingLater: PolicyDocumentInput = {
          ...input,
          tools: { ...input.tools, deny: [name] },
          agents: { a1: { name: "A1", tools: { allow: ["*", name] } } },
          teams: { ops: { allow: [name] } },
        };
        const decision = resolveEffectiveToolPolicy(context, {
          document: openDoc(everythingLater),
          tools: TOOLS,
        }).check(name);
        expect(decision.allowed).toBe(false);
        expect(POLICY_LAYERS.indexOf(decision.layer as (typeof POLICY_LAYERS)[number])).toBeLessThanOrEqual(
          POLICY_LAYERS.indexOf("global"),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("L16 deny always beats allow", () => {
    const plugins = buildPluginToolGroups(TOOLS);
    fc.assert(
      fc.property(list, list, fc.constantFrom(...TOOLS.map((t) => t.name)), (allow, deny, name) => {
        const denied = !isToolAllowedByPolicyName(name, { deny }, plugins);
        if (denied)
          expect(
            isToolAllowedByPolicyName(name, { allow: [...allow, name, "*"], alsoAllow: [name], deny }, plugins),
          ).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("an override can only tighten (helper, registry and document)", () => {
    fc.assert(
      fc.property(modes, modes, contextArb, (declared, override, context) => {
        const effective = computeEffectiveModes(declared, override);
        for (const mode of effective) {
          expect(declared).toContain(mode);
          expect(override).toContain(mode);
        }
        const registry = new ToolRegistry({ logger: { warn: () => {} } });
        registry.register(tool("t", declared));
        const loosens = override.some((mode: ToolMode) => !declared.includes(mode));
        if (loosens) expect(() => registry.setModeOverride("t", override)).toThrow();
        else registry.setModeOverride("t", override);
        for (const mode of registry.getEffectiveModes("t")) expect(declared).toContain(mode);
        const tools = [{ name: "t", allowedModes: declared }];
        const without = resolveEffectiveToolPolicy(context, { document: openDoc(), tools }).check("t").allowed;
        const withOverride = resolveEffectiveToolPolicy(context, {
          document: openDoc({ modeOverrides: { t: override } }),
          tools,
        }).check("t").allowed;
        if (withOverride) expect(without).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
