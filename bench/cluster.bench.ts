// `npm run bench:cluster`: three app instances on one fresh PostgreSQL database behind nginx (round robin, no sticky
// sessions), N SSE clients on the owners' inbox through nginx, chat turns with the offline model from autocannon.
// Reports decision → event at every subscriber on every instance, memory per SSE connection, the subscriber count
// one instance holds under 1 GiB, turns/s at 10/100/1,000 concurrent sessions, and the exactly-once counts.
import os from "node:os";
import autocannon from "autocannon";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn, type HttpClient } from "../tests/support/http-client";
import { cookieOf, say } from "../tests/support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";
import { settleRss, sseConnection } from "./approvals.bench";
import { startNginx, type Balancer } from "./cluster/nginx";

const PG = process.env.TEST_DATABASE_URL_PG ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const SSE_CLIENTS = Number(process.env.CLUSTER_SSE_CLIENTS ?? 1500);
const SAMPLES = Number(process.env.CLUSTER_SAMPLES ?? 20);
const LEVELS = (process.env.CLUSTER_LEVELS ?? "10,100,1000").split(",").map(Number);
const GiB = 2 ** 30;

const pct = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
const ms = (v: number) => `${v.toFixed(1)} ms`;

type Subscriber = { close: () => void; arrivals: Map<string, number>; requested: Set<string> };

async function openSubscribers(url: string, cookie: string, count: number): Promise<Subscriber[]> {
  const subs: Subscriber[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, async () => {
        const arrivals = new Map<string, number>();
        const requested = new Set<string>();
        const conn = await sseConnection(url, cookie, (type, id) => {
          if (type === "approval.resolved") arrivals.set(id, performance.now());
          else if (type === "approval.requested") requested.add(id);
        });
        return { close: conn.close, arrivals, requested };
      }),
    );
    subs.push(...batch);
  }
  return subs;
}

/**
 * One approval per sample: the member asks through nginx, an owner's decision goes to all three instances at once
 * (exactly one may win), and every subscriber's arrival time of approval.resolved is taken from the winner's send.
 */
