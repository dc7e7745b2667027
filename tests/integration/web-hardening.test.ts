// Issue 12 over real HTTP, on an app of its own per database (its limits are low, and it removes roles and
// deactivates users): CSRF, authentication before bodies and byte caps, sign-in throttling and constant
// work, per-user limits, security headers, revocable sessions and SSE, MCP env secrets, approval checks.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_PASSWORD, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { cookieOf } from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

type Target = { url: string; drop?: () => Promise<void> };
const targets = databaseTargets();

const CHAT_LIMIT = 3;
const APPROVAL_LIMIT = 12;

/**
 * Sends headers and a first chunk, keeps the request open, and resolves with the status once the server answers.
 * A server that answers and closes while a chunk is on its way can make the write fail (EPIPE, ECONNRESET)
 * before the answer is read: that probe is repeated (twice at most); a server that never answers still fails.
 */
async function answerBeforeBodyEnds(
  url: string,
  headers: Record<string, string>,
  chunkBytes = 64 * 1024,
): Promise<{ status: number; sentBytes: number; finished: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await probeBeforeBodyEnds(url, headers, chunkBytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== "EPIPE" && code !== "ECONNRESET")) throw error;
    }
  }
}

function probeBeforeBodyEnds(
  url: string,
  headers: Record<string, string>,
  chunkBytes = 64 * 1024,
): Promise<{ status: number; sentBytes: number; finished: boolean }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let finished = false;
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", ...headers }, agent: false },
      (res) => {
        clearInterval(timer);
        res.resume();
        resolve({ status: res.statusCode ?? 0, sentBytes: sent, finished });
        req.destroy();
      },
    );
    req.on("error", (error) => (res_ended ? undefined : reject(error)));
    let res_ended = false;
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    // Up to 64 MB in total; the server must answer long before that (the test fails if it needs the end).
    const timer = setInterval(() => {
      if (sent >= 64 * 1024 * 1024) {
        clearInterval(timer);
        finished = true;
        req.end();
        return;
      }
      sent += chunk.length;
      req.write(chunk);
    }, 5);
    req.on("close", () => (res_ended = true));
    req.flushHeaders();
  });
}

async function credentialsPost(app: RunningApp, email: string, password: string, address: string) {
  const client = new HttpClient(app.url);
  const csrf = await client.json<{ csrfToken: string }>("/api/auth/csrf");
  const res = await client.fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams({ email, password, csrfToken: csrf.body.csrfToken, callbackUrl: `${app.url}/chat` }),
  });
  const session = await client.json<{ user?: { id: string } } | null>("/api/auth/session");
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    signedIn: Boolean(session.body?.user?.id),
    client,
  };
}

