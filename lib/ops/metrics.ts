// Prometheus metrics (prom-client), all named toolgate_*. The registry is one per process (lib/process-singleton.ts):
// every copy of this module (route handlers, instrumentation, the lean streams) counts into the one /metrics serves.
// The rest of the app calls the small functions below (one line at each site), so no module outside lib/ops knows
// prom-client. Labels take values from small fixed sets (never tool names a model
// chose, never user ids): a hostile model cannot grow the series without bound.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { POLICY_LAYERS } from "@/lib/policy/types";
import { processSingleton } from "@/lib/process-singleton";

/** Sources read at scrape time (registered by the modules that own the state: no import of them from here). */
type Sources = {
  pendingApprovals?: () => Promise<number>;
  sseConnections?: () => number;
  mcpServers?: () => Array<{ id: string; state: string }>;
};

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "toolgate_" });
  const sources: Sources = {};
  const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
  const m = {
    registry,
    sources,
    turns: new Counter({
      name: "toolgate_turns_total",
      help: "Agent turns by how they ended (completed, failed, aborted, waiting_approval).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    decisions: new Counter({
      name: "toolgate_tool_decisions_total",
      help: "Execution-gate decisions as audited: decision (allow, deny, ask) and the deciding layer.",
      labelNames: ["decision", "layer"],
      registers: [registry],
    }),
    calls: new Counter({
      name: "toolgate_tool_calls_total",
      help: "Tool calls by the state their outcome moved them to (done, failed, stopped, denied, pending, expired).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    decisionSeconds: new Histogram({
      name: "toolgate_decision_seconds",
      help: "Latency of a call's stages: gate (request to decision), approval (request to an owner's decision), run (decision to result).",
      labelNames: ["stage"],
      buckets: seconds,
      registers: [registry],
    }),
    approvalsDecided: new Counter({
      name: "toolgate_approvals_decided_total",
      help: "Approval requests settled, by status (approved, denied, expired).",
      labelNames: ["status"],
      registers: [registry],
    }),
    pending: new Gauge({
      name: "toolgate_approvals_pending",
      help: "Approval requests waiting for an owner (read from the database at scrape time).",
      registers: [registry],
      async collect() {
        if (sources.pendingApprovals) this.set(await sources.pendingApprovals().catch(() => Number.NaN));
      },
    }),
    sse: new Gauge({
      name: "toolgate_sse_connections",
      help: "Open event streams on this instance.",
      registers: [registry],
      collect() {
        if (sources.sseConnections) this.set(sources.sseConnections());
      },
    }),
    fanOut: new Histogram({
      name: "toolgate_sse_fanout_seconds",
      help: "Time from an event's delivery to this instance until every stream it goes to has it queued.",
      buckets: seconds,
      registers: [registry],
    }),
    mcp: new Gauge({
      name: "toolgate_mcp_upstream_up",
      help: "MCP upstream servers: 1 for the state each configured server is in (ready, connecting, down, disabled).",
      labelNames: ["server", "state"],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of sources.mcpServers?.() ?? [])
          for (const state of MCP_STATES) this.set({ server: s.id, state }, s.state === state ? 1 : 0);
      },
    }),
    sandboxRuns: new Counter({
      name: "toolgate_sandbox_runs_total",
      help: "Commands run by exec: where (sandbox, host) and result (ok, failed, unavailable).",
      labelNames: ["where", "result"],
      registers: [registry],
    }),
    sandboxLimits: new Counter({
      name: "toolgate_sandbox_limit_hits_total",
      help: "Commands stopped or cut by a limit (time, output, disk, cpu, file_size).",
      labelNames: ["limit"],
      registers: [registry],
    }),
    dbSeconds: new Histogram({
      name: "toolgate_db_outcome_seconds",
      help: "Database time of a recorded outcome (one transaction), by kind and result (ok, lost, error).",
      labelNames: ["kind", "result"],
      buckets: seconds,
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: "toolgate_rate_limited_total",
      help: "Requests refused by a rate limit, by limiter.",
      labelNames: ["limiter"],
      registers: [registry],
    }),
  };
  return m;
}

const MCP_STATES = ["ready", "connecting", "down", "disabled"] as const;
const DECISIONS = new Set(["allow", "deny", "ask"]);

