// Issue 31, routing (SQLite, and PostgreSQL when configured), against the built app over real HTTP, with a real SMTP
// sink and a local HTTP server as Slack (incoming webhook and response_url). The policy's routing rules decide who
// is asked (mail to the rule's approvers only) and who may decide, on every channel (inbox, e-mail link, Slack
// interactions posted over HTTP): anyone else is refused with nothing decided. A critical rule needs two different
// owners (first allow: "1 of 2", the same owner again refused, any deny wins); escalation opens the request to its
// target once due (the test moves the due time instead of waiting minutes); a rule's expiry sets the request's.
// Forged, stale and replayed Slack requests are 401 over HTTP. Decisions racing from several channels: one winner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, TEST_AUTH_SECRET, type RunningApp } from "../support/app-server";
import { signedIn, type HttpClient } from "../support/http-client";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { askPending, codingGrant, execLine, newCodingSession, setPolicy, until } from "../support/approvals-helpers";
import { startSmtpSink } from "../support/smtp-sink";
import { startReceiver } from "../support/http-receiver";
import { slackSignature } from "@/lib/notify/slack-signature";
import { createDb, type Db } from "@/lib/db/client";

process.env.AUTH_SECRET = TEST_AUTH_SECRET;
const BASE = "https://toolgate.example.test";
const SIGNING = "slack-signing-secret-routing-0123";
const LINK = /https:\/\/toolgate\.example\.test\/decide\/([A-Za-z0-9_-]+)\?token=([A-Za-z0-9._-]+)/;
const DAY = 24 * 60;

const routing = {
  rules: [
    {
      id: "destructive",
      match: { tools: ["exec"], risks: ["destructive"] },
      approvers: ["owner@example.com", "admin@example.com"],
      critical: true,
      expiryMinutes: 7 * DAY,
    },
    {
      id: "exec",
      match: { tools: ["exec"] },
      approvers: ["owner@example.com"],
      escalation: { afterMinutes: 60, to: ["owner2@example.com"] },
      expiryMinutes: 90,
    },
  ],
};

