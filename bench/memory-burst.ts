// Issue 29, gap 2: memory that comes back after a burst. 4,000 session creations from one member (16 at a time,
// against SESSION_WRITES_PER_MINUTE=30, so almost all are refused with 429) on a warmed-up instance (SQLite), with
// the server's RSS before, right after, and 15 s and 30 s later; once with the idle full GC of scripts/server.mjs off
// (TOOLGATE_IDLE_GC=off: V8 keeps its grown heap until its own next full GC) and once on (the default).
// Needs `npx next build` first. `npx tsx --conditions=react-server bench/memory-burst.ts`.
import fs from "node:fs";
import { startApp } from "../tests/support/app-server";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { signedIn } from "../tests/support/http-client";

const BURST = 4_000;
const WARM_UP = 200;

/** n session creations, 16 at a time; answers how many were created (the rest are refused with 429). */
async function burst(client: Awaited<ReturnType<typeof signedIn>>, n: number): Promise<number> {
  let next = 0;
  let created = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < n) {
        const res = await client.fetch("/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        if (res.status === 201) created++;
        await res.body?.cancel();
      }
    }),
  );
  return created;
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function row(label: string, idleGc: "on" | "off"): Promise<string> {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const app = await startApp({ databaseUrl: url, env: { SESSION_WRITES_PER_MINUTE: "30", TOOLGATE_IDLE_GC: idleGc } });
  try {
    const client = await signedIn(app.url, "member@example.com");
    const pid = app.process.pid!;
    // A warm-up first (the route's code loaded and compiled, the limiter's rows made), then start-up settles and,
    // with the idle GC on, its first idle collection runs: "before" is a server that has served, as in production.
    await burst(client, WARM_UP);
    await sleep(15_000);
    const before = rssMb(pid);
    const t0 = performance.now();
    const created = await burst(client, BURST);
    const seconds = (performance.now() - t0) / 1000;
    const end = rssMb(pid);
    await sleep(15_000);
    const at15 = rssMb(pid);
    await sleep(15_000);
    const at30 = rssMb(pid);
    return `| ${label} | ${created} | ${seconds.toFixed(1)} s | ${before.toFixed(0)} MB | ${end.toFixed(0)} MB | ${at15.toFixed(0)} MB | ${at30.toFixed(0)} MB |`;
  } finally {
    await app.stop();
  }
}

export async function runMemoryBurstBench(): Promise<string> {
  const off = await row("idle GC off (`TOOLGATE_IDLE_GC=off`, as before)", "off");
  console.error(off);
  const on = await row("idle GC on (default)", "on");
  console.error(on);
  return [
    "## Memory after a burst (issue 29, `bench/memory-burst.ts`)",
    "",
    `${BURST.toLocaleString("en")} × \`POST /api/sessions\` from one member, 16 at a time, limit 30/min, on a fresh instance (SQLite) after a warm-up of ${WARM_UP} such requests: the server's RSS 15 s after the warm-up, right after the burst, and 15 s and 30 s later. The idle GC (scripts/server.mjs) runs one full collection once no request has come for 10 s and the heap's used bytes have grown 16 MB past what the last such collection left.`,
    "",
    "| server | created | took | RSS before | right after | 15 s later | 30 s later |",
    "|---|---:|---:|---:|---:|---:|---:|",
    off,
    on,
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
