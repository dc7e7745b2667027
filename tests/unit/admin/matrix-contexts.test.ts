// Issue 33: the matrix opens on a real person with their granted modes, and previews compare the contexts a
// change touches, so an OpenClaw import that denies exec to an agent shows that agent's exec cell flipping.
import { describe, expect, it } from "vitest";
import { buildPolicyMatrix, diffMatrices, type MatrixContext } from "@/lib/admin/matrix";
import {
  defaultMatrixContext,
  describeMatrixContext,
  grantedModesOf,
  leftOutNote,
  previewContexts,
  previewPlan,
  type ContextUser,
} from "@/lib/admin/matrix-contexts";
import { importOpenClawConfig, parseOpenClawText } from "@/lib/admin/openclaw-import";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import type { PolicyDocument } from "@/lib/policy";
import { doc, TOOLS } from "./fixtures";

const USERS: ContextUser[] = [
  { id: "u-admin", email: "admin@example.com", name: "Ada Admin", roles: ["member", "owner", "admin"], teamIds: [] },
  { id: "u-owner", email: "owner@example.com", name: "Olivia Owner", roles: ["member", "owner"], teamIds: [] },
  { id: "u-member", email: "member@example.com", name: "Max Member", roles: ["member"], teamIds: [] },
];

/** What the effective route does with a context input (toMatrixContext): senderIsOwner only for an owner. */
const ctx = (input: MatrixContextInput): MatrixContext => ({
  ...input,
  roles: input.roles ?? ["member"],
  senderIsOwner: (input.roles ?? []).includes("owner"),
});
const flipsFor = (context: MatrixContextInput, before: PolicyDocument, after: PolicyDocument) =>
  diffMatrices(
    buildPolicyMatrix({ context: ctx(context), document: before, tools: TOOLS }),
    buildPolicyMatrix({ context: ctx(context), document: after, tools: TOOLS }),
  );

describe("the matrix's default context", () => {
  it("with default grants: the owner (the least privileged person granted coding), not the bare role member", () => {
    const context = defaultMatrixContext(doc(), USERS);
    expect(context).toEqual({ roles: ["member", "owner"], senderId: "u-owner", provider: "offline" });
    const matrix = buildPolicyMatrix({ context: ctx(context), document: doc(), tools: TOOLS });
    expect(matrix.columns.every((c) => c.granted)).toBe(true);
  });

  it("a plain member granted every mode (by e-mail in the editor, by id when stored, or by team) wins over the owner", () => {
    expect(
      defaultMatrixContext(doc({ modeGrants: { users: { "member@example.com": ["coding"] } } }), USERS).senderId,
    ).toBe("u-member");
    expect(defaultMatrixContext(doc({ modeGrants: { users: { "u-member": ["coding"] } } }), USERS).senderId).toBe(
      "u-member",
    );
    const inTeam = [...USERS.slice(0, 2), { ...USERS[2]!, teamIds: ["eng"] }];
    expect(defaultMatrixContext(doc({ modeGrants: { teams: { eng: ["coding"] } } }), inTeam)).toEqual({
      roles: ["member"],
      teamIds: ["eng"],
      senderId: "u-member",
      provider: "offline",
    });
  });

  it("skips inactive people; with nobody, the role set with the most modes", () => {
    expect(
      defaultMatrixContext(
        doc(),
        USERS.map((u) => ({ ...u, active: u.id === "u-member" })),
      ).senderId,
    ).toBe("u-member");
    expect(defaultMatrixContext(doc(), [])).toEqual({ roles: ["member", "owner"], provider: "offline" });
    expect(defaultMatrixContext(doc({ modeGrants: { roles: { member: ["chat_safe", "coding"] } } }), [])).toEqual({
      roles: ["member"],
      provider: "offline",
    });
  });

  it("says in one line whose matrix it is and which modes are granted", () => {
    expect(describeMatrixContext(defaultMatrixContext(doc(), USERS), doc(), USERS)).toBe(
      "Context: Olivia Owner (owner@example.com), roles member and owner, no agent, provider offline. Granted chat_safe and coding.",
    );
    expect(describeMatrixContext({ roles: ["member"], agentId: "coder", teamIds: ["eng"] }, doc(), USERS)).toBe(
      "Context: a person with roles member, team eng, agent coder, provider offline. Granted chat_safe; coding not granted (evaluated as chat_safe).",
    );
    expect(grantedModesOf(USERS[2]!, doc())).toEqual(["chat_safe"]);
  });
});

