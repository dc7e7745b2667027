// The event streams under the app's own server (scripts/server.mjs), where a lean node:http handler serves them
// beside Next.js: the same answers as the Next.js routes (an app on the same database with TOOLGATE_LEAN_STREAMS=off
// serves them through Next.js) for every refusal and for a stream, and the attacks a stream must refuse.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD, startApp, type RunningApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { signedIn, type HttpClient } from "../support/http-client";
import { cookieOf } from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: string; ended: Promise<string> };

/** GET on its own socket; resolves at the response head with what arrived by then (streams stay open; `ended` resolves with all text when the server ends them). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: "text/event-stream", ...headers }, agent: false }, (res) => {
      let body = "";
      let done!: (text: string) => void;
      const ended = new Promise<string>((r) => (done = r));
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => done(body));
      res.on("close", () => done(body));
      const settle = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          get body() {
            return body;
          },
          ended,
        });
      if (res.statusCode === 200) res.once("data", () => setTimeout(settle, 50));
      else res.on("end", settle);
    });
    req.on("error", reject);
  });
}

// Per-response or per-transport headers; everything else must be the same on both servers.
// x-request-id names each request (scripts/server.mjs): it differs by design.
const VARYING = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "vary",
  "x-request-id",
]);
const comparable = (headers: http.IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !VARYING.has(k)));

describe("event streams from the lean handler (sqlite)", () => {
  const url = newSqliteUrl();
  let lean: RunningApp;
  let next: RunningApp;
  let db: Db;
  let owner: HttpClient;
  let member: HttpClient;
  let ownerSession: string;

  beforeAll(async () => {
    prepareDatabase(url);
    const started = await Promise.allSettled([
      startApp({ databaseUrl: url }),
      startApp({ databaseUrl: url, env: { TOOLGATE_LEAN_STREAMS: "off" } }),
    ]);
    // Both stop in afterAll even when only one of them came up.
    [lean, next] = started.map((s) => (s.status === "fulfilled" ? s.value : undefined!)) as [RunningApp, RunningApp];
    for (const s of started) if (s.status === "rejected") throw s.reason;
    expect(lean.logs.join("")).toContain("(lean event streams)");
    expect(next.logs.join("")).not.toContain("(lean event streams)");
    db = createDb(url);
    owner = await signedIn(lean.url, "owner@example.com");
    member = await signedIn(lean.url, "member@example.com");
    ownerSession = (await owner.json("/api/sessions", { method: "POST", body: {} })).body.id;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([lean?.stop(), next?.stop()]);
    await db?.$disconnect();
  });

  it("answers every refusal as the Next.js routes do: status, JSON body and headers", async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ["/api/approvals/stream", {}], // no cookie
      ["/api/approvals/stream", { cookie: "authjs.session-token=forged" }],
      ["/api/approvals/stream", { cookie: cookieOf(member) }], // member on the owners' inbox
      [`/api/sessions/${ownerSession}/events`, {}],
      [`/api/sessions/${ownerSession}/events`, { cookie: cookieOf(member) }], // another user's session
      ["/api/sessions/not.an.id/events", { cookie: cookieOf(owner) }],
    ];
    const statuses: number[] = [];
    for (const [path, headers] of cases) {
      const [a, b] = await Promise.all([get(`${lean.url}${path}`, headers), get(`${next.url}${path}`, headers)]);
      expect({ path, status: a.status, body: a.body }).toEqual({ path, status: b.status, body: b.body });
      expect(comparable(a.headers)).toEqual(comparable(b.headers));
      expect(a.headers["content-security-policy"]).toContain("default-src 'none'");
      statuses.push(a.status);
    }
    expect(statuses).toEqual([401, 401, 403, 401, 404, 422]);
  });

  it("opens a stream with the same headers and start as the Next.js route", async () => {
    const [a, b] = await Promise.all([
      get(`${lean.url}/api/approvals/stream`, { cookie: cookieOf(owner) }),
      get(`${next.url}/api/approvals/stream`, { cookie: cookieOf(owner) }),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(comparable(a.headers)).toEqual(comparable(b.headers));
    expect(a.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(a.body).toBe(b.body);
    expect(a.body).toContain(": connected");
  });

  it("a bearer token is not a session: the cookie's token in an Authorization header gets 401", async () => {
    const token = /authjs\.session-token=([^;]+)/.exec(cookieOf(owner))![1]!;
    const res = await get(`${lean.url}/api/approvals/stream`, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
  });

  it("a revoked session closes the open stream (the claim is re-checked while it is open)", async () => {
    const email = `lean-owner-${Date.now()}@example.com`;
    await db.user.create({
      data: {
        email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        roles: { create: [{ role: "member" }, { role: "owner" }] },
      },
    });
    const a = await signedIn(lean.url, email);
    const b = await signedIn(lean.url, email);
    const stream = await get(`${lean.url}/api/approvals/stream`, { cookie: cookieOf(a) });
    expect(stream.status).toBe(200);
    // A password change ends every session of the user (a bumped session version), this stream's too.
    const changed = await b.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: DEMO_PASSWORD, newPassword: "another-password-456" },
    });
    expect(changed.status).toBe(200);
    const text = await Promise.race([
      stream.ended,
      new Promise<string>((_, reject) =>
        setTimeout(() => reject(new Error("stream still open 10 s after revocation")), 10_000),
      ),
    ]);
    expect(text).toContain(": connected");
    expect((await get(`${lean.url}/api/approvals/stream`, { cookie: cookieOf(a) })).status).toBe(401);
  });

  it("an event published on one server reaches a lean stream, and Last-Event-ID replays it", async () => {
    const stream = await get(`${lean.url}/api/approvals/stream`, { cookie: cookieOf(owner) });
    const asked = await member.json("/api/approvals", {
      method: "POST",
      body: {
        sessionId: (await member.json("/api/sessions", { method: "POST", body: {} })).body.id,
        toolName: "exec",
        callId: `lean-${Date.now()}`,
        args: { command: "ls" },
      },
    });
    expect(asked.status).toBe(202);
    const deadline = Date.now() + 10_000;
    while (!stream.body.includes(asked.body.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const id = new RegExp(`id: (\\d+)\\nevent: approval.requested\\ndata: [^\\n]*${asked.body.id}`).exec(
      stream.body,
    )?.[1];
    expect(id).toBeDefined();
    const replay = await get(`${lean.url}/api/approvals/stream`, {
      cookie: cookieOf(owner),
      "last-event-id": String(Number(id) - 1),
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(replay.body).toContain(`id: ${id}\nevent: approval.requested`);
  });
});
