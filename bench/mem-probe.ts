import fs from "node:fs";
import { startApp } from "../tests/support/app-server";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { signedIn } from "../tests/support/http-client";
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function metrics(url: string) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const pick = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, "m").exec(text)?.[1] ?? NaN) / 1048576;
  return `heapUsed ${pick("toolgate_nodejs_heap_size_used_bytes").toFixed(0)} heapTotal ${pick("toolgate_nodejs_heap_size_total_bytes").toFixed(0)} ext ${pick("toolgate_nodejs_external_memory_bytes").toFixed(0)}`;
}
async function burst(client: Awaited<ReturnType<typeof signedIn>>, n: number) {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next++ < n) {
      const res = await client.fetch("/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      await res.body?.cancel();
    }
  }));
}
async function main() {
  const url = newSqliteUrl();
  prepareDatabase(url);
  const app = await startApp({ databaseUrl: url, env: { SESSION_WRITES_PER_MINUTE: "30", ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}) } });
  try {
    const client = await signedIn(app.url, "member@example.com");
    const pid = app.process.pid!;
    const show = async (label: string) => console.log(label, rssMb(pid).toFixed(0), "MB", await metrics(app.url));
    await sleep(5000); await show("start");
    await burst(client, 200); await sleep(15000); await show("after warm-up 200 +15s");
    for (let i = 1; i <= Number(process.env.BURSTS ?? 3); i++) { await burst(client, 4000); await show(`burst ${i} end`); await sleep(20000); await show(`burst ${i} +20s`); }
  } finally { await app.stop(); }
}
void main();
