// The gateway's relay of upstream notifications (lib/gateway/notification-relay.ts): progress strictly increasing
// under the client's token after the gateway's own ticks, coalesced when too fast with the last value kept; log
// messages level-filtered, rate-bounded with one warning for the rest, and their data bounded as a result's is.
import { describe, expect, it } from "vitest";
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import {
  boundedLogData,
  LOG_BURST,
  LOG_MAX_DATA_BYTES,
  NotificationRelay,
  PROGRESS_BURST,
} from "@/lib/gateway/notification-relay";

function relayOf(token: string | number | null = "tok", level?: "debug" | "info" | "warning") {
  const sent: ServerNotification[] = [];
  const relay = new NotificationRelay(
    async (n) => void sent.push(n),
    token ?? undefined,
    () => level,
  );
  return {
    relay,
    sent,
    progress: () => sent.filter((n) => n.method === "notifications/progress").map((n) => n.params),
    logs: () => sent.filter((n) => n.method === "notifications/message").map((n) => n.params),
  };
}

describe("NotificationRelay", () => {
  it("upstream progress follows the gateway's own ticks, under the client's token, and never goes back", async () => {
    const { relay, progress } = relayOf("client-token");
    relay.ownProgress("waiting");
    relay.ownProgress("waiting");
    const up = relay.upstream;
    up.progress!("srv", { progress: 0, total: 10 });
    await new Promise((r) => setTimeout(r, 120));
    up.progress!("srv", { progress: 5, total: 10, message: "half" });
    await new Promise((r) => setTimeout(r, 120));
    up.progress!("srv", { progress: 4 });
    relay.ownProgress("waiting");
    await relay.finish();
    expect(progress()).toEqual([
      { progressToken: "client-token", progress: 1, message: "waiting" },
      { progressToken: "client-token", progress: 2, message: "waiting" },
      { progressToken: "client-token", progress: 7, total: 12, message: "half" },
    ]);
  });

  it("no progress token: no progress at all, upstream or own", async () => {
    const { relay, progress } = relayOf(null);
    expect(relay.upstream.progress).toBeUndefined();
    relay.ownProgress("waiting");
    await relay.finish();
    expect(progress()).toEqual([]);
  });

  it("past a burst, progress is coalesced to the latest, which is sent before the answer", async () => {
    const { relay, progress } = relayOf();
    for (let i = 1; i <= 1000; i++) relay.upstream.progress!("srv", { progress: i, total: 1000 });
    await relay.finish();
    expect(progress().map((p) => p.progress)).toEqual([
      ...Array.from({ length: PROGRESS_BURST }, (_, i) => i + 1),
      1000,
    ]);
  });

  it("log messages: level-filtered, a burst then dropped, one warning counting the rest, nothing after finish", async () => {
    const { relay, logs } = relayOf("t", "info");
    relay.upstream.log("srv", { level: "debug", data: "hidden" });
    for (let i = 0; i < 500; i++) relay.upstream.log("srv", { level: "info", logger: "x", data: i });
    await relay.finish();
    relay.upstream.log("srv", { level: "error", data: "late" });
    const got = logs();
    expect(got).toHaveLength(LOG_BURST + 1);
    expect(got[0]).toEqual({ level: "info", logger: "srv/x", data: 0 });
    expect(got.at(-1)).toMatchObject({
      level: "warning",
      logger: "toolgate",
      data: expect.stringMatching(/^Toolgate dropped 480 log messages of MCP server srv/),
    });
  });

  it("log data is sanitised, depth-bounded and size-capped", () => {
    expect(boundedLogData({ a: "x\u0000y\ud800" })).toEqual({ a: "xy\ufffd" });
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(boundedLogData(deep)).toMatch(/nested deeper than 64 levels/);
    const cut = boundedLogData({ blob: "é".repeat(10_000) }) as string;
    expect(cut).toContain(`cap ${LOG_MAX_DATA_BYTES}]`);
    expect(Buffer.byteLength(cut)).toBeLessThan(LOG_MAX_DATA_BYTES + 100);
    expect(cut).not.toContain("\ufffd");
  });
});
