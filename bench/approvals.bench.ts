// Approvals benchmark, against the built app started as child processes on loopback:
//  - decision-to-event latency: from sending POST /api/approvals/[id]/decision until `approval.resolved`
//    for that id arrives on an inbox SSE stream; on one instance (SQLite) and across two instances on one
//    PostgreSQL database (decision POSTed to instance A, event read from instance B's stream: NOTIFY path);
//  - 1,000 concurrent SSE subscribers on one instance: server RSS before/after (memory per connection) and
//    the time for one event to reach all of them.
// Needs `npx next build` first. PostgreSQL parts are skipped when no server answers.
import http from "node:http";
import fs from "node:fs";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn, type HttpClient } from "../tests/support/http-client";

const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";
const LATENCY_SAMPLES = Number(process.env.APPROVALS_BENCH_SAMPLES ?? 200);
const SUBSCRIBERS = Number(process.env.APPROVALS_BENCH_SUBSCRIBERS ?? 1000);

type Stats = { n: number; p50: number; p99: number; mean: number; max: number };

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { n: s.length, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length, max: s.at(-1)! };
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

function cookieOf(client: HttpClient): string {
  return (client as unknown as { cookieHeader(): string }).cookieHeader();
}

/** A raw SSE connection (own socket) that reports `approval.*` events by approval id. */
export function sseConnection(
  baseUrl: string,
  cookie: string,
  onEvent: (type: string, id: string) => void,
): Promise<{ close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${baseUrl}/api/approvals/stream`,
      { headers: { cookie, accept: "text/event-stream" }, agent: false },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`SSE status ${res.statusCode}`));
        let buffer = "";
        let opened = false;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let cut: number;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (!opened && block.includes(": connected")) {
              opened = true;
              resolve({ close: () => req.destroy() });
            }
            const type = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (type && data) onEvent(type, (JSON.parse(data) as { payload: { id: string } }).payload.id);
          }
        });
        res.on("error", () => undefined);
      },
    );
    req.on("error", reject);
  });
}

async function ownSession(client: HttpClient): Promise<string> {
  const res = await client.json("/api/sessions", { method: "POST", body: {} });
  if (res.status !== 201) throw new Error(`session: ${res.status}`);
  return res.body.id;
}

/** Decision-to-event latency: decide on `decideOn`, observe on `observeOn`'s inbox stream. */
async function decisionLatency(decideOn: RunningApp, observeOn: RunningApp, samples: number): Promise<Stats> {
  // Four eyes: the member asks, an owner decides (an owner may not decide their own request).
  const member = await signedIn(decideOn.url, "member@example.com");
  const ownerA = await signedIn(decideOn.url, "owner@example.com");
  const ownerB = await signedIn(observeOn.url, "owner@example.com");
  const sessionId = await ownSession(member);
  const waiters = new Map<string, (t: number) => void>();
  const seen = new Map<string, number>();
  const conn = await sseConnection(observeOn.url, cookieOf(ownerB), (type, id) => {
    if (type !== "approval.resolved") return;
    const t = performance.now();
    const w = waiters.get(id);
    if (w) w(t);
    else seen.set(id, t);
  });
  const out: number[] = [];
  try {
    for (let i = 0; i < samples + 10; i++) {
      const req = await member.json("/api/approvals", {
        method: "POST",
        body: { sessionId, toolName: "exec", callId: `bench-${Date.now()}-${i}`, args: { command: "rm -rf data" } },
      });
      if (req.status !== 202) throw new Error(`request: ${req.status}`);
      const id = req.body.id as string;
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no approval.resolved for ${id} in 10 s`)), 10_000);
        waiters.set(id, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
      const t0 = performance.now();
      const res = await ownerA.json(`/api/approvals/${id}/decision`, { method: "POST", body: { decision: "deny" } });
      if (res.status !== 200) throw new Error(`decision: ${res.status}`);
      const t1 = seen.get(id) ?? (await arrived);
      waiters.delete(id);
      if (i >= 10) out.push(t1 - t0); // the first ten warm up
    }
  } finally {
    conn.close();
  }
  return stats(out);
}

/** RSS of the app's whole process group (next start and any server child), in bytes. */
function groupRss(pid: number): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pid) continue; // pgrp
      const rssPages = Number(fields[21]);
      total += rssPages * 4096;
    } catch {
      // the process went away
    }
  }
  return total;
}

export async function settleRss(pid: number): Promise<number> {
  // RSS moves with GC; take the median of a few readings over two seconds.
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 400));
    readings.push(groupRss(pid));
  }
  return readings.sort((a, b) => a - b)[2]!;
}

export async function manySubscribers(app: RunningApp, count: number, batchSize = 50) {
  const owner = await signedIn(app.url, "owner@example.com");
  const cookie = cookieOf(owner);
  const sessionId = await ownSession(owner);
  // Warm the stream route once so its code is loaded before the baseline.
  (await sseConnection(app.url, cookie, () => undefined)).close();
  const before = await settleRss(app.process.pid!);
  const received = new Map<string, number>();
  let target: string | null = null;
  let done: (() => void) | null = null;
  const conns: Array<{ close: () => void }> = [];
  const t0 = performance.now();
  for (let i = 0; i < count; i += batchSize) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(batchSize, count - i) }, () =>
        sseConnection(app.url, cookie, (type, id) => {
          if (type !== "approval.requested") return;
          received.set(id, (received.get(id) ?? 0) + 1); // counted before the request's answer names the id
          if (id === target && received.get(id) === count) done?.();
        }),
      ),
    );
    conns.push(...batch);
  }
  const connectSeconds = (performance.now() - t0) / 1000;
  const after = await settleRss(app.process.pid!);
  // One event to all of them.
  const allReceived = new Promise<void>((r) => (done = r));
  const tFan = performance.now();
  const req = await owner.json("/api/approvals", {
    method: "POST",
    body: { sessionId, toolName: "exec", callId: `fanout-${Date.now()}`, args: { command: "rm -rf data" } },
  });
  target = req.body.id;
  if (received.get(target!) === count) done!();
  await Promise.race([
    allReceived,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`fan-out incomplete: ${received.get(target!) ?? 0}/${count}`)), 60_000),
    ),
  ]);
  const fanOutMs = performance.now() - tFan;
  const serverFanOutMs = loggedFanOutMs(app, count);
  for (const c of conns) c.close();
  await new Promise((r) => setTimeout(r, 1_000));
  const closed = await settleRss(app.process.pid!);
  return {
    count,
    connectSeconds,
    before,
    after,
    closed,
    perConnection: (after - before) / count,
    fanOutMs,
    serverFanOutMs,
  };
}

