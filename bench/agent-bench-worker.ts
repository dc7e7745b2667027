// One benchmark measurement in its own process, against the database DATABASE_URL names (lib/config reads
// it once per process, so each database gets a fresh worker). Prints one JSON line on stdout.
// Usage: DATABASE_URL=... tsx --conditions=react-server bench/agent-bench-worker.ts
//   gate [calls] | record legacy|outcome|floor [calls] [warm-up calls] [settled calls in the run] | turns [sessions] [turns each]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkToolCall } from "@/lib/runs/gate";
import { createOfflineModel } from "@/lib/runs/offline-model";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { runTurn } from "@/lib/runs/engine";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { appendAudit } from "@/lib/db/audit";
import { getDb } from "@/lib/db/client";
import { appendMessage } from "@/lib/db/messages";
import { legacyAppendAudit, legacyAppendMessage } from "./legacy-record";
import { stats } from "./stats";
import { recordOutcome } from "@/lib/runs/recorder";
import { transact } from "@/lib/db/client";
import { createSession } from "@/lib/db/sessions";
import { findUserByEmail, getUserWithRoles } from "@/lib/db/users";
import { resolveEffectiveToolPolicy, resolveGrantedModes } from "@/lib/policy";

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function owner() {
  const row = await findUserByEmail({ email: "owner@example.com" });
  const user = row && (await getUserWithRoles({ userId: row.id }));
  if (!user) throw new Error("demo users are not seeded");
  return user;
}

/** Per tool call as the loop does it: the execution gate's check, then the hash-chained audit row. */
async function gateBench(iterations: number) {
  const user = await owner();
  const session = await createSession({ ownerId: user.id, mode: "chat_safe" });
  const registry = getToolRegistry();
  const { document } = await loadPolicyDocument();
  const base = { roles: user.roles, teamIds: user.teamIds, senderId: user.id };
  const grantedModes = resolveGrantedModes(base, document);
  const policy = resolveEffectiveToolPolicy(
    { ...base, senderIsOwner: true, mode: "chat_safe", provider: "offline" },
    { document, tools: registry.meta() },
  );
  const checkOnly: number[] = [];
  const withAudit: number[] = [];
  for (let i = 0; i < iterations + 100; i += 1) {
    const name = i % 2 === 0 ? "current_time" : "read"; // half allowed, half MODE_DENIED
    const start = process.hrtime.bigint();
    const verdict = checkToolCall({ policy, registry, toolName: name, input: { path: "a.txt" }, grantedModes });
    const checked = ms(start);
    await appendAudit({
      action: "tool.call",
      actorId: user.id,
      sessionId: session.id,
      toolName: name,
      callId: `bench_${i}`,
      decision: verdict.verdict === "deny" ? "deny" : "allow",
      layer: verdict.verdict === "deny" ? verdict.layer : verdict.decision.layer,
      rule: verdict.verdict === "deny" ? (verdict.rule ?? null) : (verdict.decision.rule ?? null),
      details: { mode: policy.mode },
    });
    const total = ms(start);
    if (i >= 100) {
      checkOnly.push(checked);
      withAudit.push(total);
    }
  }
  return { checkOnly: stats(checkOnly), withAudit: stats(withAudit) };
}

/**
 * Gate + record of one allowed call by one of three paths, `path` alone in this process (the parent alternates
 * processes over one database, so neither path is charged the other's garbage collection or background writes):
 * legacy = the writes the loop made before issue 11 (audit row, then the transcript line, each on its own; the
 * code of that time, bench/legacy-record.ts);
 * outcome = what it does now (claim = call id inserted as running + audit row + event in one transaction;
 * result = call → done + transcript line + event in one transaction);
 * floor = what any claim + result pair must at least cost on this database: two one-row commits (an upsert each,
 * in a Prisma transaction of its own), since the claim must be on disk before the call runs and the result after.
 * Returns the samples, so the parent pools the processes of one path.
 */
