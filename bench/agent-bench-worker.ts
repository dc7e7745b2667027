// One benchmark measurement in its own process, against the database DATABASE_URL names (lib/config reads
// it once per process, so each database gets a fresh worker). Prints one JSON line on stdout.
// Usage: DATABASE_URL=... tsx --conditions=react-server bench/agent-bench-worker.ts gate|turns
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkToolCall } from "@/lib/runs/gate";
import { createOfflineModel } from "@/lib/runs/offline-model";
import { loadPolicyDocument } from "@/lib/catalog/policy-source";
import { runTurn } from "@/lib/runs/engine";
import { getToolRegistry } from "@/lib/catalog/tool-catalog";
import { appendAudit } from "@/lib/db/audit";
import { getDb } from "@/lib/db/client";
import { appendMessage } from "@/lib/db/messages";
import { legacyAppendAudit, legacyAppendMessage } from "./legacy-record";
import { recordOutcome } from "@/lib/runs/recorder";
import { transactSql, type Commit } from "@/lib/db/sql";
import { createSession } from "@/lib/db/sessions";
import { findUserByEmail, getUserWithRoles } from "@/lib/db/users";
import { resolveEffectiveToolPolicy, resolveGrantedModes } from "@/lib/policy";

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

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
  const policy = resolveEffectiveToolPolicy({ ...base, senderIsOwner: true, mode: "chat_safe", provider: "offline" }, { document, tools: registry.meta() });
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
 * Gate + record of one allowed call, both ways on the same database in the same process:
 * legacy = the writes the loop made before issue 11 (audit row, then the transcript line, each on its own; the
 * code of that time, bench/legacy-record.ts);
 * outcome = what it does now (claim = call id inserted as running + audit row + event in one
 * transaction; result = call → done + transcript line + event in one transaction).
 */
async function recordBench(iterations: number) {
  const user = await owner();
  const session = await createSession({ ownerId: user.id, mode: "chat_safe" });
  // The old code numbered lines from the transcript, the new from the session's counter: a session each.
  const legacySession = await createSession({ ownerId: user.id, mode: "chat_safe" });
  const run = await getDb().agentRun.create({ data: { sessionId: session.id, status: "running" } });
  const registry = getToolRegistry();
  const { document } = await loadPolicyDocument();
  const base = { roles: user.roles, teamIds: user.teamIds, senderId: user.id };
  const grantedModes = resolveGrantedModes(base, document);
  const policy = resolveEffectiveToolPolicy({ ...base, senderIsOwner: true, mode: "chat_safe", provider: "offline" }, { document, tools: registry.meta() });
  const legacy: number[] = [];
  const outcome: number[] = [];
  const floor: number[] = [];
  // The floor: what any claim + result pair must at least cost on this database. The claim must be on disk before
  // the call runs (its audit row with it); the result need not wait for the disk (recorder.ts, commitOf). So one
  // flushed and one deferred one-row commit.
  const commit = (commit: Commit) =>
    transactSql((sql) => sql.rows(`INSERT INTO "RateLimiterFlexible" ("key", "points") VALUES ($1, 1) ON CONFLICT ("key") DO UPDATE SET "points" = "RateLimiterFlexible"."points" + 1 RETURNING "points"`, ["bench-floor"]), { commit });
  const audit = (callId: string) => ({ action: "tool.call", actorId: user.id, sessionId: session.id, toolName: "current_time", callId, decision: "allow", layer: "allowed", details: { mode: policy.mode } });
  const line = (callId: string) => ({ role: "tool" as const, content: "{}", parts: { status: "ok", output: {} }, toolCallId: callId, toolName: "current_time", runId: run.id });
  for (let i = 0; i < iterations + 100; i += 1) {
    // Alternate the two so that neither gets a warmer cache or a smaller table.
    let start = process.hrtime.bigint();
    checkToolCall({ policy, registry, toolName: "current_time", input: {}, grantedModes });
    await legacyAppendAudit(audit(`legacy_${i}`));
    await legacyAppendMessage({ sessionId: legacySession.id, message: line(`legacy_${i}`) });
    const a = ms(start);
    start = process.hrtime.bigint();
    const callId = `outcome_${i}`;
    checkToolCall({ policy, registry, toolName: "current_time", input: {}, grantedModes });
    await recordOutcome({ sessionId: session.id, runId: run.id, call: { callId, toolName: "current_time", argsHash: "x", from: ["new"], to: "running" }, audit: [audit(callId)] });
    await recordOutcome({ sessionId: session.id, runId: run.id, call: { callId, toolName: "current_time", from: ["running"], to: "done" }, message: { append: line(callId) } });
    const b = ms(start);
    start = process.hrtime.bigint();
    await commit("flush");
    await commit("deferred");
    const c = ms(start);
    if (i >= 100) {
      legacy.push(a);
      outcome.push(b);
      floor.push(c);
    }
  }
  return { legacy: stats(legacy), outcome: stats(outcome), floor: stats(floor) };
}

/** Whole turns with the offline model ("what time is it": one tool call, four messages, one audit row). */
async function turnsBench(concurrency: number, turnsPerSession: number) {
  const user = await owner();
  const workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-ws-"));
  const sessions = await Promise.all(Array.from({ length: concurrency }, () => createSession({ ownerId: user.id, mode: "chat_safe" })));
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
  return { concurrency, turns: concurrency * turnsPerSession, seconds, turnsPerSecond: (concurrency * turnsPerSession) / seconds, latency: stats(latencies), failures };
}

async function main() {
  const [kind, ...rest] = process.argv.slice(2);
  let result: unknown;
  if (kind === "gate") result = await gateBench(Number(rest[0] ?? 2000));
  else if (kind === "record") result = await recordBench(Number(rest[0] ?? 2000));
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