type Metrics = ReturnType<typeof create>;
const metrics = (): Metrics => processSingleton("toolgateMetrics", create);

/** A label value from a fixed vocabulary; anything else is counted as "other". */
const oneOf = (value: string | null | undefined, allowed: ReadonlySet<string>) =>
  value && allowed.has(value) ? value : "other";
// The policy's layers and the gate's own (lib/runs/gate.ts, lib/runs/calls.ts).
const LAYERS = new Set<string>([
  ...POLICY_LAYERS,
  "parent",
  "allowed",
  "not_found",
  "arguments",
  "exec",
  "limits",
  "idempotency",
  "approval",
  "hook",
  "policy",
]);
const CALL_STATES = new Set([
  "new",
  "pending",
  "approved",
  "running",
  "done",
  "failed",
  "stopped",
  "denied",
  "expired",
]);
const TURN_OUTCOMES = new Set(["completed", "failed", "aborted", "waiting_approval"]);

export function metricsRegistry(): Registry {
  return metrics().registry;
}

export function provideMetricSource<K extends keyof Sources>(name: K, source: NonNullable<Sources[K]>): void {
  metrics().sources[name] = source;
}

export function countTurn(outcome: string): void {
  metrics().turns.inc({ outcome: oneOf(outcome, TURN_OUTCOMES) });
}

/** An audited gate decision (every allow and deny writes an audit row; an ask writes an approval request). */
export function countDecision(decision: string | null | undefined, layer: string | null | undefined): void {
  metrics().decisions.inc({ decision: oneOf(decision, DECISIONS), layer: oneOf(layer, LAYERS) });
}

export function countCallState(state: string): void {
  metrics().calls.inc({ outcome: oneOf(state, CALL_STATES) });
}

export function observeStage(stage: "gate" | "approval" | "run", seconds: number): void {
  if (Number.isFinite(seconds) && seconds >= 0) metrics().decisionSeconds.observe({ stage }, seconds);
}

export function countApprovalSettled(status: string, createdAt?: Date | null, resolvedAt?: Date | null): void {
  metrics().approvalsDecided.inc({ status: oneOf(status, new Set(["approved", "denied", "expired"])) });
  if (createdAt && resolvedAt) observeStage("approval", (resolvedAt.getTime() - createdAt.getTime()) / 1000);
}

export function observeFanOut(seconds: number): void {
  metrics().fanOut.observe(seconds);
}

export function countSandboxRun(
  where: "sandbox" | "host",
  result: "ok" | "failed" | "unavailable",
  limits: readonly string[] = [],
): void {
  const m = metrics();
  m.sandboxRuns.inc({ where, result });
  for (const limit of limits)
    m.sandboxLimits.inc({ limit: oneOf(limit, new Set(["time", "output", "disk", "cpu", "file_size"])) });
}

/** Which limits a finished command ran into: its timeout, the output cap, the disk quota, the CPU or file-size rlimit. */
export function limitsHit(
  result: { timedOut?: boolean; truncated?: boolean; signal?: string | null },
  overQuota = false,
): string[] {
  const hit: string[] = [];
  if (result.timedOut) hit.push("time");
  if (result.truncated) hit.push("output");
  if (overQuota) hit.push("disk");
  if (result.signal === "SIGXCPU") hit.push("cpu");
  if (result.signal === "SIGXFSZ") hit.push("file_size");
  return hit;
}

export function observeDbOutcome(kind: string, result: "ok" | "lost" | "error", seconds: number): void {
  metrics().dbSeconds.observe(
    { kind: oneOf(kind, new Set(["approval", "claim", "result", "deny", "step", "run", "message", "other"])), result },
    seconds,
  );
}

export function countRateLimited(limiter: string): void {
  metrics().rateLimited.inc({
    limiter: oneOf(
      limiter,
      new Set([
        "chat",
        "approvals",
        "signin-account",
        "signin-account-address",
        "signin-address",
        "signin-pace",
        "signin-recovery",
        "password-change",
        "mcp",
      ]),
    ),
  });
}

/** The exposition text and its content type. */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  const registry = metrics().registry;
  return { body: await registry.metrics(), contentType: registry.contentType };
}
