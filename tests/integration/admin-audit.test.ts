// The audit API: filters, server-side cursor pagination, and the chain check detecting an edited row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";
import { readUiStream } from "../support/ui-stream";
import { createDb, type Db } from "@/lib/db/client";

type AuditPage = {
  entries: Array<{ seq: number; sessionId: string | null; actorId: string | null; actorEmail: string | null }>;
  nextCursor: number | null;
};

describe.each(appTargets())("admin audit API (%s)", (_kind, app) => {
  let db: Db;
  let admin: HttpClient;
  let member: HttpClient;
  let memberId: string;
  const sessions: string[] = [];
  let startedAt: string;

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    admin = await signedIn(app.url, "admin@example.com");
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
    startedAt = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 5; i += 1)
      sessions.push((await member.json("/api/sessions", { method: "POST", body: {} })).body.id);
    // A member's /tool read in chat_safe is refused by the mode layer and recorded as a tool.call.
    const res = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        sessionId: sessions[0],
        message: { role: "user", parts: [{ type: "text", text: '/tool read {"path":"notes.md"}' }] },
      }),
    });
    await readUiStream(res);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  it("filters by user (e-mail or id), action and time, newest first", async () => {
    const byEmail = await admin.json<AuditPage>(
      `/api/audit?user=member@example.com&action=session.created&from=${encodeURIComponent(startedAt)}`,
    );
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.entries.map((e) => e.sessionId)).toEqual([...sessions].reverse());
    expect(byEmail.body.entries.every((e) => e.actorId === memberId && e.actorEmail === "member@example.com")).toBe(
      true,
    );
    const byId = await admin.json<AuditPage>(
      `/api/audit?user=${memberId}&action=session.created&from=${encodeURIComponent(startedAt)}`,
    );
    expect(byId.body.entries).toHaveLength(5);
    const future = await admin.json<AuditPage>(
      `/api/audit?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future.body.entries).toEqual([]);
    const past = await admin.json<AuditPage>(
      `/api/audit?action=session.created&to=${encodeURIComponent(startedAt)}&user=member@example.com`,
    );
    expect(past.body.entries.some((e) => e.sessionId !== null && sessions.includes(e.sessionId))).toBe(false);
    const nobody = await admin.json<AuditPage>("/api/audit?user=nobody@example.com");
    expect(nobody.body.entries).toEqual([]);
  });

  it("filters by session, tool, decision and layer", async () => {
    const res = await admin.json<AuditPage>(`/api/audit?session=${sessions[0]}&tool=read&decision=deny&layer=mode`);
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(1);
    expect(res.body.entries[0]).toMatchObject({
      action: "tool.call",
      sessionId: sessions[0],
      toolName: "read",
      decision: "deny",
      layer: "mode",
      details: { errorCode: "MODE_DENIED" },
    });
    expect(
      (await admin.json<AuditPage>(`/api/audit?session=${sessions[0]}&decision=allow&tool=read`)).body.entries,
    ).toEqual([]);
  });

  it("paginates on the server by cursor without gaps or repeats", async () => {
    const seen: number[] = [];
    let cursor: number | null | undefined;
    let pages = 0;
    do {
      const res = await admin.json<AuditPage>(
        `/api/audit?user=${memberId}&action=session.created&from=${encodeURIComponent(startedAt)}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.entries.map((e) => e.seq));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(5);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  it("finds a user by any part of the e-mail, case-insensitively", async () => {
    const part = await admin.json<AuditPage>(
      `/api/audit?user=MEMBER&action=session.created&from=${encodeURIComponent(startedAt)}`,
    );
    expect(part.body.entries.map((e) => e.sessionId)).toEqual([...sessions].reverse());
    const domain = await admin.json<AuditPage>(
      `/api/audit?user=${encodeURIComponent("@example.com")}&action=session.created&from=${encodeURIComponent(startedAt)}`,
    );
    expect(domain.body.entries).toHaveLength(5);
    expect(
      (
        await admin.json<AuditPage>(
          `/api/audit?user=ember@ex&action=session.created&from=${encodeURIComponent(startedAt)}`,
        )
      ).body.entries,
    ).toHaveLength(5);
    expect(
      (
        await admin.json<AuditPage>(
          `/api/audit?user=owner&action=session.created&from=${encodeURIComponent(startedAt)}`,
        )
      ).body.entries,
    ).toEqual([]);
  });

  it("exports what the filters match as CSV and JSON, audits the export, and is for admins only", async () => {
    const query = `user=member&action=session.created&from=${encodeURIComponent(startedAt)}`;
    const csv = await admin.fetch(`/api/audit/export?format=csv&${query}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="toolgate-audit-.+\.csv"$/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("seq,at,action,actorEmail,actorId,sessionId,toolName,callId,decision,layer,rule,details");
    expect(lines.slice(1).map((l) => l.split(",")[5])).toEqual([...sessions].reverse());
    const json = await admin.json<{ entries: AuditPage["entries"]; truncated: boolean }>(
      `/api/audit/export?format=json&${query}`,
    );
    expect(json.body.truncated).toBe(false);
    expect(json.body.entries.map((e) => e.sessionId)).toEqual([...sessions].reverse());
    const exported = await admin.json<{ entries: Array<{ details: { format: string; rows: number } }> }>(
      "/api/audit?action=audit.exported&limit=2",
    );
    expect(exported.body.entries.map((e) => e.details)).toEqual([
      expect.objectContaining({ format: "json", rows: 5 }),
      expect.objectContaining({ format: "csv", rows: 5 }),
    ]);
    expect((await member.fetch(`/api/audit/export?${query}`)).status).toBe(403);
    expect((await fetch(`${app.url}/api/audit/export?${query}`)).status).toBe(401);
    expect((await admin.fetch("/api/audit/export?format=xml")).status).toBe(422);
  });

  it("a CSV cell a spreadsheet would run as a formula is defused", async () => {
    // A hostile model names a tool "=1+2": the denial's audit row carries that name into the export.
    const session = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const res = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        sessionId: session,
        message: { role: "user", parts: [{ type: "text", text: "/tool =1+2 {}" }] },
      }),
    });
    await readUiStream(res);
    const page = await admin.json<{ entries: Array<{ toolName: string | null }> }>(
      `/api/audit?session=${session}&action=tool.call`,
    );
    expect(page.body.entries.map((e) => e.toolName)).toContain("=1+2");
    const rows = (await (await admin.fetch(`/api/audit/export?format=csv&session=${session}&action=tool.call`)).text())
      .trimEnd()
      .split("\r\n")
      .slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split(",")[6]).toBe("'=1+2");
  });

  it("rejects a bad filter with 422 naming it", async () => {
    const res = await admin.json("/api/audit?from=yesterday");
    expect(res.status).toBe(422);
    expect(res.body.error.details.issues[0].path).toEqual(["from"]);
    expect((await admin.json("/api/audit?limit=0")).status).toBe(422);
  });

  it("the verify endpoint reports an intact chain, then the first row of a tampered one", async () => {
    const ok = await admin.json("/api/audit/verify", { method: "POST" });
    expect(ok.status).toBe(200);
    expect(ok.body.ok).toBe(true);
    expect(ok.body.count).toBeGreaterThan(5);
    const row = await db.auditLog.findFirstOrThrow({ where: { action: "session.created", sessionId: sessions[2] } });
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: "allow" } });
    try {
      const broken = await admin.json("/api/audit/verify", { method: "POST" });
      expect(broken.body).toMatchObject({ ok: false, seq: row.seq });
      expect(broken.body.problem).toMatch(/edited/);
    } finally {
      // Later test files share this database: restore the row so the chain is whole again.
      await db.auditLog.update({ where: { seq: row.seq }, data: { decision: row.decision } });
    }
    expect((await admin.json("/api/audit/verify", { method: "POST" })).body.ok).toBe(true);
  });
});
