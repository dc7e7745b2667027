// Issue 29: what one member can make the server do. (1) The cost of resuming event streams with Last-Event-ID: 0
// over a long event log, with the replay cap (EVENT_REPLAY_MAX_ROWS, default 2,000: the stream starts from a snapshot)
// and without it (the cap set out of reach: the whole log is replayed, as before). (2) A burst of 4,000 session
// creations from one member against the per-user write limit: how many go through, and the server's memory.
// One freshly started instance (SQLite) per row. Needs `npx next build` first. Opt-in: `npm run bench -- bounds`.
import fs from "node:fs";
import http from "node:http";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { createDb } from "@/lib/db/client";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { cookieOf } from "../tests/support/approvals-helpers";
import { signedIn } from "../tests/support/http-client";

const LOG_ROWS = Number(process.env.BOUNDS_LOG_ROWS ?? 5_000);
const STREAMS = Number(process.env.BOUNDS_STREAMS ?? 10);
const BURST = 4_000;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/**
 * Opens a stream with Last-Event-ID: 0 and resolves once it is caught up (a reset, or the last row replayed), with how
 * many events it was sent. A stream the server cuts off (more than 1 MiB unsent: a long replay) reconnects from the
 * last id it got, as EventSource does; the reconnections are counted.
 */
function resume(
  app: RunningApp,
  cookie: string,
  lastSeq: number,
): Promise<{ ms: number; events: number; bytes: number; reconnects: number }> {
  const start = performance.now();
  let events = 0;
  let bytes = 0;
  let reconnects = -1;
  let lastId = "0";
  return new Promise((resolve, reject) => {
    const connect = () => {
      reconnects++;
      let done = false;
      const req = http.get(
        `${app.url}/api/me/events`,
        { headers: { cookie, "last-event-id": lastId, accept: "text/event-stream" }, agent: false },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            bytes += chunk.length;
            text += chunk;
            let cut: number;
            while ((cut = text.indexOf("\n\n")) >= 0) {
              const block = text.slice(0, cut);
              text = text.slice(cut + 2);
              if (block.includes("event: stream.reset") || block.includes(`id: ${lastSeq}\n`)) {
                done = true;
                resolve({
                  ms: performance.now() - start,
                  events: events + (block.startsWith("id: ") ? 1 : 0),
                  bytes,
                  reconnects,
                });
                req.destroy();
                return;
              }
              const id = /^id: (\d+)/.exec(block);
              if (id) {
                events++;
                lastId = id[1]!;
              }
            }
          });
          res.on("close", () => {
            if (!done) setTimeout(connect, 50);
          });
        },
      );
      req.on("error", (error) => (done || String(error).includes("socket hang up") ? undefined : reject(error)));
    };
    connect();
  });
}

async function replayRow(label: string, env: Record<string, string>): Promise<string> {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const db = createDb(url);
  const member = await db.user.findFirstOrThrow({ where: { email: "member@example.com" } });
  const payload = { userId: member.id, change: "roles" };
  for (let i = 0; i < LOG_ROWS; i += 1_000) {
    await db.eventLog.createMany({
      data: Array.from({ length: Math.min(1_000, LOG_ROWS - i) }, () => ({
        type: "account.changed",
        scope: "account",
        payload,
      })),
    });
  }
  const lastSeq = (await db.eventLog.findFirstOrThrow({ orderBy: { seq: "desc" } })).seq;
  await db.$disconnect();
  const app = await startApp({ databaseUrl: url, env });
  try {
    const cookie = cookieOf(await signedIn(app.url, "member@example.com"));
    const one = await resume(app, cookie, lastSeq);
    const t0 = performance.now();
    const many = await Promise.all(Array.from({ length: STREAMS }, () => resume(app, cookie, lastSeq)));
    const allMs = performance.now() - t0;
    const sent = many.reduce((n, r) => n + r.events, 0);
    const reconnects = many.reduce((n, r) => n + r.reconnects, 0);
    return `| ${label} | ${LOG_ROWS.toLocaleString("en")} | ${one.ms.toFixed(0)} ms | ${one.events.toLocaleString("en")} | ${STREAMS} | ${allMs.toFixed(0)} ms | ${sent.toLocaleString("en")} (${(many.reduce((n, r) => n + r.bytes, 0) / 2 ** 20).toFixed(1)} MiB), ${reconnects} reconnections |`;
  } finally {
    await app.stop();
  }
}

async function burstRow(): Promise<string> {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const app = await startApp({ databaseUrl: url, env: { SESSION_WRITES_PER_MINUTE: "30" } });
  try {
    const client = await signedIn(app.url, "member@example.com");
    const pid = app.process.pid!;
    const before = rssMb(pid);
    let created = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < BURST) {
          const res = await client.fetch("/api/sessions", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          if (res.status === 201) created++;
          await res.body?.cancel();
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const peak = rssMb(pid);
    await new Promise((r) => setTimeout(r, 30_000));
    const after = rssMb(pid);
    return `| ${BURST.toLocaleString("en")} × \`POST /api/sessions\`, 16 at a time (limit 30/min) | ${created} | ${seconds.toFixed(1)} s | ${before.toFixed(0)} MB | ${peak.toFixed(0)} MB | ${after.toFixed(0)} MB |`;
  } finally {
    await app.stop();
  }
}

export async function runBoundsBench(): Promise<string> {
  const capped = await replayRow("replay cap 2,000 (default): snapshot", { EVENT_STREAMS_PER_USER: "100000" });
  console.error(capped);
  const uncapped = await replayRow("no cap (as before): whole log replayed", {
    EVENT_STREAMS_PER_USER: "100000",
    EVENT_REPLAY_MAX_ROWS: "1000000",
  });
  console.error(uncapped);
  const burst = await burstRow();
  console.error(burst);
  return [
    "## Bounds on one member (issue 29)",
    "",
    "Event streams resumed with `Last-Event-ID: 0` on one instance (SQLite) whose event log holds the given rows, all of them visible to the member (`account.changed`): the time until one stream is caught up (its `stream.reset`, or the last row replayed), then the same for streams opened together by the same member (the per-user stream cap set out of reach, so every stream is served), and what was sent. Then a burst of session creations from one member against `SESSION_WRITES_PER_MINUTE`, with the server's RSS before, at the end, and 30 s later.",
    "",
    "| resume | log rows | one stream caught up | events sent | streams at once | all caught up | events sent to all |",
    "|---|---:|---:|---:|---:|---:|---:|",
    capped,
    uncapped,
    "",
    "| burst | created | took | RSS before | RSS at the end | RSS 30 s later |",
    "|---|---:|---:|---:|---:|---:|",
    burst,
    "",
  ].join("\n");
}

if (require.main === module) {
  runBoundsBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