async function decisionRounds(
  lb: Balancer,
  apps: RunningApp[],
  member: HttpClient,
  deciders: HttpClient[],
  sessionId: string,
  subs: Subscriber[],
  samples: number,
) {
  const latencies: number[] = [];
  const lastArrival: number[] = [];
  const firstArrival: number[] = [];
  const answered: number[] = [];
  const ids: string[] = [];
  let wins = 0;
  let refused = 0;
  for (let i = 0; i < samples; i++) {
    const asked = await member.json("/api/approvals", {
      method: "POST",
      body: { sessionId, toolName: "exec", callId: `cluster-${Date.now()}-${i}`, args: { command: "rm -rf data" } },
    });
    if (asked.status !== 202) throw new Error(`approval request: ${asked.status}`);
    const id = asked.body.id as string;
    ids.push(id);
    // The clock starts once every subscriber has read the request's own event: otherwise this one process would
    // still be parsing 1,500 copies of approval.requested when the decision's events arrive, and that would count.
    const heard = Date.now() + 15_000;
    while (subs.some((s) => !s.requested.has(id)) && Date.now() < heard) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    // The winner's response time (the decision committed) is one part of the latency; the first and the last
    // subscriber's arrival split the rest into delivery across instances and fan-out to every stream.
    const answers = await Promise.all(
      deciders.map(async (d) => {
        const answer = await d.json(`/api/approvals/${id}/decision`, { method: "POST", body: { decision: "deny" } });
        if (answer.status === 200) answered.push(performance.now() - t0);
        return answer;
      }),
    );
    wins += answers.filter((a) => a.status === 200).length;
    refused += answers.filter((a) => a.status === 409).length;
    const deadline = Date.now() + 15_000;
    while (subs.some((s) => !s.arrivals.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const missing = subs.filter((s) => !s.arrivals.has(id)).length;
    if (missing > 0) throw new Error(`${missing} of ${subs.length} subscribers never got approval.resolved for ${id}`);
    const times = subs.map((s) => s.arrivals.get(id)! - t0);
    latencies.push(...times);
    lastArrival.push(Math.max(...times));
    firstArrival.push(Math.min(...times));
  }
  void lb;
  void apps;
  latencies.sort((a, b) => a - b);
  lastArrival.sort((a, b) => a - b);
  firstArrival.sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  return { latencies, lastArrival, firstArrival, answered, ids, wins, refused, deciders: deciders.length };
}

async function turnLoad(lb: Balancer, cookie: string, sessionIds: string[], connections: number) {
  // Every session takes at least one turn; small levels take several each, so the rate is not one burst.
  const amount = Math.max(connections, 10 * Math.min(connections, 10));
  let next = 0;
  const free = [...sessionIds];
  const perSession = new Map<string, number>();
  let failedTurns = 0;
  const failures = new Map<string, number>();
  const started = performance.now();
  const result = await autocannon({
    url: lb.url,
    connections,
    amount,
    timeout: 300,
    requests: [
      {
        method: "POST",
        path: "/api/chat",
        headers: { cookie, "content-type": "application/json" },
        // A turn takes a session no other turn is using and gives it back when answered: a session's turns never
        // overlap (a second turn while one runs is a 409 by design). autocannon resets a connection's context before
        // every request when there is one request template, so the context cannot hold a connection's own sessions.
        setupRequest: (req: autocannon.Request, context: object) => {
          const c = context as { sessionId?: string };
          c.sessionId = free.shift() ?? sessionIds[next++ % sessionIds.length]!;
          return { ...req, body: JSON.stringify(say(c.sessionId, "what time is it")) };
        },
        onResponse: (status: number, body: string, context: object) => {
          const sessionId = (context as { sessionId: string }).sessionId;
          free.push(sessionId);
          const ok = status === 200 && body.includes('"type":"finish"') && !body.includes('"type":"error"');
          if (ok) perSession.set(sessionId, (perSession.get(sessionId) ?? 0) + 1);
          else {
            failedTurns += 1;
            // Request ids differ per failure: drop them so failures of one kind count together.
            const why = `${status} ${(/"(?:errorText|message|code)":"([^"]{0,80})/.exec(body)?.[1] ?? body.slice(0, 80)).replace(/\(request [0-9a-f]+\)/g, "(request …)").replace(/\s+/g, " ")}`;
            failures.set(why, (failures.get(why) ?? 0) + 1);
          }
        },
      },
    ],
  });
  const seconds = (performance.now() - started) / 1000;
  const ok = [...perSession.values()].reduce((a, b) => a + b, 0);
  return {
    connections,
    amount,
    seconds,
    ok,
    failedTurns,
    failures,
    perSession,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Exactly-once, counted in the database after the load. */
async function exactlyOnce(db: Db, approvalIds: string[], turns: Map<string, number>) {
  const approvals = await db.approval.findMany({
    where: { id: { in: approvalIds } },
    select: { id: true, status: true },
  });
  const resolvedAudits = await db.auditLog.findMany({
    where: { action: "approval.resolved" },
    select: { details: true },
  });
  const auditsPer = new Map<string, number>();
  for (const a of resolvedAudits) {
    const id = JSON.stringify(a.details ?? {}).match(/"(?:id|approvalId)":"([^"]+)"/)?.[1];
    if (id) auditsPer.set(id, (auditsPer.get(id) ?? 0) + 1);
  }
  const decidedOnce = approvalIds.filter((id) => auditsPer.get(id) === 1).length;
  const sessionIds = [...turns.keys()];
  const calls = await db.toolCall.findMany({
    where: { sessionId: { in: sessionIds } },
    select: { sessionId: true, callId: true, status: true },
  });
  const executions = await db.auditLog.groupBy({
    by: ["sessionId", "callId"],
    where: { action: "tool.call", decision: "allow", sessionId: { in: sessionIds } },
    _count: { _all: true },
  });
  const duplicateExecutions = executions.filter((e) => e._count._all > 1).length;
  const messages = await db.message.groupBy({
    by: ["sessionId"],
    where: { sessionId: { in: sessionIds } },
    _count: { _all: true },
    _max: { seq: true },
    _min: { seq: true },
  });
  const expectedMessages = [...turns.values()].reduce((a, b) => a + b, 0) * 4; // user, tool call, tool result, answer
  const storedMessages = messages.reduce((a, m) => a + m._count._all, 0);
  const gaps = messages.filter((m) => m._max.seq! - m._min.seq! + 1 !== m._count._all).length;
  return {
    approvals: approvalIds.length,
    resolved: approvals.filter((a) => a.status !== "pending").length,
    decidedOnce,
    toolCalls: calls.length,
    executed: executions.length,
    duplicateExecutions,
    expectedMessages,
    storedMessages,
    sessionsWithGaps: gaps,
  };
}

export async function runClusterBench(): Promise<string> {
  const base = await reachablePostgresBase(PG);
  if (!base) throw new Error(`no PostgreSQL server at ${PG}`);
  const pg = await newPostgresUrl(base);
  prepareDatabase(pg.url);
  const apps: RunningApp[] = [];
  let lb: Balancer | null = null;
  const db = createDb(pg.url);
  try {
    const env = { SEED_DEMO_USERS: "true", RUN_LEASE_SECONDS: "30" };
    apps.push(...(await Promise.all([0, 1, 2].map(() => startApp({ databaseUrl: pg.url, env })))));
    lb = await startNginx(apps.map((a) => a.url));
    const member = await signedIn(lb.url, "member@example.com");
    const owner = await signedIn(lb.url, "owner@example.com");
    // Deciders: the same owner, one client per instance (the decision race in decisionRounds).
    const deciders = await Promise.all(apps.map((a) => signedIn(a.url, "admin@example.com")));
    const approvalSession = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    // Warm every instance's stream path and decision path once.
    await decisionRounds(
      lb,
      apps,
      member,
      deciders,
      approvalSession,
      await openSubscribers(lb.url, cookieOf(owner), 3),
      3,
    );

    const rssBefore = await Promise.all(apps.map((a) => settleRss(a.process.pid!)));
    const t0 = performance.now();
    const subs = await openSubscribers(lb.url, cookieOf(owner), SSE_CLIENTS);
    const openSeconds = (performance.now() - t0) / 1000;
    const rssAfter = await Promise.all(apps.map((a) => settleRss(a.process.pid!)));
    const perConnection = (rssAfter.reduce((a, b) => a + b, 0) - rssBefore.reduce((a, b) => a + b, 0)) / SSE_CLIENTS;
    const maxBase = Math.max(...rssBefore);
    const holdsUnder1GiB = Math.floor((GiB - maxBase) / perConnection);

    console.error(
      `${SSE_CLIENTS} SSE clients open in ${openSeconds.toFixed(1)} s, ${(perConnection / 1024).toFixed(1)} KiB each`,
    );
    const idle = await decisionRounds(lb, apps, member, deciders, approvalSession, subs, SAMPLES);

    const cookie = cookieOf(member);
    const maxSessions = 2 * Math.max(...LEVELS);
    const sessionIds: string[] = [];
    for (let i = 0; i < maxSessions; i += 50) {
      const made = await Promise.all(
        Array.from({ length: Math.min(50, maxSessions - i) }, () =>
          member.json("/api/sessions", { method: "POST", body: {} }),
        ),
      );
      sessionIds.push(...made.map((m) => m.body.id as string));
    }
    // Every load session is counted (a turn is credited to the session it was sent on; the totals are what is compared).
    const turns = new Map<string, number>(sessionIds.map((id) => [id, 0]));
    const loadRows: Awaited<ReturnType<typeof turnLoad>>[] = [];
    let loaded: Awaited<ReturnType<typeof decisionRounds>> | null = null;
    for (const level of LEVELS) {
      const load = turnLoad(lb, cookie, sessionIds.slice(0, 2 * level), level);
      // Decisions while the middle level runs: the exactly-once checks and the latency under load.
      if (level === LEVELS[Math.floor(LEVELS.length / 2)]) {
        await new Promise((r) => setTimeout(r, 2_000));
        loaded = await decisionRounds(lb, apps, member, deciders, approvalSession, subs, SAMPLES);
      }
      const row = await load;
      for (const [s, n] of row.perSession) turns.set(s, (turns.get(s) ?? 0) + n);
      loadRows.push(row);
      console.error(
        `turns at ${level}: ${row.ok} ok, ${row.failedTurns} failed ${JSON.stringify([...row.failures])}, ${(row.ok / row.seconds).toFixed(1)}/s`,
      );
    }
    for (const s of subs) s.close();
    await new Promise((r) => setTimeout(r, 3_000)); // runs settle (a turn's last writes follow its response)
    const checks = await exactlyOnce(db, [...idle.ids, ...(loaded?.ids ?? [])], turns);
    const allWins = idle.wins + (loaded?.wins ?? 0);
    const allRaces = idle.ids.length + (loaded?.ids.length ?? 0);

    const cpus = os.cpus();
    const stats = (r: Awaited<ReturnType<typeof decisionRounds>>) =>
      `${ms(pct(r.latencies, 0.5))} | ${ms(pct(r.latencies, 0.99))} | ${ms(pct(r.lastArrival, 0.5))} | ${ms(pct(r.lastArrival, 0.99))} | ${ms(pct(r.answered, 0.5))} | ${ms(pct(r.firstArrival, 0.5))} |`;
    return [
      "## Cluster (`npm run bench:cluster`)",
      "",
      `Three app instances (\`scripts/server.mjs\`, lean event streams) on one fresh PostgreSQL database, nginx ${"(Debian package)"} in front (round robin, no sticky sessions, unbuffered), all on one machine: ${cpus[0]?.model ?? "unknown CPU"}, **${cpus.length} cores** shared by the instances, nginx, PostgreSQL and the load generator, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Load: ${SSE_CLIENTS} SSE clients on the owners' inbox through nginx (opened in ${openSeconds.toFixed(1)} s), chat turns from autocannon ("what time is it" with the offline model: two model steps, one gated tool call, four messages).`,
      "",
      `Decision → event: an owner's \`deny\` sent to all three instances at once (one wins); latency from sending it to \`approval.resolved\` at each of the ${SSE_CLIENTS} subscribers (they sit on every instance; the event crosses instances by LISTEN/NOTIFY). ${SAMPLES} approvals per row.`,
      "",
      "| when | every subscriber p50 | every subscriber p99 | last subscriber p50 | last subscriber p99 | decision answered p50 | first subscriber p50 |",
      "|---|---:|---:|---:|---:|---:|---:|",
      `| idle | ${stats(idle)}`,
      loaded ? `| during the ${LEVELS[Math.floor(LEVELS.length / 2)]}-session turn load | ${stats(loaded)}` : "",
      "",
      `Memory per SSE connection (RSS of the three instances, before and after opening the ${SSE_CLIENTS} streams): ` +
        (perConnection > 0
          ? `**${(perConnection / 1024).toFixed(1)} KiB**; at that rate one instance holds about **${holdsUnder1GiB.toLocaleString("en-US")} subscribers under 1 GiB** (extrapolated from its largest idle RSS; the 10,000-stream run in "SSE streams at scale" measures one instance directly).`
          : `not measurable in this run: RSS fell while the streams opened (the warm-up's garbage was collected meanwhile, more than ${Math.round(SSE_CLIENTS / apps.length)} streams per instance added); see the single-instance run in "SSE streams at scale".`) +
        ` Instance RSS before ${rssBefore.map((b) => `${(b / 2 ** 20).toFixed(0)}`).join(" / ")} MiB, after ${rssAfter.map((b) => `${(b / 2 ** 20).toFixed(0)}`).join(" / ")} MiB.`,
      "",
      "| concurrent sessions | turns | seconds | turns/s | latency p50 | latency p99 | failed turns | non-2xx | errors | timeouts |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...loadRows.map(
        (r) =>
          `| ${r.connections} | ${r.ok} | ${r.seconds.toFixed(1)} | ${(r.ok / r.seconds).toFixed(1)} | ${r.p50} ms | ${r.p99} ms | ${r.failedTurns} | ${r.non2xx} | ${r.errors} | ${r.timeouts} |`,
      ),
      "",
      ...loadRows
        .filter((r) => r.failures.size > 0)
        .map(
          (r) =>
            `Failed turns at ${r.connections}: ${[...r.failures].map(([why, n]) => `${n} × \`${why}\``).join(", ")}.`,
        ),
      "",
      "Exactly-once, counted in the database after the load:",
      "",
      `- approvals: ${allRaces} decided by racing three instances; ${allWins} decisions won (expected ${allRaces}), ${idle.refused + (loaded?.refused ?? 0)} refused with 409; ${checks.resolved}/${checks.approvals} resolved, ${checks.decidedOnce}/${checks.approvals} with exactly one \`approval.resolved\` audit row;`,
      `- tool calls: ${checks.toolCalls} call rows, ${checks.executed} executed (allowed \`tool.call\` audit rows), **${checks.duplicateExecutions} executed twice**;`,
      `- transcript: ${checks.storedMessages} messages stored; the ${checks.expectedMessages / 4} completed turns account for ${checks.expectedMessages} (failed turns keep their user message and what they wrote before failing, so more is expected when turns failed; fewer would be a loss); ${checks.sessionsWithGaps} sessions with a gap in their sequence numbers.`,
      "",
    ].join("\n");
  } finally {
    await lb?.stop();
    await Promise.all(apps.map((a) => a.stop()));
    await db.$disconnect();
    await pg.drop().catch(() => undefined);
  }
}

if (require.main === module) {
  runClusterBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