/** Reads an SSE stream until it ends; `ended` resolves with every event name seen. */
function watchStream(client: HttpClient, path: string) {
  const seen: string[] = [];
  let opened!: () => void;
  const ready = new Promise<void>((r) => (opened = r));
  const controller = new AbortController();
  const ended = (async () => {
    const res = await client.fetch(path, { headers: { accept: "text/event-stream" }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return seen;
      const text = decoder.decode(value);
      if (text.includes(": connected")) opened();
      for (const m of text.matchAll(/^event: (.+)$/gm)) seen.push(m[1]!);
    }
  })();
  return { ready, ended, seen, abort: () => controller.abort() };
}

describe.each(targets)("web hardening (%s)", (_kind, make) => {
  let target: Target;
  let app: RunningApp;
  let db: Db;
  let admin: HttpClient;
  let member: HttpClient;
  let owner: HttpClient;
  let ids: Record<"admin" | "member" | "owner", string>;
  let users: typeof import("@/lib/db/users");

  async function newUser(email: string, roles: string[]): Promise<string> {
    const user = await db.user.create({
      data: {
        email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        roles: { create: roles.map((role) => ({ role })) },
      },
    });
    return user.id;
  }

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    // One trusted proxy hop: the tests play the proxy, naming each request's client in X-Forwarded-For.
    app = await startApp({
      databaseUrl: target.url,
      env: {
        CHAT_TURNS_PER_MINUTE: String(CHAT_LIMIT),
        APPROVAL_REQUESTS_PER_MINUTE: String(APPROVAL_LIMIT),
        TRUST_PROXY_HOPS: "1",
      },
    });
    db = createDb(target.url);
    process.env.DATABASE_URL = target.url;
    users = await import("@/lib/db/users");
    admin = await signedIn(app.url, "admin@example.com");
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    const me = async (c: HttpClient) => (await c.json("/api/me")).body.user.id as string;
    ids = { admin: await me(admin), member: await me(member), owner: await me(owner) };
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    vi.resetModules(); // lib/config caches DATABASE_URL: the next target needs fresh modules
    await target?.drop?.();
  });

  it("CSRF: a same-site page on another port, a form type or Sec-Fetch-Site other than same-origin change nothing", async () => {
    const evil = `http://127.0.0.1:${app.port + 1}`;
    const grant = (headers: Record<string, string>, body = JSON.stringify({ role: "admin", action: "add" })) =>
      admin.fetch(`/api/admin/users/${ids.member}/roles`, { method: "POST", headers, body });
    expect((await grant({ "content-type": "application/json", origin: evil })).status).toBe(403);
    expect((await grant({ "content-type": "text/plain", origin: app.url })).status).toBe(415);
    expect((await grant({ "content-type": "text/plain" })).status).toBe(415);
    expect((await grant({ "content-type": "application/x-www-form-urlencoded" }, "role=admin&action=add")).status).toBe(
      415,
    );
    expect((await grant({ "content-type": "application/json", "sec-fetch-site": "same-site" })).status).toBe(403);
    expect((await db.userRole.findMany({ where: { userId: ids.member } })).map((r) => r.role)).toEqual(["member"]);
    const rollback = await admin.fetch("/api/policy/rollback", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ version: 0 }),
    });
    expect(rollback.status).toBe(415);
    // next-auth's form endpoints keep their form type but must be same-origin too.
    const signOut = await owner.fetch("/api/auth/signout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: evil },
      body: "csrfToken=x",
    });
    expect(signOut.status).toBe(403);
    // The same request from this origin works.
    expect(
      (
        await admin.fetch("/api/sessions", {
          method: "POST",
          headers: { "content-type": "application/json", origin: app.url },
          body: "{}",
        })
      ).status,
    ).toBe(201);
  });

  it("bodies: no session means 401 before the body is read; over the cap is 413 at once, declared or chunked", async () => {
    const unauth = await answerBeforeBodyEnds(`${app.url}/api/chat`, { "transfer-encoding": "chunked" });
    expect(unauth.status).toBe(401);
    expect(unauth.finished).toBe(false);
    const cookie = cookieOf(member);
    const declared = await answerBeforeBodyEnds(`${app.url}/api/sessions`, {
      cookie,
      "content-length": String(400 * 1024 * 1024),
    });
    expect(declared).toMatchObject({ status: 413, finished: false });
    expect(declared.sentBytes).toBeLessThan(8 * 1024 * 1024);
    const chunked = await answerBeforeBodyEnds(`${app.url}/api/chat`, { cookie, "transfer-encoding": "chunked" });
    expect(chunked).toMatchObject({ status: 413, finished: false });
    const res = await member.fetch("/api/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "x".repeat(40_000) }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("sign-in: 10 failures for one account from one address answer 429 with Retry-After, even for the right password", async () => {
    const email = `throttle-${Date.now()}@example.com`;
    await newUser(email, ["member"]);
    for (let i = 0; i < 10; i++)
      expect((await credentialsPost(app, email, "wrong-password", "203.0.113.7")).signedIn).toBe(false);
    const blocked = await credentialsPost(app, email, DEMO_PASSWORD, "203.0.113.7");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(60);
    expect(blocked.signedIn).toBe(false);
    // The same account from another address, and another account from the blocked address, still sign in.
    expect((await credentialsPost(app, email, DEMO_PASSWORD, "203.0.113.8")).signedIn).toBe(true);
    expect((await credentialsPost(app, "member@example.com", DEMO_PASSWORD, "203.0.113.7")).signedIn).toBe(true);
    // The counters live in the database, where every instance reads them.
    expect(
      await db.rateLimiterFlexible.count({ where: { key: { startsWith: "signin-account-address" } } }),
    ).toBeGreaterThan(0);
  });

  it("sign-in without a trusted proxy: a client rotating X-Forwarded-For is still one address (429 after 10 failures)", async () => {
    const direct = await startApp({ databaseUrl: target.url });
    try {
      const email = `rotating-${Date.now()}@example.com`;
      await newUser(email, ["member"]);
      for (let i = 0; i < 10; i++)
        expect((await credentialsPost(direct, email, "wrong-password", `192.0.2.${i}`)).signedIn).toBe(false);
      const blocked = await credentialsPost(direct, email, DEMO_PASSWORD, "192.0.2.200");
      expect(blocked.status).toBe(429);
      expect(blocked.signedIn).toBe(false);
      // Counted for the socket's address, not for any of the forged ones.
      const keys = await db.rateLimiterFlexible.findMany({
        where: { key: { contains: email } },
        select: { key: true },
      });
      expect(keys.map((k) => k.key).join(" ")).not.toContain("192.0.2.");
    } finally {
      await direct.stop();
    }
  });

  it("sign-in does the same work for unknown accounts (no timing oracle)", async () => {
    const time = async (email: string, address: string) => {
      const started = performance.now();
      await credentialsPost(app, email, "wrong-password", address);
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 6; i++) {
      known.push(await time("owner@example.com", `198.51.100.${i}`));
      unknown.push(await time(`nobody-${i}-${Date.now()}@example.com`, `198.51.100.${i}`));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Before: 4 ms against 67 ms. Now both pay for one bcrypt comparison.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.6);
  });

  it("security headers on pages (CSP with a per-request nonce) and on API responses", async () => {
    const page = await fetch(`${app.url}/login`);
    const csp = page.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    const html = await page.text();
    expect(html).toContain(`nonce="${nonce}"`);
    const again = await fetch(`${app.url}/login`);
    expect(again.headers.get("content-security-policy")).not.toBe(csp);
    for (const res of [page, await fetch(`${app.url}/api/me`)]) {
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("same-origin");
      expect(res.headers.get("permissions-policy")).toContain("camera=()");
    }
    expect((await fetch(`${app.url}/api/me`)).headers.get("content-security-policy")).toContain(
      "frame-ancestors 'none'",
    );
  });

  it("sessions: cookies live 8 hours and are renewed while used (sliding)", async () => {
    const res = await member.fetch("/api/auth/session");
    const line = res.headers.getSetCookie().find((c) => /session-token=/.test(c));
    expect(line).toBeTruthy();
    const expires = Date.parse(/expires=([^;]+)/i.exec(line!)![1]!);
    expect(expires - Date.now()).toBeGreaterThan(7.9 * 3600_000);
    expect(expires - Date.now()).toBeLessThan(8.1 * 3600_000);
  });

  it("sessions: sign-out ends a copied cookie; a password change and deactivation end old cookies at once", async () => {
    const email = `revoke-${Date.now()}@example.com`;
    const userId = await newUser(email, ["member"]);
    const a = await signedIn(app.url, email);
    const copy = new HttpClient(app.url);
    (copy as unknown as { cookies: Map<string, string> }).cookies = new Map(
      (a as unknown as { cookies: Map<string, string> }).cookies,
    );
    expect((await copy.json("/api/me")).status).toBe(200);
    const csrf = await a.json<{ csrfToken: string }>("/api/auth/csrf");
    await a.fetch("/api/auth/signout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: csrf.body.csrfToken }),
    });
    expect((await copy.json("/api/me")).status).toBe(401);

    const b = await signedIn(app.url, email);
    const bCopy = await signedIn(app.url, email);
    expect(
      (
        await b.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: "wrong", newPassword: "a-new-password-123" },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await b.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: DEMO_PASSWORD, newPassword: "a-new-password-123" },
        })
      ).status,
    ).toBe(200);
    expect((await b.json("/api/me")).status).toBe(401);
    expect((await bCopy.json("/api/me")).status).toBe(401);

    const c = await signedIn(app.url, email, "a-new-password-123");
    expect(
      (await admin.json(`/api/admin/users/${ids.admin}/active`, { method: "POST", body: { active: false } })).status,
    ).toBe(409);
    expect(
      (await admin.json(`/api/admin/users/${userId}/active`, { method: "POST", body: { active: false } })).status,
    ).toBe(200);
    expect((await c.json("/api/me")).status).toBe(401);
    expect(await new HttpClient(app.url).signIn(email, "a-new-password-123")).toBe(false);
    await admin.json(`/api/admin/users/${userId}/active`, { method: "POST", body: { active: true } });
    expect(await new HttpClient(app.url).signIn(email, "a-new-password-123")).toBe(true);
    // The same through the library (lib/db/users.ts), which both routes use.
    const d = await signedIn(app.url, email, "a-new-password-123");
    await users.bumpSessionVersion({ userId });
    expect((await d.json("/api/me")).status).toBe(401);
  });

  it("sessions: removing the owner role ends the cookie and closes the open approvals stream before the next event", async () => {
    const email = `owner2-${Date.now()}@example.com`;
    const userId = await newUser(email, ["member", "owner"]);
    const owner2 = await signedIn(app.url, email);
    const stream = watchStream(owner2, "/api/approvals/stream");
    await stream.ready;
    const removed = await admin.json(`/api/admin/users/${userId}/roles`, {
      method: "POST",
      body: { role: "owner", action: "remove" },
    });
    expect(removed.status).toBe(200);
    expect((await owner2.json("/api/approvals")).status).toBe(401);
    const session = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const req = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId: session, toolName: "exec", callId: `c-${Date.now()}`, args: { command: "ls" } },
    });
    expect(req.status).toBe(202);
    const seen = await Promise.race([
      stream.ended,
      new Promise<string[]>((_, reject) => setTimeout(() => reject(new Error("stream still open")), 10_000)),
    ]);
    expect(seen).not.toContain("approval.requested");
  });

  it("approvals: capped payloads, 409 for a known call id with other arguments, four eyes", async () => {
    const session = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const big = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId: session, toolName: "write", callId: "big", args: { content: "x".repeat(100_000) } },
    });
    expect(big.status).toBe(413);
    const huge = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId: session, toolName: "write", callId: "huge", args: { content: "x".repeat(900_000) } },
    });
    expect(huge.status).toBe(413);
    const first = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId: session, toolName: "exec", callId: "same", args: { command: "ls" } },
    });
    expect(first.status).toBe(202);
    expect(
      (
        await member.json("/api/approvals", {
          method: "POST",
          body: { sessionId: session, toolName: "exec", callId: "same", args: { command: "ls" } },
        })
      ).status,
    ).toBe(202);
    const other = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId: session, toolName: "exec", callId: "same", args: { command: "rm -rf /" } },
    });
    expect(other.status).toBe(409);
    expect((await db.approval.findUniqueOrThrow({ where: { id: first.body.id } })).args).toEqual({ command: "ls" });

    const ownSession = (await owner.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const own = await owner.json("/api/approvals", {
      method: "POST",
      body: { sessionId: ownSession, toolName: "exec", callId: "mine", args: { command: "ls" } },
    });
    const self = await owner.json(`/api/approvals/${own.body.id}/decision`, {
      method: "POST",
      body: { decision: "allow-once" },
    });
    expect(self.status).toBe(403);
    expect(self.body.error.message).toMatch(/four eyes/);
    expect(
      (await admin.json(`/api/approvals/${own.body.id}/decision`, { method: "POST", body: { decision: "deny" } }))
        .status,
    ).toBe(200);
  });

  it("per-user limits: chat turns and approval requests answer 429 with Retry-After past the limit", async () => {
    const session = (await owner.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const turn = () =>
      owner.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          sessionId: session,
          message: { role: "user", parts: [{ type: "text", text: "hello" }] },
        }),
      });
    for (let i = 0; i < CHAT_LIMIT; i++) {
      const res = await turn();
      expect(res.status).toBe(200);
      await res.text();
    }
    const limited = await turn();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let i = 0; i <= APPROVAL_LIMIT; i++) {
      statuses.push(
        (
          await owner.json("/api/approvals", {
            method: "POST",
            body: { sessionId: session, toolName: "exec", callId: `q${i}`, args: { command: "ls" } },
          })
        ).status,
      );
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(APPROVAL_LIMIT);
  });

  it("MCP stdio env is stored encrypted and read back only masked", async () => {
    const current = (await admin.json("/api/policy")).body;
    const document = {
      ...current.document,
      mcpServers: [
        {
          id: "local",
          transport: { type: "stdio", command: "node", args: ["x.mjs"], env: { GITHUB_TOKEN: "ghp_plaintext_s3cret" } },
        },
      ],
    };
    const saved = await admin.json("/api/policy", { method: "PUT", body: { baseVersion: current.version, document } });
    expect(saved.status).toBe(200);
    const stored = await db.policyVersion.findFirstOrThrow({ orderBy: { version: "desc" } });
    expect(JSON.stringify(stored.document)).not.toContain("ghp_plaintext_s3cret");
    const shown = await admin.json("/api/policy");
    expect(JSON.stringify(shown.body)).not.toContain("ghp_plaintext_s3cret");
    expect(shown.body.document.mcpServers[0].transport.env).toEqual({ GITHUB_TOKEN: "********" });
    expect(shown.body.document.mcpServers[0].transport.envEncrypted).toBeUndefined();
    // An import with no draft is merged into the saved document: shown the same way, not with its ciphertext (which
    // the editor would not show, and saving with one new variable would have replaced the stored ones).
    const importBody = { format: "openclaw", text: "{ tools: { deny: ['browser'] } }" };
    const imported = await admin.json("/api/policy/import", { method: "POST", body: importBody });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.document.mcpServers[0].transport.envEncrypted).toBeUndefined();
    expect(imported.body.document.mcpServers[0].transport.env).toEqual({ GITHUB_TOKEN: "********" });
    // Saving the masked document back keeps the secret.
    const again = await admin.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: shown.body.version, document: shown.body.document },
    });
    expect(again.status).toBe(200);
    const { decryptEnv } = await import("@/lib/tools/mcp/secrets");
    const latest = await db.policyVersion.findFirstOrThrow({ orderBy: { version: "desc" } });
    const sealed = (latest.document as { mcpServers: Array<{ transport: { envEncrypted: string } }> }).mcpServers[0]!
      .transport.envEncrypted;
    expect(decryptEnv("local", sealed, process.env.AUTH_SECRET ?? "toolgate-test-secret-0123456789abcdef")).toEqual({
      GITHUB_TOKEN: "ghp_plaintext_s3cret",
    });
  });

  it("an idle keep-alive connection outlives Node's 5 s default, so a load balancer reusing it never gets a closed socket", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = http.get(`${app.url}/login`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on("error", reject);
      });
    expect((await get()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 6_000));
    expect(await get()).toEqual({ status: 200, reused: true });
    agent.destroy();
  });

  it("malformed input found by the fuzzer answers 4xx, never 500", async () => {
    expect((await admin.json("/api/audit?from=60001")).status).toBe(422);
    expect((await admin.json("/api/audit?cursor=99999999999")).status).toBe(422);
    const surrogate = await admin.fetch("/api/sessions/%ED%A0%80");
    expect(surrogate.status).toBeGreaterThanOrEqual(400);
    expect(surrogate.status).toBeLessThan(500);
    const deep = await admin.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"sessionId":"x","message":${"[".repeat(1000)}${"]".repeat(1000)}}`,
    });
    expect(deep.status).toBe(400);
    const nul = await admin.json("/api/sessions", { method: "POST", body: { title: "a\u0000b\ud800c" } });
    expect(nul.status).toBe(201);
    expect((await db.chatSession.findUniqueOrThrow({ where: { id: nul.body.id } })).title).toBe("ab\ufffdc");
  });
});
