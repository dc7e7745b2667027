// Issue 31, the Slack-compatible target (SQLite, and PostgreSQL when configured), with a real local HTTP server as
// Slack's incoming webhook and response_url: the request goes out as Block Kit with Allow once / Deny buttons
// (redacted, mrkdwn escaped); a correctly signed button press by a Slack user an admin linked to an owner decides
// it (recorded as slack) and replaces the message through response_url; forged, wrong-secret, stale and replayed
// requests, unlinked or demoted users, and a response_url on another origin decide or post nothing; a Slack press
// racing an inbox decision gives one winner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseTargets } from "../support/databases";
import { useDatabase } from "../support/database-lifecycle";
import { startReceiver } from "../support/http-receiver";

const SIGNING = "slack-signing-secret-0123456789";

describe.each(databaseTargets())("Slack approvals (%s)", (_kind, make) => {
  let slack: Awaited<ReturnType<typeof startReceiver>>;
  let elsewhere: Awaited<ReturnType<typeof startReceiver>>;
  let service: typeof import("@/lib/approvals/service");
  let sender: typeof import("@/lib/notify/sender");
  let interactions: typeof import("@/lib/notify/slack-interactions");
  let signatures: typeof import("@/lib/notify/slack-signature");
  let links: typeof import("@/lib/notify/slack-links");
  let db: import("@/lib/db/client").Db;
  let admin: import("@/lib/auth/guards").CurrentUser;
  let ids: Record<"owner" | "member", string>;
  let sessionId: string;
  let n = 0;

  beforeAll(async () => {
    slack = await startReceiver();
    elsewhere = await startReceiver();
    process.env.SLACK_WEBHOOK_URL = `${slack.url}/services/T000/B000/hooksecret`;
    process.env.SLACK_SIGNING_SECRET = SIGNING;
    process.env.PUBLIC_BASE_URL = "https://toolgate.example.test";
  });
  useDatabase(make);
  beforeAll(async () => {
    service = await import("@/lib/approvals/service");
    sender = await import("@/lib/notify/sender");
    interactions = await import("@/lib/notify/slack-interactions");
    signatures = await import("@/lib/notify/slack-signature");
    links = await import("@/lib/notify/slack-links");
    db = (await import("@/lib/db/client")).getDb();
    const users = await import("@/lib/db/users");
    const id = async (email: string) => (await db.user.findUniqueOrThrow({ where: { email } })).id;
    ids = { owner: await id("owner@example.com"), member: await id("member@example.com") };
    admin = (await users.getUserWithRoles({ userId: await id("admin@example.com") }))!;
    sessionId = (await db.chatSession.create({ data: { ownerId: ids.member } })).id;
    await links.linkSlackUser({ actor: admin, slackUserId: "UOWNER1", email: "owner@example.com" });
  });
  afterAll(async () => {
    await slack.close();
    await elsewhere.close();
    for (const v of ["SLACK_WEBHOOK_URL", "SLACK_SIGNING_SECRET", "PUBLIC_BASE_URL"]) delete process.env[v];
  });

  const ask = async (command: string, reason = "needs it") => {
    const { approval } = await service.requestApproval({
      kind: "exec",
      sessionId,
      requesterId: ids.member,
      toolName: "exec",
      callId: `s-${++n}`,
      args: { command },
      command,
      reason,
      ttlMs: 120_000,
    });
    await sender.deliverDue("instance-a");
    return approval;
  };
  const press = (
    approvalId: string,
    {
      user = "UOWNER1",
      action = "toolgate.allow-once",
      responseUrl = `${slack.url}/actions/response-${approvalId}`,
    } = {},
  ) =>
    `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", user: { id: user }, response_url: responseUrl, actions: [{ action_id: action, value: approvalId }] }))}`;
  const signed = (rawBody: string, { secret = SIGNING, at = Math.floor(Date.now() / 1000) } = {}) => ({
    rawBody,
    timestamp: String(at),
    signature: signatures.slackSignature(secret, String(at), rawBody),
  });
  const rowOf = (id: string) => db.approval.findUniqueOrThrow({ where: { id } });
  const responsesFor = (id: string) => slack.received.filter((r) => r.path === `/actions/response-${id}`);

  it("posts Block Kit with the buttons, redacted and escaped; a signed press by a linked owner decides and updates the message", async () => {
    const approval = await ask(
      "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123' https://x",
      "ping <!channel> & <https://evil.example|click>",
    );
    const post = slack.received.find(
      (r) => r.path === "/services/T000/B000/hooksecret" && r.body.includes(approval.id),
    )!;
    expect(post).toBeDefined();
    const message = JSON.parse(post.body);
    const actions = message.blocks.find((b: { type: string }) => b.type === "actions");
    expect(actions.elements.map((e: { action_id: string }) => e.action_id)).toEqual([
      "toolgate.allow-once",
      "toolgate.deny",
      "toolgate.open",
    ]);
    expect(actions.elements[0].value).toBe(approval.id);
    expect(actions.elements[2].url).toBe(`https://toolgate.example.test/approvals?open=${approval.id}`);
    expect(post.body).not.toContain("abcdefghijklmnopqrstuvwxyz0123");
    expect(post.body).not.toContain("<!channel>");
    expect(post.body).toContain("&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;");

    const reply = await interactions.handleSlackInteraction(signed(press(approval.id)));
    expect(reply.status).toBe(200);
    expect(await rowOf(approval.id)).toMatchObject({
      status: "approved",
      decision: "allow-once",
      resolvedById: ids.owner,
      resolvedVia: "slack",
    });
    const [update] = responsesFor(approval.id);
    expect(JSON.parse(update!.body)).toMatchObject({
      replace_original: true,
      text: expect.stringMatching(/^Allowed by owner@example\.com at .* \(from slack\): exec$/),
    });
  });

  it("forged, wrong-secret, stale, future and replayed requests are refused with nothing decided", async () => {
    const approval = await ask("echo refusals");
    const body = press(approval.id, { action: "toolgate.deny" });
    const good = signed(body);
    const refusals: Array<[string, Parameters<typeof interactions.handleSlackInteraction>[0], RegExp]> = [
      ["forged signature", { ...good, signature: `v0=${"0".repeat(64)}` }, /does not match/],
      ["wrong secret", signed(body, { secret: "another-signing-secret-000" }), /does not match/],
      [
        "body changed after signing",
        { ...good, rawBody: press(approval.id, { action: "toolgate.allow-once" }) },
        /does not match/,
      ],
      [
        "stale (6 minutes old, correctly signed)",
        signed(body, { at: Math.floor(Date.now() / 1000) - 360 }),
        /more than 5 minutes/,
      ],
      ["from the future", signed(body, { at: Math.floor(Date.now() / 1000) + 360 }), /more than 5 minutes/],
      ["no headers", { rawBody: body, timestamp: null, signature: null }, /missing/],
    ];
    for (const [what, request, message] of refusals) {
      await expect(interactions.handleSlackInteraction(request), what).rejects.toMatchObject({
        code: "UNAUTHENTICATED",
        message: expect.stringMatching(message),
      });
    }
    expect(await rowOf(approval.id)).toMatchObject({ status: "pending" });
    // The real press decides; the same request captured and sent again is a replay.
    expect((await interactions.handleSlackInteraction(good)).status).toBe(200);
    await expect(interactions.handleSlackInteraction(good)).rejects.toMatchObject({
      code: "UNAUTHENTICATED",
      message: expect.stringMatching(/replay/),
    });
    expect(await rowOf(approval.id)).toMatchObject({ status: "denied", resolvedVia: "slack" });
    expect(
      await db.auditLog.count({ where: { action: "approval.resolved", callId: (await rowOf(approval.id)).callId } }),
    ).toBe(1);
  });

  it("an unlinked Slack user, a demoted owner and a response_url elsewhere decide or post nothing", async () => {
    const approval = await ask("echo who");
    const unknown = await interactions.handleSlackInteraction(signed(press(approval.id, { user: "UNOBODY" })));
    expect(unknown.body).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/not linked/) });
    await links.linkSlackUser({ actor: admin, slackUserId: "UDEMOTED", email: "owner@example.com" });
    await db.userRole.deleteMany({ where: { userId: ids.owner, role: "owner" } });
    try {
      const demoted = await interactions.handleSlackInteraction(signed(press(approval.id, { user: "UDEMOTED" })));
      expect(demoted.body).toMatchObject({ response_type: "ephemeral" });
      expect(await rowOf(approval.id)).toMatchObject({ status: "pending" });
    } finally {
      await db.userRole.create({ data: { userId: ids.owner, role: "owner" } });
    }
    // Linking a member is refused.
    await expect(
      links.linkSlackUser({ actor: admin, slackUserId: "UMEMBER", email: "member@example.com" }),
    ).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    // A signed press whose response_url points at another origin decides, but nothing is posted there.
    const reply = await interactions.handleSlackInteraction(
      signed(press(approval.id, { responseUrl: `${elsewhere.url}/steal` })),
    );
    expect(reply.status).toBe(200);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("a Slack press racing an inbox decision: one winner, the loser's message shows the outcome", async () => {
    for (let i = 0; i < 5; i++) {
      const approval = await ask(`echo race ${i}`);
      const [fromSlack, fromInbox] = await Promise.allSettled([
        interactions.handleSlackInteraction(signed(press(approval.id, { action: "toolgate.deny" }))),
        service.decideApproval({
          approvalId: approval.id,
          ownerId: (await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } })).id,
          decision: "allow-once",
        }),
      ]);
      const row = await rowOf(approval.id);
      const slackWon = fromSlack.status === "fulfilled" && Object.keys(fromSlack.value.body).length === 0;
      const inboxWon = fromInbox.status === "fulfilled";
      expect([slackWon, inboxWon].filter(Boolean)).toHaveLength(1);
      expect(row.resolvedVia).toBe(slackWon ? "slack" : "inbox");
      expect(await db.auditLog.count({ where: { action: "approval.resolved", callId: row.callId } })).toBe(1);
      // Either way the Slack message ends showing the outcome.
      expect(JSON.parse(responsesFor(approval.id)[0]!.body).text).toMatch(
        slackWon ? /^Denied by owner@example\.com/ : /^Allowed by admin@example\.com/,
      );
    }
  });
});
