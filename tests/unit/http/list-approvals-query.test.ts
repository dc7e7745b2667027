// The inbox list's query: every filter is checked before it reaches the database, and named the way lib/db reads it.
import { describe, expect, it } from "vitest";
import { BulkDenyBody, ListApprovalsQuery } from "@/lib/http/approval-schemas";
import { formatLeft } from "@/components/approvals/expiry-countdown";

describe("ListApprovalsQuery", () => {
  it("maps the URL's names onto lib/db's filter, lower-casing the requester's e-mail", () => {
    expect(
      ListApprovalsQuery.parse({
        status: "decided",
        requester: "Max@Example.com",
        tool: "exec",
        agent: "writer",
        team: "ops",
        q: " 100% ",
        limit: "20",
        cursor: "abc_1",
      }),
    ).toEqual({
      status: "decided",
      requesterEmail: "max@example.com",
      toolName: "exec",
      agentId: "writer",
      teamId: "ops",
      q: "100%",
      limit: 20,
      cursor: "abc_1",
    });
  });

  it("refuses control characters, empty or long text, unknown keys, forged cursors", () => {
    for (const bad of [
      { q: "a\u0000b" },
      { q: "a\nb" },
      { q: "   " },
      { q: "x".repeat(201) },
      { tool: "" },
      { sort: "id" },
      { cursor: "../x" },
      { cursor: "a b" },
      { status: "open" },
      { requester: "nobody" },
      { limit: "0" },
    ])
      expect(ListApprovalsQuery.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it("bulk deny takes 1 to 100 ids", () => {
    expect(BulkDenyBody.safeParse({ ids: [] }).success).toBe(false);
    expect(BulkDenyBody.safeParse({ ids: Array.from({ length: 101 }, (_, i) => `a${i}`) }).success).toBe(false);
    expect(BulkDenyBody.safeParse({ ids: ["a1"], reason: "flood" }).success).toBe(true);
  });
});

describe("formatLeft", () => {
  it("minutes while more than one is left, then seconds, hours past one", () => {
    expect(formatLeft(0)).toBe("expired");
    expect(formatLeft(42_000)).toBe("0:42");
    expect(formatLeft(59_001)).toBe("1 min");
    expect(formatLeft(119_000)).toBe("1 min");
    expect(formatLeft(3_600_000)).toBe("1 h 0 min");
    expect(formatLeft(2 * 3_600_000 + 5 * 60_000 + 1)).toBe("2 h 5 min");
  });
});
