// Issue 29: memory that comes back after a burst. Three bursts of 4,000 writes one member can repeat (session
// creations, renames, chat messages, access tokens, in turn; 16 at a time) against the default per-member limits,
// which refuse most of them with 429 (that is part of the load: refusals must not cost memory either), on a warmed-up
// instance (SQLite). The server's used V8 heap and RSS come from its own /metrics (served to loopback; prom-client's
// process.memoryUsage() gauges), read before, right at the end of each burst and 25 s after it: the idle GC of
// scripts/server.mjs runs once no request came for 10 s, and a scrape is a request, so nothing else is read between.
// RSS of the process also from /proc. Needs `npx next build` first.
// `npx tsx --conditions=react-server bench/memory-burst.ts` (`npm run bench -- memory-burst`).
import fs from "node:fs";
import { startApp } from "../tests/support/app-server";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { signedIn, type HttpClient } from "../tests/support/http-client";

const BURSTS = 3;
const BURST = 4_000;
const WARM_UP = 200;
const AFTER_MS = 25_000;
const CONCURRENCY = 16;

type Kind = "create" | "rename" | "message" | "token";
const KINDS: Kind[] = ["create", "rename", "message", "token"];
type Counts = Record<Kind, Record<number, number>>;

function request(kind: Kind, sessionId: string, i: number): [string, RequestInit] {
  const json = (method: string, body: unknown): RequestInit => ({
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (kind === "create") return ["/api/sessions", json("POST", {})];
  if (kind === "rename") return [`/api/sessions/${sessionId}`, json("PATCH", { title: `renamed ${i}` })];
  if (kind === "token") return ["/api/tokens", json("POST", { name: `burst ${i}` })];
  return [
    "/api/chat",
    json("POST", {
      sessionId,
      message: {
        id: `m${i}-${Math.random().toString(36).slice(2, 8)}`,
        role: "user",
        parts: [{ type: "text", text: `hello ${i}` }],
      },
    }),
  ];
}

/** n writes, the kinds in turn, CONCURRENCY at a time; answers the statuses per kind. Bodies are read to the end (a chat turn streams). */
async function burst(client: HttpClient, sessionIds: string[], n: number): Promise<Counts> {
  const counts = Object.fromEntries(KINDS.map((k) => [k, {}])) as Counts;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) {
        const kind = KINDS[i % KINDS.length]!;
        const [path, init] = request(kind, sessionIds[i % sessionIds.length]!, i);
        const res = await client.fetch(path, init);
        await res.arrayBuffer();
        counts[kind][res.status] = (counts[kind][res.status] ?? 0) + 1;
      }
    }),
  );
  return counts;
}

type Memory = { heapMb: number; rssMb: number; procRssMb: number };
const procRssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
async function memory(url: string, pid: number): Promise<Memory> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const gauge = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 1024 / 1024;
  return {
    heapMb: gauge("toolgate_nodejs_heap_size_used_bytes"),
    rssMb: gauge("toolgate_process_resident_memory_bytes"),
    procRssMb: procRssMb(pid),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (m: Memory) => `${m.heapMb.toFixed(0)} MB / ${m.procRssMb.toFixed(0)} MB`;
const statuses = (c: Record<number, number>) =>
  Object.entries(c)
    .map(([s, n]) => `${n}×${s}`)
    .join(" ");

export async function runMemoryBurstBench(): Promise<string> {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const app = await startApp({
    databaseUrl: url,
    env: { SESSION_WRITES_PER_MINUTE: "30", CHAT_TURNS_PER_MINUTE: "30", CREDENTIAL_WRITES_PER_MINUTE: "5" },
  });
  const rows: string[] = [];
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  try {
    const client = await signedIn(app.url, "member@example.com");
    const pid = app.process.pid!;
    const sessionIds: string[] = [];
    for (let i = 0; i < 4; i++)
      sessionIds.push(
        (
          (await (
            await client.fetch("/api/sessions", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: "{}",
            })
          ).json()) as { id: string }
        ).id,
      );
    // A warm-up (every route's code loaded and compiled, the limiters' rows made), then start-up settles and the first
    // idle collection runs: "before" is a server that has served, as in production.
    await burst(client, sessionIds, WARM_UP);
    await sleep(AFTER_MS);
    const baseline = await memory(app.url, pid);
    console.error(`baseline ${mb(baseline)}`);
    let before = baseline;
    for (let b = 1; b <= BURSTS; b++) {
      const t0 = performance.now();
      const counts = await burst(client, sessionIds, BURST);
      const seconds = (performance.now() - t0) / 1000;
      const end = await memory(app.url, pid);
      await sleep(AFTER_MS);
      const after = await memory(app.url, pid);
      const row = `| ${b} | ${KINDS.map((k) => statuses(counts[k])).join("; ")} | ${seconds.toFixed(1)} s | ${mb(before)} | ${mb(end)} | ${mb(after)} | ${after.heapMb - baseline.heapMb >= 0 ? "+" : ""}${(after.heapMb - baseline.heapMb).toFixed(1)} MB |`;
      console.error(row);
      rows.push(row);
      before = after;
    }
  } finally {
    await app.stop();
  }
  return [
    "## Memory after a burst (issue 29, `bench/memory-burst.ts`)",
    "",
    `${BURSTS} bursts of ${BURST.toLocaleString("en")} writes from one member, ${CONCURRENCY} at a time, the kinds in turn: \`POST /api/sessions\` (create), \`PATCH /api/sessions/:id\` (rename), \`POST /api/chat\` (a message; the offline model answers the accepted ones, their streams read to the end) and \`POST /api/tokens\` (an access token), against the per-member limits (sessions 30/min, chat turns 30/min, credentials 5/min: most are refused with 429, which is part of the load). SQLite, after ${WARM_UP} warm-up writes and ${AFTER_MS / 1000} s of quiet. Memory as the server reports it on /metrics (V8 heap used, \`process.memoryUsage().heapUsed\`) and its RSS from /proc, right at the end of each burst and ${AFTER_MS / 1000} s later (the idle GC of scripts/server.mjs runs once no request came for 10 s; nothing is read in between). Load average at the start: ${load}.`,
    "",
    "| burst | statuses: create; rename; message; token | took | heap / RSS before | at the end | 25 s later | heap vs baseline |",
    "|---|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

if (require.main === module) {
  runMemoryBurstBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
