// Issue 34, the parts of lib/ops that need no server: who may scrape, what a span attribute may carry, which
// limits a command hit, metric labels a hostile model cannot grow, one registry per process, log levels.
import { afterEach, describe, expect, it } from "vitest";
import { isLoopback, metricsAccess } from "@/lib/ops/metrics-access";
import { countDecision, limitsHit, metricsRegistry, renderMetrics } from "@/lib/ops/metrics";
import { safeAttribute } from "@/lib/ops/tracing";
import { AsyncLocalStorage } from "node:async_hooks";
import { addLogSink, currentRequestId, detached, log, type LogRecord, type RequestContext } from "@/lib/log";

const globals = globalThis as { toolgateClientAddressDecided?: boolean };

describe("ops: metrics access", () => {
  afterEach(() => {
    delete globals.toolgateClientAddressDecided;
  });

  it("loopback addresses, and look-alikes that are not", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(a), a).toBe(true);
    for (const a of ["10.0.0.1", "127.0.0.1.evil.example", "::ffff:10.0.0.1", "0.0.0.0", "unknown", "1127.0.0.1"])
      expect(isLoopback(a), a).toBe(false);
  });

  it("the client address is trusted only under the app's server (next start leaves X-Forwarded-For as sent)", () => {
    const headers = new Headers({ "x-forwarded-for": "127.0.0.1" });
    expect(metricsAccess(headers)).toMatchObject({ ok: false, status: 403 });
    globals.toolgateClientAddressDecided = true;
    expect(metricsAccess(headers)).toEqual({ ok: true });
    expect(metricsAccess(new Headers({ "x-forwarded-for": "203.0.113.9" }))).toMatchObject({ ok: false, status: 403 });
  });

  it("a bearer token without METRICS_TOKEN configured is refused, even from loopback", () => {
    globals.toolgateClientAddressDecided = true;
    expect(
      metricsAccess(new Headers({ "x-forwarded-for": "127.0.0.1", authorization: "Bearer anything-at-all-123456" })),
    ).toMatchObject({ ok: false, status: 401 });
  });
});

describe("ops: span attributes pass the audit's redaction", () => {
  it("host paths, database text and long values", () => {
    expect(safeAttribute("/home/alice/secret.txt")).toBe("<path>");
    expect(safeAttribute("read /etc/shadow now")).toBe("read <path> now");
    expect(safeAttribute('relation "User" does not exist')).toBe("[redacted]");
    expect(String(safeAttribute("x".repeat(5000))).length).toBeLessThanOrEqual(257);
    expect(safeAttribute(["/root/a/b", "ok"])).toEqual(["<path>", "ok"]);
    expect(safeAttribute(3)).toBe(3);
    expect(safeAttribute(undefined)).toBeUndefined();
  });
});

describe("ops: metrics", () => {
  it("limits a finished command ran into", () => {
    expect(limitsHit({ timedOut: true, truncated: true, signal: "SIGKILL" })).toEqual(["time", "output"]);
    expect(limitsHit({ signal: "SIGXCPU" })).toEqual(["cpu"]);
    expect(limitsHit({ signal: "SIGXFSZ" }, true)).toEqual(["disk", "file_size"]);
    expect(limitsHit({})).toEqual([]);
  });

  it("labels come from fixed sets: a layer or decision a model made up is counted as other", async () => {
    countDecision("deny", "mcp__evil__$(rm -rf /)");
    countDecision("yes-please", "mode");
    const text = (await renderMetrics()).body;
    expect(text).not.toContain("evil");
    expect(text).toContain('toolgate_tool_decisions_total{decision="deny",layer="other"} 1');
    expect(text).toContain('toolgate_tool_decisions_total{decision="other",layer="mode"} 1');
  });

  it("one registry per process, on globalThis (every bundle's copy of the module counts into it)", () => {
    expect(metricsRegistry()).toBe(
      (globalThis as { toolgateMetrics?: { registry: unknown } }).toolgateMetrics?.registry,
    );
  });
});

describe("ops: log levels and context", () => {
  const original = process.env.LOG_LEVEL;
  afterEach(() => {
    if (original === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = original;
  });

  it("LOG_LEVEL decides what reaches the console; sinks see every record", () => {
    const printed: string[] = [];
    const saved = console.log;
    console.log = (line: string) => void printed.push(line);
    const seen: LogRecord[] = [];
    const remove = addLogSink((r) => seen.push(r));
    try {
      process.env.LOG_LEVEL = "warn";
      log("info", "quiet_event");
      process.env.LOG_LEVEL = "debug";
      log("debug", "loud_event");
    } finally {
      console.log = saved;
      remove();
    }
    expect(printed.some((l) => l.includes("quiet_event"))).toBe(false);
    expect(printed.some((l) => l.includes("loud_event"))).toBe(true);
    expect(seen.map((r) => r.event)).toEqual(["quiet_event", "loud_event"]);
  });

  it("records carry the request id of the request being served; detached work does not", () => {
    const store = ((
      globalThis as { toolgateRequestContext?: AsyncLocalStorage<RequestContext> }
    ).toolgateRequestContext ??= new AsyncLocalStorage());
    const seen: LogRecord[] = [];
    const remove = addLogSink((r) => seen.push(r));
    try {
      store.run({ requestId: "req-0123456789" }, () => {
        log("info", "inside");
        expect(currentRequestId()).toBe("req-0123456789");
        detached(() => log("info", "background"));
      });
    } finally {
      remove();
    }
    expect(seen.find((r) => r.event === "inside")?.requestId).toBe("req-0123456789");
    expect(seen.find((r) => r.event === "background")?.requestId).toBeUndefined();
  });
});