/**
 * The server's own measure of the last fan-out to `streams` streams (lib/events/sse.ts logs `event_fanout`): from the
 * first delivery to the last write handed to a socket, without the benchmark client's parsing of every stream.
 */
function loggedFanOutMs(app: RunningApp, streams: number): number | null {
  const lines = app.logs
    .join("")
    .split("\n")
    .filter((l) => l.includes('"event_fanout"'));
  for (const line of lines.reverse()) {
    try {
      const record = JSON.parse(line.slice(line.indexOf("{"))) as { streams?: number; ms?: number };
      if (record.streams === streams && typeof record.ms === "number") return record.ms;
    } catch {
      // a chunk boundary cut the line
    }
  }
  return null;
}

export async function runApprovalsBench(): Promise<string> {
  const lines: string[] = ["## Approvals", ""];
  const apps: RunningApp[] = [];
  const drops: Array<() => Promise<void>> = [];
  try {
    const sqliteUrl = newSqliteUrl();
    prepareDatabase(sqliteUrl);
    const one = await startApp({ databaseUrl: sqliteUrl });
    apps.push(one);
    const single = await decisionLatency(one, one, LATENCY_SAMPLES);

    let cross: Stats | null = null;
    let pgSingle: Stats | null = null;
    const pgBase = await reachablePostgresBase(process.env.TEST_DATABASE_URL_PG ?? PG_DEFAULT);
    if (pgBase) {
      const pg = await newPostgresUrl(pgBase);
      drops.push(pg.drop);
      prepareDatabase(pg.url);
      const [a, b] = await Promise.all([startApp({ databaseUrl: pg.url }), startApp({ databaseUrl: pg.url })]);
      apps.push(a, b);
      pgSingle = await decisionLatency(a, a, LATENCY_SAMPLES);
      cross = await decisionLatency(a, b, LATENCY_SAMPLES);
    }

    lines.push(
      "Decision-to-event latency: from sending `POST /api/approvals/[id]/decision` until `approval.resolved` for that id is read from an inbox SSE stream (`/api/approvals/stream`). Each sample is one fresh approval (requested through the API, then denied), sequentially, after 10 warm-up rounds; the app runs as `next start` on loopback.",
      "",
      "| Setup | Samples | p50 | p99 | mean | max |",
      "|---|---:|---:|---:|---:|---:|",
      `| one instance, SQLite | ${single.n} | ${ms(single.p50)} | ${ms(single.p99)} | ${ms(single.mean)} | ${ms(single.max)} |`,
      pgSingle
        ? `| one instance, PostgreSQL | ${pgSingle.n} | ${ms(pgSingle.p50)} | ${ms(pgSingle.p99)} | ${ms(pgSingle.mean)} | ${ms(pgSingle.max)} |`
        : "| one instance, PostgreSQL | skipped (no PostgreSQL server) | | | | |",
      cross
        ? `| two instances, PostgreSQL (decide on A, stream from B; LISTEN/NOTIFY) | ${cross.n} | ${ms(cross.p50)} | ${ms(cross.p99)} | ${ms(cross.mean)} | ${ms(cross.max)} |`
        : "| two instances, PostgreSQL | skipped (no PostgreSQL server) | | | | |",
      "",
    );

    // A fresh app: after the latency runs the heap has room to spare, which hides what each connection costs.
    const freshUrl = newSqliteUrl();
    prepareDatabase(freshUrl);
    const fresh = await startApp({ databaseUrl: freshUrl });
    apps.push(fresh);
    const sub = await manySubscribers(fresh, SUBSCRIBERS);
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
    lines.push(
      `Concurrent SSE subscribers on one freshly started instance (SQLite): ${sub.count} inbox streams of one owner opened in batches of 50 on separate sockets (${sub.connectSeconds.toFixed(1)} s to open all). Memory is the RSS of the server's process group, median of five readings.`,
      "",
      "| Subscribers | RSS before | RSS with all open | per connection | one event reaches all | server fan-out | RSS after closing |",
      "|---:|---:|---:|---:|---:|---:|---:|",
      `| ${sub.count} | ${mib(sub.before)} | ${mib(sub.after)} | ${(sub.perConnection / 1024).toFixed(1)} KiB | ${ms(sub.fanOutMs)} | ${sub.serverFanOutMs === null ? "not logged" : ms(sub.serverFanOutMs)} | ${mib(sub.closed)} |`,
      "",
    );
  } finally {
    for (const app of apps) await app.stop();
    for (const drop of drops) await drop().catch(() => undefined);
  }
  return lines.join("\n");
}

if (require.main === module) {
  runApprovalsBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
