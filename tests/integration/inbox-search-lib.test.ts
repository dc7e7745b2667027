// The inbox's text search and keyset pages in lib/db on each database, without an app (fast to rerun when the
// query changes): `%`, `_` and `\` are text, case is ignored alike, a forged cursor gives nothing, and pages of
// rows with one createdAt reach each row once. (tests/integration/inbox-list.test.ts checks the same over HTTP.)
import { beforeAll, describe, expect, it } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { databaseTargets } from "../support/databases";
import { seedApprovals, seedSession } from "../support/inbox-seed";

describe.each(databaseTargets())("inbox search in lib/db (%s)", (_kind, make) => {
  useDatabase(make);
  let lib: typeof import("@/lib/db/approvals");
  const ids: string[] = [];
  const commands = ["echo 100% done", "touch a_b", "cat C:\\temp", "echo UPPER Case", "echo plain", "echo ÉCOLE"];

  beforeAll(async () => {
    lib = await import("@/lib/db/approvals");
    const { getDb } = await import("@/lib/db/client");
    const db = getDb();
    const member = await db.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
    const sessionId = await seedSession(db, { ownerId: member.id, title: "Search chat" });
    ids.push(
      ...(await seedApprovals(db, {
        sessionId,
        requesterId: member.id,
        requests: commands.map((command) => ({ command, createdAt: new Date(1_800_000_000_000) })),
      })),
    );
  });

  const search = async (q: string) =>
    (await lib.listApprovalPage({ filter: { q }, limit: 100 })).rows.map((r) => r.command);

  it("reads wildcards and the escape character literally", async () => {
    expect(await search("%")).toEqual(["echo 100% done"]);
    expect(await search("_")).toEqual(["touch a_b"]);
    expect(await search("\\")).toEqual(["cat C:\\temp"]);
    expect(await search("a%b")).toEqual([]);
    expect(await search("a_b")).toEqual(["touch a_b"]);
    expect(await search("%%")).toEqual([]);
  });

  it("ignores ASCII case on both databases", async () => {
    expect(await search("upper case")).toEqual(["echo UPPER Case"]);
    expect(await search("PLAIN")).toEqual(["echo plain"]);
  });

  it("pages rows that share one createdAt by id, each once; an unknown cursor gives an empty page", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await lib.listApprovalPage({ filter: { q: "search chat" }, cursor, limit: 2 });
      seen.push(...page.rows.map((r) => r.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...ids].sort().reverse());
    expect((await lib.listApprovalPage({ filter: {}, cursor: "nosuchapproval", limit: 10 })).rows).toEqual([]);
    expect(await lib.countApprovals({ filter: { q: "search chat" }, cap: 3 })).toBe(4);
  });

  it("filters by stored risk kinds (any of them, one token each), and lists a row not yet assessed under every kind", async () => {
    const { getDb } = await import("@/lib/db/client");
    const db = getDb();
    const member = await db.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
    const sessionId = await seedSession(db, { ownerId: member.id, title: "Risk lib chat" });
    const [rm, curl, calm, old] = await seedApprovals(db, {
      sessionId,
      requesterId: member.id,
      requests: [
        { command: "rm -rf x" },
        { command: "curl https://example.org" },
        { command: "echo calm" },
        { command: "echo old", riskKinds: null },
      ],
    });
    const risky = async (riskKinds: string[]) =>
      (await lib.listApprovalPage({ filter: { q: "risk lib chat", riskKinds }, limit: 100 })).rows
        .map((r) => r.id)
        .sort();
    expect((await db.approval.findUniqueOrThrow({ where: { id: rm! } })).riskKinds).toBe(",destructive,");
    expect((await db.approval.findUniqueOrThrow({ where: { id: calm! } })).riskKinds).toBe("");
    expect(await risky(["destructive"])).toEqual([rm, old].sort());
    expect(await risky(["network"])).toEqual([curl, old].sort());
    expect(await risky(["destructive", "network"])).toEqual([rm, curl, old].sort());
    // "work" is part of "network" but not a kind: tokens match whole.
    expect(await risky(["work"])).toEqual([old]);
    expect(await lib.countApprovals({ filter: { q: "risk lib chat", riskKinds: ["destructive"] }, cap: 100 })).toBe(2);
    const { backfillRiskKinds } = await import("@/lib/approvals/risk-backfill");
    expect(await backfillRiskKinds()).toBeGreaterThanOrEqual(1);
    expect((await db.approval.findUniqueOrThrow({ where: { id: old! } })).riskKinds).toBe("");
    expect(await risky(["destructive"])).toEqual([rm]);
  });
});