describe.each(databaseTargets())("approval routing, quorum and escalation over HTTP (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let db: Db;
  let app: RunningApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let slack: Awaited<ReturnType<typeof startReceiver>>;
  let member: HttpClient;
  let owner: HttpClient;
  let admin: HttpClient;
  let owner2: HttpClient;
  let sessionId: string;
  let ids: Record<"owner" | "admin" | "member" | "owner2", string>;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    slack = await startReceiver();
    target = await make();
    prepareDatabase(target.url);
    db = createDb(target.url);
    app = await startApp({
      databaseUrl: target.url,
      env: {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: BASE,
        SLACK_WEBHOOK_URL: `${slack.url}/services/T0/B0/hook`,
        SLACK_SIGNING_SECRET: SIGNING,
      },
    });
    const idOf = async (email: string) => (await db.user.findUniqueOrThrow({ where: { email } })).id;
    // A third owner, signed in with the demo password the seeded owner has.
    const seeded = await db.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
    await db.user.create({
      data: {
        email: "owner2@example.com",
        passwordHash: seeded.passwordHash,
        roles: { create: [{ role: "member" }, { role: "owner" }] },
      },
    });
    ids = {
      owner: seeded.id,
      admin: await idOf("admin@example.com"),
      member: await idOf("member@example.com"),
      owner2: await idOf("owner2@example.com"),
    };
    [member, owner, admin, owner2] = await Promise.all([
      signedIn(app.url, "member@example.com"),
      signedIn(app.url, "owner@example.com"),
      signedIn(app.url, "admin@example.com"),
      signedIn(app.url, "owner2@example.com"),
    ]);
    for (const [slackUserId, email] of [
      ["UOWNER", "owner@example.com"],
      ["UADMIN", "admin@example.com"],
      ["UOWNER2", "owner2@example.com"],
    ]) {
      const linked = await admin.json("/api/admin/slack-users", { method: "PUT", body: { slackUserId, email } });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    }
    await setPolicy(db, { ...codingGrant(ids.member), askRules: ["exec"], routing });
    sessionId = await newCodingSession(member);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
    await slack?.close();
    await db?.$disconnect();
    await target?.drop?.();
  });

  const ask = async (command: string) =>
    (await askPending(member, sessionId, execLine(`${command} # ${++n}`))).approvalId;
  const rowOf = (id: string) => db.approval.findUniqueOrThrow({ where: { id } });
  const inbox = (client: HttpClient, id: string, body: Record<string, unknown>) =>
    client.json(`/api/approvals/${id}/decision`, { method: "POST", body });
  const mailTo = (id: string, email: string) => smtp.mails.find((m) => m.text.includes(id) && m.to.includes(email));
  const byLink = async (id: string, email: string, decision: string) => {
    const mail = await until(`mail to ${email}`, async () => mailTo(id, email) ?? null, 30_000);
    const token = mail.text.match(LINK)![2]!;
    return new (owner.constructor as new (u: string) => HttpClient)(app.url).json(
      `/api/approvals/${id}/link-decision`,
      { method: "POST", body: { token, decision } },
    );
  };
  const press = (id: string, user: string, action = "toolgate.allow-once") =>
    `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", user: { id: user }, response_url: `${slack.url}/actions/${id}`, actions: [{ action_id: action, value: id }] }))}`;
  const postSlack = async (
    rawBody: string,
    { at = Math.floor(Date.now() / 1000), signature }: { at?: number; signature?: string } = {},
  ) => {
    const res = await fetch(`${app.url}/api/integrations/slack/interactions`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": String(at),
        "x-slack-signature": signature ?? slackSignature(SIGNING, String(at), rawBody),
      },
      body: rawBody,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const emailTargets = async (id: string) =>
    (await db.approvalDelivery.findMany({ where: { approvalId: id, channel: "email" } })).map((d) => d.target).sort();
  const resolvedAudits = async (id: string) =>
    (await db.auditLog.findMany({ where: { action: "approval.resolved" } })).filter(
      (a) => (a.details as { approvalId?: string }).approvalId === id,
    );

  it("a rule routes the request: mail to its approvers only, its expiry, and nobody else decides on any channel", async () => {
    const id = await ask("echo routed >> notes.txt");
    const row = await rowOf(id);
    expect(row).toMatchObject({ routeRule: "exec", quorum: 1, status: "pending" });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThan(89 * 60_000);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeLessThanOrEqual(90 * 60_000 + 5_000);
    expect(await emailTargets(id)).toEqual([ids.owner]);
    await until("the approver's mail", async () => mailTo(id, "owner@example.com") ?? null, 30_000);

    // admin and owner2 are owners, but the rule does not name them: refused on the inbox, a link and Slack.
    const refusedInbox = await inbox(admin, id, { decision: "allow-once" });
    expect(refusedInbox.status).toBe(403);
    expect(JSON.stringify(refusedInbox.body)).toMatch(/does not name you/);
    expect((await inbox(owner2, id, { decision: "deny" })).status).toBe(403);
    const linkToken = await import("@/lib/notify/link-token");
    const adminToken = linkToken.createLinkToken({
      approvalId: id,
      argsHash: row.argsHash,
      userId: ids.admin,
      expiresAt: row.expiresAt,
    })!;
    const anon = new (owner.constructor as new (u: string) => HttpClient)(app.url);
    expect(
      (
        await anon.json(`/api/approvals/${id}/link-decision`, {
          method: "POST",
          body: { token: adminToken, decision: "allow-once" },
        })
      ).status,
    ).toBe(403);
    expect(
      (await admin.json(`/api/approvals/${id}/link-decision`, { method: "POST", body: { decision: "allow-once" } }))
        .status,
    ).toBe(403);
    const fromSlack = await postSlack(press(id, "UADMIN"));
    expect(fromSlack.status).toBe(200);
    expect(fromSlack.body).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(/Nothing was decided.*does not name you/),
    });
    expect(await rowOf(id)).toMatchObject({ status: "pending" });

    // The rule's approver decides with the link from their mail.
    const decided = await byLink(id, "owner@example.com", "allow-once");
    expect(decided.status).toBe(200);
    expect(await rowOf(id)).toMatchObject({ status: "approved", resolvedById: ids.owner, resolvedVia: "email" });
  });

  it("escalation: once due, the target is mailed and may decide; before, it may not", async () => {
    const id = await ask("echo escalate >> notes.txt");
    expect((await inbox(owner2, id, { decision: "allow-once" })).status).toBe(403);
    // Sixty minutes pass (the due time is moved; the background worker of the app does the rest).
    await db.approval.update({ where: { id }, data: { escalateAt: new Date(Date.now() - 1_000) } });
    await until("the escalation mail", async () => mailTo(id, "owner2@example.com") ?? null, 30_000);
    expect((await rowOf(id)).escalatedAt).not.toBeNull();
    expect(await emailTargets(id)).toEqual([ids.owner, ids.owner2].sort());
    expect(
      (await db.auditLog.findMany({ where: { action: "approval.escalated" } })).filter(
        (a) => (a.details as { approvalId?: string }).approvalId === id,
      ),
    ).toHaveLength(1);
    const decided = await inbox(owner2, id, { decision: "deny", reason: "escalated: not now" });
    expect(decided.status).toBe(200);
    expect(await rowOf(id)).toMatchObject({ status: "denied", resolvedById: ids.owner2 });
  });

  it("a critical rule: first allow (over Slack) is 1 of 2, the same owner again is refused, a second owner's allow applies", async () => {
    const id = await ask("rm -rf build");
    const row = await rowOf(id);
    expect(row).toMatchObject({ routeRule: "destructive", quorum: 2 });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThan(7 * DAY * 60_000 - 60_000);
    expect(await emailTargets(id)).toEqual([ids.owner, ids.admin].sort());
    expect((await inbox(owner2, id, { decision: "allow-once" })).status).toBe(403);

    const first = await postSlack(press(id, "UOWNER"));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/1 of 2/) });
    expect(await rowOf(id)).toMatchObject({ status: "pending", allowCount: 1 });
    const again = await inbox(owner, id, { decision: "allow-once" });
    expect(again.status).toBe(403);
    expect(JSON.stringify(again.body)).toMatch(/already allowed/);
    expect(await rowOf(id)).toMatchObject({ status: "pending", allowCount: 1 });

    const second = await inbox(admin, id, { decision: "allow-once" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: "approved" });
    expect(await rowOf(id)).toMatchObject({
      status: "approved",
      resolvedById: ids.admin,
      resolvedVia: "inbox",
      allowCount: 2,
    });
    expect(await resolvedAudits(id)).toHaveLength(1);
  });

  it("a critical rule: any deny wins, also after an allow", async () => {
    const id = await ask("rm -rf dist");
    const first = await inbox(owner, id, { decision: "allow-once" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "pending", quorum: { given: 1, needed: 2 } });
    const denied = await byLink(id, "admin@example.com", "deny");
    expect(denied.status).toBe(200);
    expect(await rowOf(id)).toMatchObject({ status: "denied", resolvedById: ids.admin, resolvedVia: "email" });
  });

  it("Slack over HTTP: forged, stale, future and replayed requests are 401 with nothing decided", async () => {
    const id = await ask("echo slack >> notes.txt");
    const body = press(id, "UOWNER", "toolgate.deny");
    const now = Math.floor(Date.now() / 1000);
    expect((await postSlack(body, { signature: `v0=${"0".repeat(64)}` })).status).toBe(401);
    expect(
      (await postSlack(body, { signature: slackSignature("another-secret-000000000", String(now), body) })).status,
    ).toBe(401);
    expect((await postSlack(body, { at: now - 360 })).status).toBe(401);
    expect((await postSlack(body, { at: now + 360 })).status).toBe(401);
    expect(await rowOf(id)).toMatchObject({ status: "pending" });
    const signature = slackSignature(SIGNING, String(now), body);
    expect((await postSlack(body, { at: now, signature })).status).toBe(200);
    const replay = await postSlack(body, { at: now, signature });
    expect(replay.status).toBe(401);
    expect(JSON.stringify(replay.body)).toMatch(/replay/);
    expect(await rowOf(id)).toMatchObject({ status: "denied", resolvedById: ids.owner, resolvedVia: "slack" });
    await until(
      "the message updated",
      async () => slack.received.find((r) => r.path === `/actions/${id}`) ?? null,
      10_000,
    );
  });

  it("races: inbox, e-mail link and Slack on one request give one winner; two allows racing on a critical one make it approved once", async () => {
    for (let i = 0; i < 3; i++) {
      const id = await ask(`echo race-${i} >> notes.txt`);
      await until("mail", async () => mailTo(id, "owner@example.com") ?? null, 30_000);
      const results = await Promise.all([
        inbox(owner, id, { decision: "allow-once" }).then((r) => r.status === 200),
        byLink(id, "owner@example.com", "deny").then((r) => r.status === 200),
        postSlack(press(id, "UOWNER", "toolgate.deny")).then(
          (r) => r.status === 200 && Object.keys(r.body).length === 0,
        ),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await resolvedAudits(id)).toHaveLength(1);
    }
    for (let i = 0; i < 3; i++) {
      const id = await ask(`rm -rf race-${i}`);
      const [a, b] = await Promise.all([inbox(owner, id, { decision: "allow-once" }), postSlack(press(id, "UADMIN"))]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(await rowOf(id)).toMatchObject({ status: "approved", allowCount: 2 });
      expect(await resolvedAudits(id)).toHaveLength(1);
      expect(await db.approvalVote.count({ where: { approvalId: id } })).toBe(2);
    }
  });

  it("a rule longer than 30 days, or critical with one approver, is refused when the policy is saved", async () => {
    const current = await admin.json("/api/policy");
    const save = (rules: unknown[]) =>
      admin.json("/api/policy", {
        method: "PUT",
        body: { baseVersion: current.body.version, document: { ...current.body.document, routing: { rules } } },
      });
    const tooLong = await save([{ id: "long", approvers: ["owner@example.com"], expiryMinutes: 30 * DAY + 1 }]);
    expect(tooLong.status).toBe(422);
    expect(JSON.stringify(tooLong.body)).toMatch(/routing\.rules\.0\.expiryMinutes/);
    expect((await save([{ id: "solo", approvers: ["owner@example.com"], critical: true }])).status).toBe(422);
  });
});
