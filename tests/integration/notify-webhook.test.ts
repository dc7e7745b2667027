// Issue 31, the generic signed webhook, on a fresh database (SQLite, and PostgreSQL when configured), against a real
// local HTTP receiver: every new request is posted signed (the receiver's check verifies it, a forged or stale one
// does not), with secrets redacted; the notification is in the outbox as soon as the request commits; a 500 is
// retried with backoff and a 4xx is not; two senders (instances) never send one notification twice; a sender that
// died holding a claim is replaced once the claim lapses; a request decided meanwhile is not announced.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseTargets } from "../support/databases";
import { useDatabase } from "../support/database-lifecycle";
import { eventually, startReceiver } from "../support/http-receiver";

const SECRET = "webhook-secret-0123456789abcdef";
const API_KEY = "sk-live-ABCDEFGHIJKLMNOPQRSTUV";
const BEARER = "Bearer abcdefghijklmnopqrstuvwxyz012345";

describe.each(databaseTargets())("signed approval webhook (%s)", (_kind, make) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let service: typeof import("@/lib/approvals/service");
  let sender: typeof import("@/lib/notify/sender");
  let deliveries: typeof import("@/lib/db/approval-deliveries");
  let signature: typeof import("@/lib/notify/signature");
  let db: import("@/lib/db/client").Db;
  let ownerId: string;
  let memberId: string;
  let sessionId: string;
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    process.env.APPROVAL_WEBHOOK_URL = `${receiver.url}/hook?token=url-secret`;
    process.env.APPROVAL_WEBHOOK_SECRET = SECRET;
    process.env.PUBLIC_BASE_URL = "https://toolgate.example.com/";
    process.env.NOTIFY_RETRY_BASE_MS = "100";
    process.env.NOTIFY_MAX_ATTEMPTS = "4";
  });
  useDatabase(make);
  beforeAll(async () => {
    service = await import("@/lib/approvals/service");
    sender = await import("@/lib/notify/sender");
    deliveries = await import("@/lib/db/approval-deliveries");
    signature = await import("@/lib/notify/signature");
    db = (await import("@/lib/db/client")).getDb();
    ownerId = (await db.user.findUniqueOrThrow({ where: { email: "owner@example.com" } })).id;
    memberId = (await db.user.findUniqueOrThrow({ where: { email: "member@example.com" } })).id;
    sessionId = (await db.chatSession.create({ data: { ownerId: memberId } })).id;
  });
  afterAll(async () => {
    await receiver.close();
    for (const v of [
      "APPROVAL_WEBHOOK_URL",
      "APPROVAL_WEBHOOK_SECRET",
      "PUBLIC_BASE_URL",
      "NOTIFY_RETRY_BASE_MS",
      "NOTIFY_MAX_ATTEMPTS",
    ])
      delete process.env[v];
  });

  const ask = (args: unknown = { command: "ls" }) => {
    const callId = `call-${++n}`;
    return service.requestApproval({
      kind: "exec",
      sessionId,
      requesterId: memberId,
      toolName: "exec",
      callId,
      args,
      command: (args as { command?: string }).command ?? null,
      reason: "needs it",
      ttlMs: 120_000,
    });
  };
  const postsFor = (approvalId: string) => receiver.received.filter((r) => r.body.includes(approvalId));
  const rowOf = async (approvalId: string) => (await db.approvalDelivery.findMany({ where: { approvalId } }))[0]!;

  it("posts the request signed, with secrets redacted; the outbox row commits with the request", async () => {
    receiver.setResponder(() => 200);
    const command = `curl -H 'Authorization: ${BEARER}' https://api.example.com --data api_key=${API_KEY}`;
    const { approval } = await ask({ command, headers: { apiKey: "plain-value-under-a-secret-name" } });
    // Written in the request's transaction, before any sender ran.
    expect(await rowOf(approval.id)).toMatchObject({ channel: "webhook", status: "pending", attempts: 0 });
    await sender.deliverDue("instance-a");
    const [post] = postsFor(approval.id);
    expect(post).toBeDefined();
    expect(post!.method).toBe("POST");
    expect(post!.path).toBe("/hook?token=url-secret");
    const header = String(post!.headers["x-toolgate-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signature.verifySignature(SECRET, post!.body, header)).toBe(true);
    // The receiver's check refuses another secret, a changed body, and a stale timestamp.
    expect(signature.verifySignature("another-secret-0123456789", post!.body, header)).toBe(false);
    expect(signature.verifySignature(SECRET, post!.body.replace("needs it", "needs  it"), header)).toBe(false);
    expect(signature.verifySignature(SECRET, post!.body, header, { now: Date.now() + 10 * 60_000 })).toBe(false);
    const body = JSON.parse(post!.body);
    expect(body).toMatchObject({
      type: "approval.requested",
      deliveryId: (await rowOf(approval.id)).id,
      approval: {
        id: approval.id,
        toolName: "exec",
        requester: { email: "member@example.com" },
        link: `https://toolgate.example.com/approvals?open=${approval.id}`,
      },
    });
    expect(post!.headers["x-toolgate-delivery"]).toBe(body.deliveryId);
    for (const secret of [API_KEY, "abcdefghijklmnopqrstuvwxyz012345", "plain-value-under-a-secret-name"])
      expect(post!.body).not.toContain(secret);
    expect(body.approval.args.headers.apiKey).toBe("[redacted]");
    expect(body.approval.command).toContain("[redacted]");
    expect(await rowOf(approval.id)).toMatchObject({ status: "sent", attempts: 1, lastStatus: 200 });
  });

  it("retries after 500s with growing delays, then records it sent; a 4xx is not retried", async () => {
    receiver.setResponder((r) =>
      r.body.includes("flaky") && postsFor(JSON.parse(r.body).approval.id).length <= 2 ? 500 : 200,
    );
    const { approval } = await ask({ command: "echo flaky" });
    await eventually(async () => {
      await sender.deliverDue("instance-a");
      return (await rowOf(approval.id)).status === "sent";
    });
    const posts = postsFor(approval.id);
    expect(posts).toHaveLength(3);
    // One delivery id across the attempts (receivers de-duplicate by it), spaced by at least the backoff.
    expect(new Set(posts.map((p) => p.headers["x-toolgate-delivery"])).size).toBe(1);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(90);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(190);
    expect(await rowOf(approval.id)).toMatchObject({ status: "sent", attempts: 3, lastStatus: 200, lastError: null });

    receiver.setResponder(() => 401);
    const { approval: refused } = await ask({ command: "echo refused" });
    await sender.deliverDue("instance-a");
    expect(await rowOf(refused.id)).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatus: 401,
      lastError: "HTTP 401",
    });
    await new Promise((r) => setTimeout(r, 300));
    await sender.deliverDue("instance-a");
    expect(postsFor(refused.id)).toHaveLength(1);

    // An endpoint that keeps failing is given up after NOTIFY_MAX_ATTEMPTS.
    receiver.setResponder(() => 503);
    const { approval: down } = await ask({ command: "echo down" });
    await eventually(async () => {
      await sender.deliverDue("instance-a");
      return (await rowOf(down.id)).status === "failed";
    });
    expect(postsFor(down.id)).toHaveLength(4);
    receiver.setResponder(() => 200);
  });

  it("two senders racing over the same outbox send every notification exactly once", async () => {
    // A slow receiver keeps claims open while the other sender looks at the same rows.
    receiver.setResponder(async () => {
      await new Promise((r) => setTimeout(r, 100));
      return 200;
    });
    const asked = await Promise.all(Array.from({ length: 12 }, (_, i) => ask({ command: `echo race ${i}` })));
    await Promise.all([
      sender.deliverDue("instance-a"),
      sender.deliverDue("instance-b"),
      sender.deliverDue("instance-a"),
      sender.deliverDue("instance-b"),
    ]);
    await Promise.all([sender.deliverDue("instance-a"), sender.deliverDue("instance-b")]);
    for (const { approval } of asked) {
      expect(postsFor(approval.id)).toHaveLength(1);
      expect(await rowOf(approval.id)).toMatchObject({ status: "sent", attempts: 1 });
    }
    receiver.setResponder(() => 200);
  });

  it("a claim held by a sender that died lapses, and another sender delivers; a decided request is skipped", async () => {
    const { approval } = await ask({ command: "echo orphan" });
    const row = await rowOf(approval.id);
    expect(await deliveries.claimDelivery({ id: row.id, owner: "dead-instance", leaseMs: 400 })).toBe(true);
    expect(await sender.deliverOne(row.id, "instance-b")).toBe("not-claimed");
    expect(postsFor(approval.id)).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(await sender.deliverOne(row.id, "instance-b")).toBe("sent");
    expect(postsFor(approval.id)).toHaveLength(1);
    // The dead sender's late settlement changes nothing.
    expect(await deliveries.settleDelivery({ id: row.id, owner: "dead-instance", status: "failed" })).toBe(false);
    expect(await rowOf(approval.id)).toMatchObject({ status: "sent", attempts: 2 });

    const { approval: decided } = await ask({ command: "echo decided" });
    await service.decideApproval({ approvalId: decided.id, ownerId, decision: "deny", reason: "no" });
    await sender.deliverDue("instance-a");
    expect(postsFor(decided.id)).toHaveLength(0);
    expect(await rowOf(decided.id)).toMatchObject({ status: "skipped" });
  });

  it("the delivery log says where each went (host only) and how it ended", async () => {
    const { listDeliveryLog } = await import("@/lib/notify/delivery-log");
    const log = await listDeliveryLog({ limit: 100 });
    expect(log.length).toBeGreaterThan(10);
    expect(new Set(log.map((l) => l.status))).toEqual(new Set(["sent", "failed", "skipped"]));
    for (const entry of log) expect(entry.to).toBe(new URL(receiver.url).host);
    expect(JSON.stringify(log)).not.toContain("url-secret");
  });
});
