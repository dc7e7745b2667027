// Issue 31, e-mail (SQLite, and PostgreSQL when configured): the built app with SMTP_URL pointing at a real SMTP
// server this file starts. A member's request is mailed to every owner but the requester (redacted, links built
// from PUBLIC_BASE_URL); opening the link (a mail scanner's GET or HEAD) decides nothing; forged, expired,
// re-targeted, wrong-approver, changed-arguments and allow-always tokens are refused with nothing decided; a valid
// token decides once, the decision records its channel, and the member's run goes on with it. Decisions racing
// from the inbox and two e-mail links give one winner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, TEST_AUTH_SECRET, type RunningApp } from "../support/app-server";
import { signedIn, type HttpClient } from "../support/http-client";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import {
  askPending,
  codingGrant,
  execLine,
  newCodingSession,
  setPolicy,
  settledTranscript,
  until,
} from "../support/approvals-helpers";
import { startReceiver } from "../support/http-receiver";
import { startSmtpSink } from "../support/smtp-sink";
import { createDb, type Db } from "@/lib/db/client";

// The test mints its own tokens (expired, for a member, for other arguments) with the app's key.
process.env.AUTH_SECRET = TEST_AUTH_SECRET;
const BASE = "https://toolgate.example.test";
const LINK = /https:\/\/toolgate\.example\.test\/decide\/([A-Za-z0-9_-]+)\?token=([A-Za-z0-9._-]+)/;

