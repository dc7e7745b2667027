// Who may chat as which agent (lib/policy/agent-access.ts): fail closed when the document says nothing.
import { describe, expect, it } from "vitest";
import { agentsUsableBy, isAgentUsableBy, parsePolicyDocument, type PolicyDocument } from "@/lib/policy";

function doc(input: unknown): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

const member = { id: "u_member", email: "Mia@Example.test", roles: ["member" as const], teamIds: ["research"] };
const owner = { id: "u_owner", email: "owner@example.test", roles: ["member" as const, "owner" as const], teamIds: [] };
const admin = { id: "u_admin", email: "admin@example.test", roles: ["admin" as const], teamIds: [] };

const document = doc({
  agents: {
    open: { name: "Open", usableBy: { roles: ["member"] } },
    team: { name: "Team", usableBy: { teams: ["research"] } },
    named: { name: "Named", usableBy: { users: ["mia@example.test"] } },
    byId: { name: "By id", usableBy: { users: ["u_owner"] } },
    owners: { name: "Owners", usableBy: { roles: ["owner"] } },
    silent: { name: "Silent" },
  },
});

describe("agentsUsableBy", () => {
  it("a member gets the agents their role, team, e-mail (any case) or id names; an agent without usableBy is admins only", () => {
    expect(agentsUsableBy(document, member)).toEqual(["named", "open", "team"]);
    expect(agentsUsableBy(document, owner)).toEqual(["byId", "open", "owners"]);
    expect(agentsUsableBy(document, admin)).toEqual(["byId", "named", "open", "owners", "silent", "team"]);
  });

  it("an unknown agent and a prototype key are never usable, not even by an admin", () => {
    expect(isAgentUsableBy(document, "nope", admin)).toBe(false);
    expect(isAgentUsableBy(document, "__proto__", admin)).toBe(false);
    expect(isAgentUsableBy(document, "toString", member)).toBe(false);
    expect(isAgentUsableBy(document, "silent", member)).toBe(false);
  });

  it("old documents (no usableBy, no starters) still parse; bad entries are refused with a path", () => {
    expect(
      doc({ agents: { coder: { name: "Coder", persona: "x", model: "offline", tools: { deny: ["exec"] } } } }).agents
        .coder?.usableBy,
    ).toBeUndefined();
    const bad = parsePolicyDocument({ agents: { a: { name: "A", usableBy: { roles: ["root"] } } } });
    expect(bad.ok).toBe(false);
    const extra = parsePolicyDocument({ agents: { a: { name: "A", usableBy: { everyone: true } } } });
    expect(extra.ok ? [] : extra.issues.map((i) => i.path)).toEqual(["agents.a.usableBy.everyone"]);
  });
});
