// Issue 34: /healthz, /readyz and /metrics on the built app (SQLite, one app per file). A scripted session (the
// offline model's `/tool name {json}` lines: one allowed call, one the mode denies, one unknown tool, one turn
// over the per-user limit) and then a scrape read with a real Prometheus parser: the counters say what happened.
// Who may scrape: loopback as the app's server decides the client (a forged X-Forwarded-For without a trusted
// proxy is ignored; behind one, the proxy's client is the client), or METRICS_TOKEN as a bearer token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { signedIn } from "../support/http-client";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { chat, openSse, say, until } from "../support/approvals-helpers";
import { histogramCount, sample, scrape } from "../support/prometheus";

const TOKEN = "metrics-token-0123456789abcdef";
let app: RunningApp;
let proxied: RunningApp;

beforeAll(async () => {
  const url = newSqliteUrl();
  prepareDatabase(url);
  app = await startApp({ databaseUrl: url, env: { CHAT_TURNS_PER_MINUTE: "4" } });
  // The same database behind "one trusted proxy", with a token for scrapers elsewhere.
  proxied = await startApp({ databaseUrl: url, env: { TRUST_PROXY_HOPS: "1", METRICS_TOKEN: TOKEN } });
});

afterAll(async () => {
  await app?.stop();
  await proxied?.stop();
});

describe("ops: health and readiness", () => {
  it("/healthz and /readyz answer JSON without a session, with no page CSP and with a request id", async () => {
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(health.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{8,64}$/);
    expect(health.headers.get("content-security-policy") ?? "").not.toContain("nonce-");
    const ready = await fetch(`${app.url}/readyz`);
    const body = await ready.json();
    expect(ready.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe("ready");
    expect(Object.keys(body.checks).sort()).toEqual(["database", "eventBus", "migrations", "sandbox", "shellParser"]);
    // Nothing about hosts, paths or versions.
    expect(JSON.stringify(body)).not.toMatch(/\/|version|127\.0\.0\.1|sqlite/i);
  });

  it("a state-changing method on the probes is not a page action", async () => {
    const res = await fetch(`${app.url}/readyz`, { method: "POST", headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(405);
  });
});

describe("ops: metrics after a scripted session", () => {
  it("counts the allowed call, the mode's denial, the unknown tool and the refused turn", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const created = await member.json("/api/sessions", { method: "POST", body: {} });
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;
    const first = await scrape(app.url);
    const before = first.families;

    const allowed = await chat(member, sessionId, "/tool current_time {}");
    expect(allowed.some((c) => c.type === "tool-output-available")).toBe(true);
    const denied = await chat(member, sessionId, '/tool exec {"command":"ls"}');
    expect(denied.find((c) => c.type === "data-tool_denied")?.data.errorCode).toBe("MODE_DENIED");
    const unknown = await chat(member, sessionId, "/tool no_such_tool {}");
    expect(unknown.find((c) => c.type === "data-tool_denied")?.data.errorCode).toBe("TOOL_NOT_FOUND");
    // Three turns so far and the limit is four a minute: the fifth is refused.
    await chat(member, sessionId, "hello");
    const refused = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, "one too many")),
    });
    expect(refused.status).toBe(429);

    const { status, families, contentType, text } = await scrape(app.url);
    expect(status).toBe(200);
    expect(contentType).toContain("text/plain");
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(families, name, labels) - sample(before, name, labels);
    expect(delta("toolgate_turns_total", { outcome: "completed" })).toBe(4);
    expect(delta("toolgate_tool_decisions_total", { decision: "allow" })).toBe(1);
    expect(delta("toolgate_tool_decisions_total", { decision: "deny", layer: "not_found" })).toBe(1);
    expect(delta("toolgate_tool_decisions_total", { decision: "deny" })).toBe(2);
    expect(delta("toolgate_tool_calls_total", { outcome: "done" })).toBe(1);
    expect(delta("toolgate_tool_calls_total", { outcome: "denied" })).toBe(2);
    expect(delta("toolgate_rate_limited_total", { limiter: "chat" })).toBe(1);
    // The gate and the run were timed; the recorder's transactions too.
    const observed = (name: string, labels: Record<string, string>) =>
      histogramCount(text, name, labels) - histogramCount(first.text, name, labels);
    expect(observed("toolgate_decision_seconds", { stage: "gate" })).toBe(3);
    expect(observed("toolgate_decision_seconds", { stage: "run" })).toBe(1);
    expect(observed("toolgate_db_outcome_seconds", { kind: "claim", result: "ok" })).toBe(1);
    expect(families.some((f) => f.name === "toolgate_decision_seconds" && f.type === "HISTOGRAM")).toBe(true);
    expect(sample(families, "toolgate_approvals_pending")).toBe(0);
    // Every family is ours (default process metrics too) and no label carries a model-chosen tool name.
    expect(families.every((f) => f.name.startsWith("toolgate_"))).toBe(true);
    expect(JSON.stringify(families)).not.toContain("no_such_tool");
  });
});

describe("ops: event streams", () => {
  it("open streams are counted, and closing them is seen; an event's fan-out is timed", async () => {
    // The owner: the member used up the per-minute turn limit above.
    const member = await signedIn(app.url, "owner@example.com");
    const count = async () => sample((await scrape(app.url)).families, "toolgate_sse_connections");
    const base = await count();
    const first = await scrape(app.url);
    const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const streams = [
      openSse(member, `/api/me/events?session=${sessionId}`),
      openSse(member, `/api/me/events?session=${sessionId}`),
    ];
    await Promise.all(streams.map((s) => s.ready));
    expect(await count()).toBe(base + 2);
    // The turn's events go to both streams.
    await chat(member, sessionId, "hello");
    await until(
      "a fan-out observed",
      async () =>
        histogramCount((await scrape(app.url)).text, "toolgate_sse_fanout_seconds") >
        histogramCount(first.text, "toolgate_sse_fanout_seconds")
          ? true
          : null,
      15_000,
      200,
    );
    await Promise.all(streams.map((s) => s.close()));
    await until("streams closed", async () => ((await count()) === base ? true : null), 15_000, 200);
  });
});

describe("ops: who may scrape /metrics", () => {
  it("loopback: a forged X-Forwarded-For is ignored without a trusted proxy", async () => {
    expect((await scrape(app.url, { "x-forwarded-for": "203.0.113.9" })).status).toBe(200);
  });

  it("behind a trusted proxy the proxy's client decides: remote is refused, loopback is served", async () => {
    const remote = await scrape(proxied.url, { "x-forwarded-for": "203.0.113.9" });
    expect(remote.status).toBe(403);
    expect(JSON.parse(remote.text).error.code).toBe("FORBIDDEN");
    expect((await scrape(proxied.url, { "x-forwarded-for": "127.0.0.1" })).status).toBe(200);
  });

  it("METRICS_TOKEN opens it from elsewhere; a wrong or absent token does not", async () => {
    expect(
      (await scrape(proxied.url, { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(200);
    const wrong = await scrape(proxied.url, { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain(TOKEN);
    // A bad token is refused even from loopback (it was meant for something).
    expect((await scrape(app.url, { authorization: "Bearer nope" })).status).toBe(401);
    expect((await scrape(proxied.url, { "x-forwarded-for": "203.0.113.9", authorization: "Basic eDp5" })).status).toBe(
      401,
    );
  });
});
