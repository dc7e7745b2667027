// Issue 29, gap 2: memory that comes back after a burst. 4,000 session creations from one member (16 at a time,
// against SESSION_WRITES_PER_MINUTE=30, so almost all are refused with 429) on a fresh instance (SQLite), with the
// server's RSS before, right after, and 15 s and 30 s later; once with the idle full GC of scripts/server.mjs off
// (TOOLGATE_IDLE_GC=off: V8 keeps its grown heap until its own next full GC) and once on (the default).
// Needs `npx next build` first. `npx tsx --conditions=react-server bench/memory-burst.ts`.
import fs from "node:fs";
import { startApp } from "../tests/support/app-server";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { signedIn } from "../tests/support/http-client";

const BURST = 4_000;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function row(label: string, idleGc: "on" | "off"): Promise<string> {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const app = await startApp({ databaseUrl: url, env: { SESSION_WRITES_PER_MINUTE: "30", TOOLGATE_IDLE_GC: idleGc } });
  try {
    const client = await signedIn(app.url, "member@example.com");
    const pid = app.process.pid!;
    await sleep(15_000); // start-up settles (and, with the idle GC on, its first idle collection runs)
    const before = rssMb(pid);
    let next = 0;
    let created = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < BURST) {
          const res = await client.fetch("/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
          if (res.status === 201) created++;
          await res.body?.cancel();
        }
      }),
    );
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
    `${BURST.toLocaleString("en")} × \`POST /api/sessions\` from one member, 16 at a time, limit 30/min, on a fresh instance (SQLite): the server's RSS 15 s after start-up, right after the burst, and 15 s and 30 s later. The idle GC (scripts/server.mjs) runs one full collection once no request has come for 10 s and the heap holds more than 64 MB it does not use.`,
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