describe("preview contexts of a change", () => {
  const base = { label: "owner@example.com", context: defaultMatrixContext(doc(), USERS) };

  it("names each agent and team of either document, the touched ones first, after the base context", () => {
    const before = doc({ agents: { a: { name: "A" }, b: { name: "B" } }, teams: { eng: { deny: ["write"] } } });
    const after = doc({
      agents: { a: { name: "A" }, b: { name: "B", tools: { deny: ["exec"] } } },
      teams: { eng: { deny: ["write"] }, ops: {} },
    });
    const labels = previewContexts({ before, after, base }).map((c) => c.label);
    expect(labels).toEqual([
      "owner@example.com",
      "owner@example.com with agent b",
      "owner@example.com in team ops",
      "owner@example.com with agent a",
      "owner@example.com in team eng",
    ]);
    expect(previewContexts({ before, after, base, limit: 2 }).map((c) => c.label)).toEqual([
      "owner@example.com",
      "owner@example.com with agent b",
    ]);
  });

  it("a team whose mode grants or sandboxing change is touched; a team the person is in is not added twice", () => {
    const before = doc({ teams: { a: {}, b: {}, c: {} } });
    const after = doc({
      teams: { a: {}, b: {}, c: {} },
      modeGrants: { teams: { c: ["coding"] } },
      sandbox: { sandboxed: { teams: ["b"] } },
    });
    const person = { label: "p", context: { roles: ["member" as const], teamIds: ["a"], senderId: "x" } };
    const contexts = previewContexts({ before, after, base: person });
    expect(contexts.map((c) => c.label)).toEqual(["p", "p in team b", "p in team c"]);
    expect(contexts[1]!.context.teamIds).toEqual(["a", "b"]);
  });

  it("the base context alone misses an agent-only change; the agent's context shows exec flipping", () => {
    const before = doc({ version: 1, agents: { coder: { name: "Coder" } } });
    const after = doc({ version: 1, agents: { coder: { name: "Coder", tools: { deny: ["exec"] } } } });
    const contexts = previewContexts({ before, after, base });
    expect(flipsFor(contexts[0]!.context, before, after)).toEqual([]);
    expect(flipsFor(contexts[1]!.context, before, after)).toEqual([
      { tool: "exec", mode: "coding", from: "ask", to: "denied" },
    ]);
    // The old preview's context (the bare role member) saw nothing even with the agent: coding was not granted.
    expect(flipsFor({ roles: ["member"], agentId: "coder" }, before, after)).toEqual([]);
  });

  it("an OpenClaw import that denies exec to an agent flips that agent's exec cell", () => {
    const before = doc({ version: 1, agents: { coder: { name: "Coder" } } });
    const raw = parseOpenClawText("{ agents: { list: [ { id: 'coder', tools: { deny: ['exec'] } } ] } }");
    const imported = importOpenClawConfig(raw, before, TOOLS);
    const after = doc(imported.document);
    const flips = previewContexts({ before, after, base }).map((c) => ({
      label: c.label,
      flips: flipsFor(c.context, before, after),
    }));
    expect(flips).toEqual([
      { label: "owner@example.com", flips: [] },
      {
        label: "owner@example.com with agent coder",
        flips: [{ tool: "exec", mode: "coding", from: "ask", to: "denied" }],
      },
    ]);
  });

  it("past the cap, the agents and teams left out are named (touched ones first), and said in one line", () => {
    const agents = Object.fromEntries(["a1", "a2", "a3", "a4", "a5"].map((id) => [id, { name: id }]));
    const before = doc({ agents, teams: { t1: {}, t2: {} } });
    const after = doc({ agents: { ...agents, a5: { name: "renamed" } }, teams: { t1: {}, t2: { deny: ["exec"] } } });
    const plan = previewPlan({ before, after, base, limit: 4 });
    expect(plan.contexts.map((c) => c.label)).toEqual([
      "owner@example.com",
      "owner@example.com with agent a5",
      "owner@example.com in team t2",
      "owner@example.com with agent a1",
    ]);
    expect(plan.leftOut).toEqual({ agents: ["a2", "a3", "a4"], teams: ["t1"] });
    expect(leftOutNote(plan.leftOut)).toBe("3 more agents not compared: a2, a3 and a4; 1 more team not compared: t1");
    // Within the cap nothing is left out, and nothing is said.
    const all = previewPlan({ before, after, base, limit: 12 });
    expect(all.leftOut).toEqual({ agents: [], teams: [] });
    expect(leftOutNote(all.leftOut)).toBeUndefined();
    expect(previewContexts({ before, after, base, limit: 4 })).toEqual(plan.contexts);
  });

  it("a long list of left-out names is cut, with how many more", () => {
    const names = Array.from({ length: 14 }, (_, i) => `agent${String(i).padStart(2, "0")}`);
    expect(leftOutNote({ agents: names, teams: [] })).toBe(
      "14 more agents not compared: agent00, agent01, agent02, agent03, agent04, agent05, agent06, agent07, agent08, agent09 and 4 others",
    );
  });
});
