// Issue 33, over HTTP against a built app on each database: the inbox list's filters, its text search (read
// literally: `%`, `_` and `\` are text, not wildcards, and case is ignored alike on SQLite and PostgreSQL), keyset
// paging that reaches every request exactly once (ties in createdAt, rows arriving while paging), the capped total,
// readable records (chat titles, names, "withdrawn by the requester"), bulk deny with its refusals, and the risk-cue
// filter: stored at registration, backfilled for rows from before it, paged to every match, members refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { HttpClient, signedIn } from "../support/http-client";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { seedApprovals, seedSession } from "../support/inbox-seed";
import { createDb, type Db } from "@/lib/db/client";

type Listed = {
  id: string;
  command: string | null;
  sessionTitle: string | null;
  requester: { email: string; name: string | null };
  outcome: string;
  status: string;
};
type Page = { approvals: Listed[]; nextCursor: string | null; total: number; totalCapped: boolean };

describe.each(databaseTargets())("inbox list (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let db: Db;
  let app: RunningApp;
  let owner: HttpClient;
  let member: HttpClient;
  let memberId: string;
  let adminId: string;
  const ids: Record<string, string | undefined> = {};

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    db = createDb(target.url);
    // A request from before riskKinds existed: the worker's backfill assesses it once the app starts.
    const legacyRequester = await db.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
    const legacySession = await seedSession(db, { ownerId: legacyRequester.id, title: "Legacy chat" });
    [ids.legacy] = await seedApprovals(db, {
      sessionId: legacySession,
      requesterId: legacyRequester.id,
      requests: [{ command: "rm -rf legacy", riskKinds: null }],
    });
    app = await startApp({ databaseUrl: target.url });
    owner = await signedIn(app.url, "owner@example.com");
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
    adminId = (await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } })).id;
    const report = await seedSession(db, { ownerId: memberId, title: "Quarterly report chat", agentId: "writer" });
    const other = await seedSession(db, { ownerId: adminId, title: "Ops chat" });
    const literal = await seedApprovals(db, {
      sessionId: report,
      requesterId: memberId,
      requests: [
        { command: "echo 100% done" },
        { command: "touch a_b" },
        { command: "cat C:\\temp" },
        { command: "echo UPPER Case" },
        { command: "echo plain" },
      ],
    });
    [ids.percent, ids.underscore, ids.backslash, ids.upper, ids.plain] = literal;
    [ids.web] = await seedApprovals(db, {
      sessionId: other,
      requesterId: adminId,
      requests: [{ toolName: "web.fetch", args: { url: "https://example.org" }, requesterNote: "need the docs" }],
    });
    [ids.withdrawn] = await seedApprovals(db, {
      sessionId: report,
      requesterId: memberId,
      requests: [{ command: "echo gone", status: "expired", resolveReason: "the requester stopped the run" }],
    });
    await db.team.create({ data: { id: "ops", name: "Ops", members: { create: [{ userId: adminId }] } } });
  });

  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    await target?.drop?.();
  });

  const list = async (query: string) => {
    const res = await owner.json<Page>(`/api/approvals?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const idsOf = (page: Page) => page.approvals.map((a) => a.id).sort();

  it("search reads %, _ and \\ literally and ignores case, on this database", async () => {
    expect(idsOf(await list(`q=${encodeURIComponent("%")}`))).toEqual([ids.percent]);
    expect(idsOf(await list(`q=${encodeURIComponent("_")}`))).toEqual([ids.underscore]);
    expect(idsOf(await list(`q=${encodeURIComponent("\\")}`))).toEqual([ids.backslash]);
    expect(idsOf(await list(`q=${encodeURIComponent("0%")}`))).toEqual([ids.percent]);
    expect(idsOf(await list(`q=${encodeURIComponent("a_b")}`))).toEqual([ids.underscore]);
    // `a%b` would match "a_b" (and more) if % were a wildcard.
    expect((await list(`q=${encodeURIComponent("a%b")}`)).approvals).toEqual([]);
    expect(idsOf(await list("q=upper%20case"))).toEqual([ids.upper]);
    expect(idsOf(await list("q=UPPER%20CASE"))).toEqual([ids.upper]);
  });

  it("search finds a request by its chat's title, its requester's e-mail or name, its note and its arguments", async () => {
    const report = [ids.percent, ids.underscore, ids.backslash, ids.upper, ids.plain, ids.withdrawn].sort();
    expect(idsOf(await list("q=quarterly"))).toEqual(report);
    expect(idsOf(await list("q=max%20member"))).toEqual(report);
    expect(idsOf(await list("q=admin%40example"))).toEqual([ids.web]);
    expect(idsOf(await list("q=THE%20DOCS"))).toEqual([ids.web]);
    expect(idsOf(await list("q=example.org"))).toEqual([ids.web]);
  });

  it("filters narrow by status, requester, tool, kind, agent and team, and combine", async () => {
    expect(idsOf(await list("status=expired"))).toEqual([ids.withdrawn]);
    expect(idsOf(await list("status=decided"))).toEqual([ids.withdrawn]);
    expect(idsOf(await list("requester=ADMIN%40example.com"))).toEqual([ids.web]);
    expect(idsOf(await list("tool=web.fetch"))).toEqual([ids.web]);
    expect(idsOf(await list("kind=tool"))).toEqual([ids.web]);
    expect((await list("agent=writer")).approvals).toHaveLength(6);
    expect(idsOf(await list("team=ops"))).toEqual([ids.web]);
    expect(idsOf(await list("status=pending&agent=writer&q=plain"))).toEqual([ids.plain]);
    expect((await list("requester=nobody%40example.com")).approvals).toEqual([]);
  });

  it("records are readable: chat title, the requester's name, and a stopped request reads 'withdrawn by the requester'", async () => {
    const page = await list("agent=writer");
    const withdrawn = page.approvals.find((a) => a.id === ids.withdrawn)!;
    expect(withdrawn).toMatchObject({
      outcome: "withdrawn by the requester",
      sessionTitle: "Quarterly report chat",
      requester: { email: "member@example.com", name: "Max Member" },
    });
    expect(page.approvals.find((a) => a.id === ids.plain)!.outcome).toBe("pending");
    const detail = await owner.json(`/api/approvals/${ids.withdrawn}`);
    expect(detail.body.approval.outcome).toBe("withdrawn by the requester");
  });

  it("keyset pages reach every request exactly once, newest first, also with equal createdAt and rows arriving meanwhile", async () => {
    const session = await seedSession(db, { ownerId: memberId, title: "Paging chat" });
    const same = new Date(Date.now() - 3_600_000);
    const seeded = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: Array.from({ length: 250 }, (_, i) => ({
        command: `echo page ${i}`,
        createdAt: i % 2 ? same : new Date(same.getTime() - i),
      })),
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(`q=echo%20page&limit=37${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.approvals.map((a) => a.id));
      cursor = page.nextCursor;
      // A request arriving while the owner pages is newer than every cursor: it neither repeats nor shifts a page.
      if (pages++ === 1)
        await seedApprovals(db, {
          sessionId: session,
          requesterId: memberId,
          requests: [{ command: "echo page late" }],
        });
    } while (cursor);
    expect(pages).toBe(Math.ceil(250 / 37));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...seeded].sort());
    await db.approval.deleteMany({ where: { sessionId: session } });
  });

  it("the total is counted to 1000 and then says more", async () => {
    const session = await seedSession(db, { ownerId: memberId, title: "Flood chat" });
    await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: Array.from({ length: 1_005 }, (_, i) => ({ command: `echo flood ${i}` })),
    });
    const page = await list("status=pending&limit=10");
    expect(page).toMatchObject({ total: 1_000, totalCapped: true });
    expect(page.approvals).toHaveLength(10);
    const small = await list("status=pending&q=upper");
    expect(small).toMatchObject({ total: 1, totalCapped: false });
    await db.approval.deleteMany({ where: { sessionId: session } });
  });

  it("bad input is a 422 naming the problem; an unknown cursor is an empty page; a member is refused", async () => {
    for (const query of [
      "risk=scary",
      "risk=first-use",
      "risk=",
      "risk=destructive,,network",
      "risk=DESTRUCTIVE",
      "limit=0",
      "limit=501",
      "cursor=..%2Fx",
      `q=${"x".repeat(201)}`,
      "q=a%00b",
      "q=%20",
      "status=open",
      "requester=not-an-email",
      "kind=shell",
      "sort=id",
      "team=",
    ]) {
      const res = await owner.json(`/api/approvals?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe("VALIDATION_FAILED");
      expect(JSON.stringify(res.body), query).not.toMatch(/prisma|sqlite|SELECT|\/work\//i);
    }
    expect(await list("cursor=nosuchapproval")).toMatchObject({ approvals: [], nextCursor: null });
    expect((await member.json("/api/approvals")).status).toBe(403);
    expect((await member.json("/api/approvals/bulk-deny", { method: "POST", body: { ids: [ids.plain] } })).status).toBe(
      403,
    );
    expect((await db.approval.findUniqueOrThrow({ where: { id: ids.plain } })).status).toBe("pending");
  });

  it("risk filter: keyset pages reach every request carrying the cue, any of several, and nothing else", async () => {
    const session = await seedSession(db, { ownerId: memberId, title: "Risk chat" });
    const same = new Date(Date.now() - 7_200_000);
    const at = (i: number) => (i % 3 ? same : new Date(same.getTime() - i));
    const destructive = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: Array.from({ length: 60 }, (_, i) => ({ command: `rm -rf build-${i}`, createdAt: at(i) })),
    });
    const network = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: Array.from({ length: 40 }, (_, i) => ({ command: `curl https://example.org/${i}`, createdAt: at(i) })),
    });
    const both = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: [
        { command: "curl https://example.org/x > out.txt" },
        { toolName: "write", args: { path: "/etc/hosts", content: "x" } },
      ],
    });
    await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: Array.from({ length: 50 }, (_, i) => ({ command: `echo calm ${i}`, createdAt: at(i) })),
    });
    const pageAll = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await list(`q=risk%20chat&${query}&limit=9${cursor ? `&cursor=${cursor}` : ""}`);
        seen.push(...page.approvals.map((a) => a.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      return seen.sort();
    };
    expect(await pageAll("risk=destructive")).toEqual([...destructive, ...both].sort());
    expect(await pageAll("risk=network")).toEqual([...network, both[0]!].sort());
    expect(await pageAll("risk=destructive,network")).toEqual([...destructive, ...network, ...both].sort());
    expect(await pageAll("risk=outside-workspace")).toEqual([both[1]!]);
    expect((await list("q=risk%20chat&risk=destructive&limit=5")).total).toBe(62);
    // Combined with the other filters as one more condition.
    expect(await pageAll("risk=network&status=pending&kind=exec")).toEqual([...network, both[0]!].sort());
    expect((await list("q=risk%20chat&risk=network&kind=tool")).approvals).toEqual([]);
    await db.approval.deleteMany({ where: { sessionId: session } });
  });

  it("risk cues are stored when a request is registered; a row from before is backfilled, and shown by every risk filter until then", async () => {
    const session = await db.chatSession.create({
      data: { ownerId: memberId, title: "Registered chat", mode: "coding" },
    });
    const res = await member.json("/api/approvals", {
      method: "POST",
      body: {
        sessionId: session.id,
        toolName: "exec",
        callId: "risky",
        args: { command: "wget https://example.org/x -O /tmp/x" },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await db.approval.findUniqueOrThrow({ where: { id: res.body.id } })).riskKinds).toBe(
      ",network,outside-workspace,",
    );
    expect(idsOf(await list("q=registered%20chat&risk=outside-workspace"))).toEqual([res.body.id]);
    expect((await list("q=registered%20chat&risk=destructive")).approvals).toEqual([]);
    // The worker assessed the row that predates the column, once, after start-up.
    await expect
      .poll(async () => (await db.approval.findUniqueOrThrow({ where: { id: ids.legacy } })).riskKinds, {
        timeout: 20_000,
      })
      .toBe(",destructive,");
    expect(idsOf(await list("q=legacy%20chat&risk=destructive"))).toEqual([ids.legacy]);
    expect((await list("q=legacy%20chat&risk=network")).approvals).toEqual([]);
    // A row not assessed is never hidden by a risk filter (fail closed: listed, not lost).
    await db.approval.update({ where: { id: ids.legacy }, data: { riskKinds: null } });
    expect(idsOf(await list("q=legacy%20chat&risk=network"))).toEqual([ids.legacy]);
    await db.approval.update({ where: { id: ids.legacy }, data: { riskKinds: ",destructive," } });
  });

  it("a member cannot list others' requests through the risk filter", async () => {
    for (const query of [
      "risk=destructive",
      "risk=destructive,network,outside-workspace,not-analysed",
      "risk=destructive&requester=admin%40example.com",
    ]) {
      const res = await member.json(`/api/approvals?${query}`);
      expect(res.status, query).toBe(403);
      expect(JSON.stringify(res.body)).not.toMatch(/rm -rf|legacy|example\.org/);
    }
  });

  it("bulk deny denies each pending request with its own audit row and reports the ones it could not", async () => {
    const session = await seedSession(db, { ownerId: memberId, title: "Bulk chat" });
    const pending = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: [{ command: "echo b1" }, { command: "echo b2" }, { command: "echo b3" }],
    });
    const [decided] = await seedApprovals(db, {
      sessionId: session,
      requesterId: memberId,
      requests: [{ command: "echo done", status: "approved" }],
    });
    const bad = [
      { ids: [] },
      { ids: Array.from({ length: 101 }, (_, i) => `id${i}`) },
      { ids: ["../x"] },
      { ids: [pending[0]], extra: 1 },
      { ids: "x" },
    ];
    for (const body of bad)
      expect(
        (await owner.json("/api/approvals/bulk-deny", { method: "POST", body })).status,
        JSON.stringify(body),
      ).toBe(422);
    const res = await owner.json("/api/approvals/bulk-deny", {
      method: "POST",
      body: { ids: [...pending, pending[0], decided, "nosuchapproval"], reason: "flood" },
    });
    expect(res.status).toBe(200);
    expect([...res.body.denied].sort()).toEqual([...pending].sort());
    expect(res.body.skipped.map((s: { id: string }) => s.id).sort()).toEqual([decided, "nosuchapproval"].sort());
    const rows = await db.approval.findMany({ where: { id: { in: pending } } });
    expect(rows.map((r) => [r.status, r.decision, r.resolveReason])).toEqual(
      pending.map(() => ["denied", "deny", "flood"]),
    );
    const audit = await db.auditLog.findMany({ where: { action: "approval.resolved", sessionId: session } });
    expect(audit).toHaveLength(3);
  });

  it("bulk deny keeps four eyes (an owner's own request is skipped) and needs a session", async () => {
    const ownerId = (await owner.json("/api/me")).body.user.id as string;
    const session = await seedSession(db, { ownerId, title: "Own chat" });
    const [own] = await seedApprovals(db, {
      sessionId: session,
      requesterId: ownerId,
      requests: [{ command: "echo mine" }],
    });
    const res = await owner.json("/api/approvals/bulk-deny", { method: "POST", body: { ids: [own] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ denied: [], skipped: [{ id: own }] });
    expect((await db.approval.findUniqueOrThrow({ where: { id: own } })).status).toBe("pending");
    const anonymous = await fetch(`${app.url}/api/approvals/bulk-deny`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ ids: [own] }),
    });
    expect(anonymous.status).toBe(401);
    expect((await fetch(`${app.url}/api/approvals?q=x`)).status).toBe(401);
  });
});