describe.each(databaseTargets())("approval e-mails and their links (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let db: Db;
  let app: RunningApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  // The signed webhook too, so the request's arrival by e-mail and by webhook is measured in one run (issue 31).
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let member: HttpClient;
  let owner: HttpClient;
  let sessionId: string;
  let ids: Record<"owner" | "admin" | "member", string>;
  let linkToken: typeof import("@/lib/notify/link-token");

  beforeAll(async () => {
    smtp = await startSmtpSink();
    hook = await startReceiver();
    target = await make();
    prepareDatabase(target.url);
    db = createDb(target.url);
    app = await startApp({
      databaseUrl: target.url,
      env: {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: BASE,
        APPROVAL_WEBHOOK_URL: `${hook.url}/hook`,
        APPROVAL_WEBHOOK_SECRET: "notify-email-webhook-secret-0123456789",
      },
    });
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    const idOf = async (email: string) => (await db.user.findUniqueOrThrow({ where: { email } })).id;
    ids = {
      owner: await idOf("owner@example.com"),
      admin: await idOf("admin@example.com"),
      member: await idOf("member@example.com"),
    };
    await setPolicy(db, codingGrant(ids.member));
    sessionId = await newCodingSession(member);
    linkToken = await import("@/lib/notify/link-token");
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
    await hook?.close();
    await db?.$disconnect();
    await target?.drop?.();
  });

  const mailsFor = (approvalId: string) => smtp.mails.filter((m) => m.text.includes(approvalId));
  const tokenFor = (approvalId: string, email: string) => {
    const mail = mailsFor(approvalId).find((m) => m.to.includes(email));
    const match = mail?.text.match(LINK);
    if (!match) throw new Error(`no link for ${email}`);
    return match[2]!;
  };
  const linkDecide = (client: HttpClient | null, approvalId: string, body: Record<string, unknown>) =>
    (client ?? new (owner.constructor as new (u: string) => HttpClient)(app.url)).json(
      `/api/approvals/${approvalId}/link-decision`,
      { method: "POST", body },
    );
  const rowOf = (approvalId: string) => db.approval.findUniqueOrThrow({ where: { id: approvalId } });

  it("mails every owner but the requester, redacted, within seconds; opening the link decides nothing", async () => {
    const asked = Date.now();
    const { approvalId } = await askPending(
      member,
      sessionId,
      execLine("echo token=supersecretvalue12345 >> notes.txt"),
    );
    await until("two mails", async () => mailsFor(approvalId).length >= 2 || null, 20_000);
    const mails = mailsFor(approvalId);
    const latency = Math.max(...mails.map((m) => m.at)) - asked;
    console.log(`[notify-email] mails for ${approvalId} arrived ${latency} ms after the chat request was sent`);
    expect(latency).toBeLessThan(10_000);
    const posted = await until(
      "the webhook",
      async () => hook.received.find((r) => r.body.includes(approvalId)) ?? null,
      20_000,
    );
    console.log(
      `[notify-email] the webhook for ${approvalId} arrived ${posted.at - asked} ms after the chat request was sent`,
    );
    expect(posted.at - asked).toBeLessThan(10_000);
    expect(mails.flatMap((m) => m.to).sort()).toEqual(["admin@example.com", "owner@example.com"]);
    for (const mail of mails) {
      expect(mail.raw).toMatch(/^Subject: Approval needed: exec/m);
      expect(mail.text).toContain("member@example.com asks to run exec");
      expect(mail.text).toContain("token=[redacted]");
      expect(mail.raw + mail.text).not.toContain("supersecretvalue12345");
      // Links only ever from PUBLIC_BASE_URL, never the address the request came in on.
      expect(mail.text).not.toContain("127.0.0.1");
      expect(mail.text).toMatch(LINK);
    }
    const token = tokenFor(approvalId, "owner@example.com");
    // A scanner (no cookies) follows the link with GET and HEAD: the confirmation page, nothing decided.
    const page = await fetch(`${app.url}/decide/${approvalId}?token=${token}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("Decide a request");
    expect(html).toContain("Allow once");
    expect(html).toContain('name="referrer" content="no-referrer"');
    expect((await fetch(`${app.url}/decide/${approvalId}?token=${token}`, { method: "HEAD" })).status).toBeLessThan(
      500,
    );
    expect(await rowOf(approvalId)).toMatchObject({ status: "pending", resolvedById: null });
    // Without a token or session the page shows nothing of the request.
    const bare = await (await fetch(`${app.url}/decide/${approvalId}`)).text();
    expect(bare).toContain("cannot decide anything");
    expect(bare).not.toContain("notes.txt");
    await linkDecide(owner, approvalId, { decision: "deny" }); // clean up (session path)
    expect(await rowOf(approvalId)).toMatchObject({ status: "denied", resolvedById: ids.owner, resolvedVia: "email" });
  });

  it("forged, expired, re-targeted, wrong-approver, changed-arguments and allow-always tokens are refused; nothing is decided", async () => {
    const { approvalId } = await askPending(member, sessionId, execLine("echo refusals >> notes.txt"));
    await until("mails", async () => mailsFor(approvalId).length >= 2 || null, 20_000);
    const token = tokenFor(approvalId, "owner@example.com");
    const row = await rowOf(approvalId);
    const mint = (over: Partial<{ approvalId: string; argsHash: string; userId: string; expiresAt: Date }>) =>
      linkToken.createLinkToken({
        approvalId,
        argsHash: row.argsHash,
        userId: ids.owner,
        expiresAt: row.expiresAt,
        ...over,
      })!;
    // The same MAC bytes spelled another way: a 32-byte MAC's last base64url character leaves its two low bits
    // unused, so flipping the lowest one changes the text, not the bytes. Only the canonical spelling is valid.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const forged = token.slice(0, -1) + alphabet[alphabet.indexOf(token.slice(-1)) ^ 1];
    const middle = token.length - 10;
    const flipped = token.slice(0, middle) + (token[middle] === "x" ? "y" : "x") + token.slice(middle + 1);
    const [head, body, mac] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    const swappedApprover = `${head}.${Buffer.from(JSON.stringify({ ...claims, u: ids.admin })).toString("base64url")}.${mac}`;
    const cases: Array<[string, string, Record<string, unknown>, number, RegExp]> = [
      ["forged MAC", approvalId, { token: flipped, decision: "allow-once" }, 403, /not valid/],
      ["MAC spelled another way", approvalId, { token: forged, decision: "allow-once" }, 403, /not valid/],
      [
        "approver swapped in the claims",
        approvalId,
        { token: swappedApprover, decision: "allow-once" },
        403,
        /not valid/,
      ],
      [
        "expired",
        approvalId,
        { token: mint({ expiresAt: new Date(Date.now() - 1000) }), decision: "allow-once" },
        403,
        /not valid/,
      ],
      [
        "re-targeted to another request",
        "cotherrequest000000000000",
        { token, decision: "allow-once" },
        403,
        /another request/,
      ],
      [
        "minted for a member",
        approvalId,
        { token: mint({ userId: ids.member }), decision: "allow-once" },
        403,
        /no longer an active owner/,
      ],
      [
        "other arguments",
        approvalId,
        { token: mint({ argsHash: "0".repeat(64) }), decision: "allow-once" },
        403,
        /arguments/,
      ],
      ["allow-always from outside", approvalId, { token, decision: "allow-always" }, 403, /signed-in session/],
      ["garbage", approvalId, { token: "v1.%%%.???", decision: "deny" }, 403, /not valid/],
      ["no token, no session", approvalId, { decision: "deny" }, 401, /sign in/],
    ];
    for (const [what, id, payload, status, message] of cases) {
      const res = await linkDecide(null, id, payload);
      expect([what, res.status]).toEqual([what, status]);
      expect(res.body.error.message).toMatch(message);
    }
    // A member's session is no owner's.
    expect((await linkDecide(member, approvalId, { decision: "allow-once" })).status).toBe(403);
    expect(await rowOf(approvalId)).toMatchObject({ status: "pending", resolvedById: null });
    expect(await db.approvalLinkUse.count({ where: { approvalId } })).toBe(0);

    // The real token decides, once; the member's run goes on with the decision.
    const callId = row.callId;
    const won = await linkDecide(null, approvalId, { token, decision: "deny", reason: "not from this box" });
    expect(won).toMatchObject({ status: 200, body: { status: "denied", via: "email" } });
    expect(await rowOf(approvalId)).toMatchObject({
      status: "denied",
      resolvedById: ids.owner,
      resolvedVia: "email",
      resolveReason: "not from this box",
    });
    const again = await linkDecide(null, approvalId, { token, decision: "allow-once" });
    expect(again.status).toBe(409);
    const admins = await linkDecide(null, approvalId, {
      token: tokenFor(approvalId, "admin@example.com"),
      decision: "allow-once",
    });
    expect(admins.status).toBe(409);
    expect(await rowOf(approvalId)).toMatchObject({ status: "denied", decision: "deny" });
    const audit = await db.auditLog.findMany({ where: { action: "approval.resolved", callId } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ via: "email" });
    const { tool } = await settledTranscript(member, sessionId, callId);
    expect(tool.parts.status).toBe("denied");
  });

  it("the inbox and two e-mail links racing: one decision wins, the others are refused", async () => {
    const { approvalId } = await askPending(member, sessionId, execLine("echo race >> notes.txt"));
    await until("mails", async () => mailsFor(approvalId).length >= 2 || null, 20_000);
    const results = await Promise.all([
      owner.json(`/api/approvals/${approvalId}/decision`, { method: "POST", body: { decision: "allow-once" } }),
      linkDecide(null, approvalId, { token: tokenFor(approvalId, "admin@example.com"), decision: "deny" }),
      linkDecide(null, approvalId, { token: tokenFor(approvalId, "owner@example.com"), decision: "deny" }),
    ]);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 409 || s === 403)).toBe(true);
    const resolved = (await db.auditLog.findMany({ where: { action: "approval.resolved" } })).filter(
      (a) => (a.details as { approvalId?: string }).approvalId === approvalId,
    );
    expect(resolved).toHaveLength(1);
  });
});