async function recordBench(path: string, iterations: number, warmup: number, settled: number) {
  const user = await owner();
  const session = await createSession({ ownerId: user.id, mode: "chat_safe" });
  const run = await getDb().agentRun.create({ data: { sessionId: session.id, status: "running" } });
  // A long run: calls it already settled (each claim asks whether one of the run's calls is still running).
  for (let i = 0; i < settled; i += 1000) {
    const n = Math.min(1000, settled - i);
    await getDb().toolCall.createMany({
      data: Array.from({ length: n }, (_, k) => ({
        sessionId: session.id,
        runId: run.id,
        callId: `settled_${i + k}`,
        toolName: "current_time",
        argsHash: "x",
        status: "done",
      })),
    });
  }
  const registry = getToolRegistry();
  const { document } = await loadPolicyDocument();
  const base = { roles: user.roles, teamIds: user.teamIds, senderId: user.id };
  const grantedModes = resolveGrantedModes(base, document);
  const policy = resolveEffectiveToolPolicy(
    { ...base, senderIsOwner: true, mode: "chat_safe", provider: "offline" },
    { document, tools: registry.meta() },
  );
  const commit = () =>
    transact((tx) =>
      tx.rateLimiterFlexible.upsert({
        where: { key: "bench-floor" },
        create: { key: "bench-floor", points: 1 },
        update: { points: { increment: 1 } },
      }),
    );
  const audit = (callId: string) => ({
    action: "tool.call",
    actorId: user.id,
    sessionId: session.id,
    toolName: "current_time",
    callId,
    decision: "allow",
    layer: "allowed",
    details: { mode: policy.mode },
  });
  const line = (callId: string) => ({
    role: "tool" as const,
    content: "{}",
    parts: { status: "ok", output: {} },
    toolCallId: callId,
    toolName: "current_time",
    runId: run.id,
  });
  const once: Record<string, (callId: string) => Promise<void>> = {
    legacy: async (callId) => {
      checkToolCall({ policy, registry, toolName: "current_time", input: {}, grantedModes });
      await legacyAppendAudit(audit(callId));
      await legacyAppendMessage({ sessionId: session.id, message: line(callId) });
    },
    outcome: async (callId) => {
      checkToolCall({ policy, registry, toolName: "current_time", input: {}, grantedModes });
      await recordOutcome({
        sessionId: session.id,
        runId: run.id,
        call: { callId, toolName: "current_time", argsHash: "x", from: ["new"], to: "running" },
        audit: [audit(callId)],
      });
      await recordOutcome({
        sessionId: session.id,
        runId: run.id,
        call: { callId, toolName: "current_time", from: ["running"], to: "done" },
        message: { append: line(callId) },
      });
    },
    floor: async () => {
      await commit();
      await commit();
    },
  };
  const call = once[path];
  if (!call) throw new Error(`unknown record path ${path}`);
  const samples: number[] = [];
  for (let i = 0; i < iterations + warmup; i += 1) {
    const start = process.hrtime.bigint();
    await call(`${path}_${i}`);
    if (i >= warmup) samples.push(ms(start));
  }
  return { samples };
}

/** Whole turns with the offline model ("what time is it": one tool call, four messages, one audit row). */
async function turnsBench(concurrency: number, turnsPerSession: number) {
  const user = await owner();
  const workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-ws-"));
  const sessions = await Promise.all(
    Array.from({ length: concurrency }, () => createSession({ ownerId: user.id, mode: "chat_safe" })),
  );
  const model = { model: createOfflineModel(), info: { provider: "offline", model: "offline" } };
  const latencies: number[] = [];
  let failures = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    sessions.map(async (session) => {
      for (let t = 0; t < turnsPerSession; t += 1) {
        const start = process.hrtime.bigint();
        await appendMessage({ sessionId: session.id, message: { role: "user", content: "what time is it" } });
        const result = await runTurn({ sessionId: session.id, user, model, emit: () => undefined, workspaceRoot });
        if (result.status !== "completed") failures += 1;
        latencies.push(ms(start));
      }
    }),
  );
  const seconds = ms(started) / 1000;
  fs.rmSync(workspaceRoot, { recursive: true, force: true });
  return {
    concurrency,
    turns: concurrency * turnsPerSession,
    seconds,
    turnsPerSecond: (concurrency * turnsPerSession) / seconds,
    latency: stats(latencies),
    failures,
  };
}

async function main() {
  const [kind, ...rest] = process.argv.slice(2);
  let result: unknown;
  if (kind === "gate") result = await gateBench(Number(rest[0] ?? 2000));
  else if (kind === "record")
    result = await recordBench(
      rest[0] ?? "outcome",
      Number(rest[1] ?? 1000),
      Number(rest[2] ?? 200),
      Number(rest[3] ?? 0),
    );
  else if (kind === "turns") result = await turnsBench(Number(rest[0] ?? 1), Number(rest[1] ?? 20));
  else throw new Error(`unknown bench kind ${kind}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await getDb().$disconnect();
  // The event tailer's LISTEN connection (PostgreSQL) would keep the process alive: this worker is done.
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
