// Governance overhead (issue 27): the built app's chat turn against a bare AI SDK route (bench/bare-route.ts) in the
// same run: same offline model, same current_time tool, same UI message stream, both over HTTP on loopback. Measured
// per turn: server CPU (the server process's user + system time over a batch, from /proc), time to first byte and
// time to the stream's end. The two take turns in rounds so both meet the same machine.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn, type HttpClient } from "../tests/support/http-client";
import { stats } from "./stats";

const ROOT = path.resolve(__dirname, "..");
const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";
const TURNS = Number(process.env.BENCH_OVERHEAD_TURNS ?? 100);
const ROUNDS = 3;
const WARMUP = 20;
const PROMPT = "what time is it";
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim() || 100);

/** User + system CPU time of one process so far, in ms. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

type Turn = () => Promise<Response>;
type Batch = { cpuPerTurn: number; ttfb: number[]; total: number[] };

async function timedTurn(turn: Turn, ttfb: number[], total: number[]): Promise<void> {
  const started = performance.now();
  const res = await turn();
  if (res.status !== 200 || !res.body) throw new Error(`turn answered ${res.status}`);
  const reader = res.body.getReader();
  let first = true;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first) {
      ttfb.push(performance.now() - started);
      first = false;
    }
    text += new TextDecoder().decode(value);
  }
  total.push(performance.now() - started);
  if (!text.includes("current_time")) throw new Error("the turn did not call current_time");
}

async function batch(pid: number, turns: Turn[]): Promise<Batch> {
  const ttfb: number[] = [];
  const total: number[] = [];
  const before = cpuMs(pid);
  for (const turn of turns) await timedTurn(turn, ttfb, total);
  return { cpuPerTurn: (cpuMs(pid) - before) / turns.length, ttfb, total };
}

async function startBareRoute(): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["--conditions=react-server", "bench/bare-route.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`the bare route exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}

/** The node process that serves: tsx starts the script in a child of its own. */
function servingPid(child: ChildProcess): number {
  const children = fs
    .readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
    .trim()
    .split(" ")
    .filter(Boolean);
  return Number(children[0] ?? child.pid);
}

async function appTurns(member: HttpClient, n: number): Promise<Turn[]> {
  const turns: Turn[] = [];
  for (let i = 0; i < n; i++) {
    // A session per turn: the bare route keeps no history, so neither side reads a growing transcript.
    const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    turns.push(() =>
      member.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sessionId, message: { role: "user", parts: [{ type: "text", text: PROMPT }] } }),
      }),
    );
  }
  return turns;
}

const f = (n: number) => n.toFixed(2);

export async function runOverheadBench(): Promise<string> {
  const rows: string[] = [];
  const targets: Array<{ kind: string; url: string; drop?: () => Promise<void> }> = [
    { kind: "SQLite", url: newSqliteUrl() },
  ];
  const pgBase = await reachablePostgresBase(process.env.TEST_DATABASE_URL_PG ?? PG_DEFAULT);
  if (pgBase) targets.push({ kind: "PostgreSQL", ...(await newPostgresUrl(pgBase)) });
  const bare = await startBareRoute();
  const barePid = servingPid(bare.process);
  const bareTurn: Turn = () => fetch(bare.url, { method: "POST", body: JSON.stringify({ text: PROMPT }) });
  try {
    for (const target of targets) {
      prepareDatabase(target.url);
      let app: RunningApp | undefined;
      try {
        app = await startApp({ databaseUrl: target.url });
        const member = await signedIn(app.url, "member@example.com");
        await batch(app.process.pid!, await appTurns(member, WARMUP));
        await batch(
          barePid,
          Array.from({ length: WARMUP }, () => bareTurn),
        );
        const ours: Batch[] = [];
        const theirs: Batch[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const turns = await appTurns(member, TURNS);
          ours.push(await batch(app.process.pid!, turns));
          theirs.push(
            await batch(
              barePid,
              Array.from({ length: TURNS }, () => bareTurn),
            ),
          );
        }
        const cpu = (bs: Batch[]) => bs.reduce((sum, b) => sum + b.cpuPerTurn, 0) / bs.length;
        const [oursTtfb, theirsTtfb] = [stats(ours.flatMap((b) => b.ttfb)), stats(theirs.flatMap((b) => b.ttfb))];
        const [oursTotal, theirsTotal] = [stats(ours.flatMap((b) => b.total)), stats(theirs.flatMap((b) => b.total))];
        rows.push(
          `| ${target.kind} | ${f(cpu(ours))} | ${f(cpu(theirs))} | **${(cpu(ours) / cpu(theirs)).toFixed(1)}×** | ${f(oursTtfb.p50)} | ${f(theirsTtfb.p50)} | **+${f(oursTtfb.p50 - theirsTtfb.p50)}** | ${f(oursTotal.p50)} | ${f(theirsTotal.p50)} | ${f(oursTotal.p99)} | ${f(theirsTotal.p99)} |`,
        );
      } finally {
        await app?.stop();
        await target.drop?.().catch(() => undefined);
      }
    }
  } finally {
    bare.process.kill("SIGTERM");
  }
  return [
    "## Governance overhead: a chat turn against a bare AI SDK route",
    "",
    `The built app (\`POST /api/chat\`, a member in a new chat_safe session: sign-in check, quota, policy, the run's begin, the gated \`current_time\` call with its claim, result and audit row, events, the run's end) against \`bench/bare-route.ts\`: the same offline model, the same tool and the same UI message stream on plain node:http, with no auth, policy or database. "${PROMPT}": two model steps and one tool call. Sequential turns over loopback; ${ROUNDS} rounds of ${TURNS} turns each side, taking turns, after ${WARMUP} warm-up turns. CPU = the serving process's user + system time over a round / turns (from /proc, ${TICK_MS} ms ticks). Load average at the start: ${os.loadavg()[0]!.toFixed(2)}. Goal (issue 27): ≤ 3× CPU and ≤ +5 ms to first byte.`,
    "",
    "| database | CPU/turn ours (ms) | CPU/turn bare (ms) | CPU ratio | first byte p50 ours (ms) | bare (ms) | difference (ms) | whole turn p50 ours (ms) | bare (ms) | whole turn p99 ours (ms) | bare (ms) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
