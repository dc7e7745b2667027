// Policy engine benchmark: resolution cost for a realistic, fully populated document.
import { z } from "zod";
import {
  CompiledPolicy,
  compilePolicy,
  parsePolicyDocument,
  ToolRegistry,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolMeta,
} from "@/lib/policy";
import { onePatternDocument, PLUGIN_CONTEXT, pluginTools } from "./policy-plugins";

const CORE = [
  "current_time",
  "ask_user",
  "memory_search",
  "memory_get",
  "web_search",
  "web_fetch",
  "read",
  "write",
  "edit",
  "apply_patch",
  "exec",
  "process",
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "subagents",
  "session_status",
  "cron",
  "image",
];
const PLUGINS = ["github", "jira", "slack", "notion", "linear"];

export function makeTools(total: number): ToolMeta[] {
  const tools: ToolMeta[] = [];
  const pluginCount = Math.floor(total / 2);
  for (let i = 0; tools.length < total - pluginCount; i += 1) {
    const name = i < CORE.length ? CORE[i]! : `tool_${i}`;
    tools.push({ name, allowedModes: i % 3 === 0 ? ["coding"] : ["chat_safe", "coding"], ownerOnly: i % 17 === 0 });
  }
  for (let i = 0; i < pluginCount; i += 1) {
    const plugin = PLUGINS[i % PLUGINS.length]!;
    tools.push({ name: `${plugin}_op_${i}`, allowedModes: ["chat_safe", "coding"], pluginId: plugin });
  }
  return tools;
}

const names = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);
/** 20+ entries: wildcards that keep most tools, plus exact names that remove a few. */
const allowList = (seed: number) => [
  "tool_*",
  "*_op_*",
  "group:fs",
  "group:runtime",
  "group:web",
  "group:memory",
  "group:sessions",
  "current_time",
  "ask_user",
  "cron",
  "image",
  ...names("tool_", 12, seed),
];
const denyList = (seed: number) => names("tool_", 22, 100 + seed * 7);

export function makeDocument(): PolicyDocument {
  const policy = (seed: number) => ({ allow: allowList(seed), deny: denyList(seed) });
  const input: PolicyDocumentInput = {
    profiles: { wide: policy(1), wider: policy(2) },
    tools: {
      profile: "wide",
      ...policy(3),
      byProvider: { openai: { profile: "wider", ...policy(4) }, "openai/gpt-4o": policy(5) },
    },
    agents: {
      helper: {
        name: "Helper",
        tools: { ...policy(6), byProvider: { openai: policy(7) } },
        system: { fs: { maxReadBytes: 65536 } },
      },
    },
    teams: { ops: policy(8), devs: policy(9) },
    senders: { u1: policy(10) },
    sandbox: { tools: policy(11) },
    subagents: { maxSpawnDepth: 2, tools: policy(12) },
    modeOverrides: Object.fromEntries(names("tool_", 20, 40).map((name) => [name, ["coding" as const]])),
    system: { mcp: { enabled: true, allowedServers: PLUGINS.slice(0, 4) } },
    askRules: names("tool_", 20, 60),
  };
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

/** Every layer in play (the plugin workload of policy-plugins.ts resolves for the same context). */
export const BENCH_CONTEXT: PolicyContext = PLUGIN_CONTEXT;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs fn `iterations` times in batches of `batch`; returns per-call ns samples (one per batch). */
function sample(fn: (i: number) => unknown, iterations: number, batch = 1): number[] {
  const samples: number[] = [];
  let sink = 0;
  for (let i = 0; i < Math.min(200, iterations); i += 1) sink += fn(i) ? 1 : 0;
  for (let i = 0; i < iterations; i += batch) {
    const start = process.hrtime.bigint();
    for (let j = 0; j < batch; j += 1) sink += fn(i + j) ? 1 : 0;
    samples.push(Number(process.hrtime.bigint() - start) / batch);
  }
  if (sink < 0) console.log(sink);
  return samples.sort((a, b) => a - b);
}

/** What a caller builds per request: a new object with new arrays, equal in value to the context it stands for. */
const freshCopy = (context: PolicyContext, overrides: Partial<PolicyContext> = {}): PolicyContext => ({
  ...context,
  roles: [...context.roles],
  ...(context.teamIds ? { teamIds: [...context.teamIds] } : {}),
  ...overrides,
});

export type ResolveRatios = { floor: number[]; cached: number[]; fresh: number[] };

/**
 * Issue 16's goal, measured in one run: a cached resolve ≤ 3× and a new context ≤ 10× the floor. The floor is the
 * work no resolution can skip: OR the removal bitsets the context selects (one unit per layer that applies, the
 * compiled policy's own Uint32Arrays) into one bitset and read a bit. Every resolve call gets a fresh copy of its
 * context, built before its batch is timed, so a cache keyed by object identity would miss: "cached" means equal in
 * value to a context seen before. The three take turns batch by batch, so each sees the same load of a shared machine.
 */
export function measureResolveRatios(
  document: PolicyDocument,
  tools: readonly ToolMeta[],
  rounds = 2_000,
  batch = 100,
): ResolveRatios {
  const compiled = compilePolicy(document, tools);
  const bitsets = compiled
    .layers(BENCH_CONTEXT)
    .filter((units) => units.length > 0)
    .map((units) => units[0]!.removed);
  const words = bitsets[0]!.length;
  const scratch = new Uint32Array(words);
  const floorOnce = (i: number) => {
    for (let w = 0; w < words; w += 1) scratch[w] = 0;
    for (const bits of bitsets) for (let w = 0; w < words; w += 1) scratch[w]! |= bits[w]!;
    const index = i % tools.length;
    return (scratch[index >>> 5]! & (1 << (index & 31))) === 0;
  };
  const resolve = (context: PolicyContext) => compiled.resolve(context).sandboxed;
  const result: ResolveRatios = { floor: [], cached: [], fresh: [] };
  let sink = 0;
  const timed = <T>(inputs: T[], fn: (input: T) => unknown) => {
    const start = process.hrtime.bigint();
    for (const input of inputs) sink += fn(input) ? 1 : 0;
    return Number(process.hrtime.bigint() - start) / inputs.length;
  };
  const indexes = Array.from({ length: batch }, (_, i) => i);
  for (let round = 0; round < rounds + 200; round += 1) {
    const equal = Array.from({ length: batch }, () => freshCopy(BENCH_CONTEXT));
    // Never-repeating contexts that select the same units: the result cache misses, what they share is reused.
    const fresh = Array.from({ length: batch }, () => freshCopy(BENCH_CONTEXT, { model: `gpt-4o-${unique++}` }));
    const samples = [timed(indexes, floorOnce), timed(equal, resolve), timed(fresh, resolve)];
    // The first 200 rounds warm up.
    if (round < 200) continue;
    result.floor.push(samples[0]!);
    result.cached.push(samples[1]!);
    result.fresh.push(samples[2]!);
  }
  if (sink < 0) console.log(sink);
  for (const samples of Object.values(result)) samples.sort((a, b) => a - b);
  return result;
}

let unique = 0;

const fmt = (ns: number) =>
  ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;

export async function runPolicyBench(): Promise<string> {
  const document = makeDocument();
  const tools = makeTools(200);
  const probe = new CompiledPolicy(document, tools).resolve(BENCH_CONTEXT);
  const populated = probe.tools[tools[0]!.name]!.chain.filter((entry) => entry.outcome !== "skipped").length;

  const cold = sample(() => new CompiledPolicy(document, tools).resolve(BENCH_CONTEXT), 2_000);
  const compiled = compilePolicy(document, tools);
  const uncachedPolicy = new CompiledPolicy(document, tools, { cacheResults: false });
  const uncached = sample(() => uncachedPolicy.resolve(BENCH_CONTEXT), 5_000);
  const { floor, cached, fresh } = measureResolveRatios(document, tools);
  const floor50 = percentile(floor, 50);
  const effective = compiled.resolve(BENCH_CONTEXT);
  const toolNames = tools.map((t) => t.name);
  const check = sample((i) => effective.check(toolNames[i % toolNames.length]!).allowed, 1_000_000, 1_000);
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  for (const t of tools)
    registry.register({ ...t, description: t.name, inputSchema: z.object({}), execute: () => null });
  const checkMode = sample((i) => registry.checkMode(toolNames[i % toolNames.length]!, "chat_safe"), 1_000_000, 1_000);

  const growthRows: string[] = [];
  for (const size of [50, 500, 5_000]) {
    const sized = makeTools(size);
    const iterations = size >= 5_000 ? 60 : size >= 500 ? 400 : 2_000;
    const coldN = sample(() => new CompiledPolicy(document, sized).resolve(BENCH_CONTEXT), iterations);
    const compiledN = new CompiledPolicy(document, sized, { cacheResults: false });
    const warmN = sample(() => compiledN.resolve(BENCH_CONTEXT), iterations * 4);
    const c50 = percentile(coldN, 50);
    const w50 = percentile(warmN, 50);
    growthRows.push(
      `| ${size.toLocaleString("en-US")} | ${fmt(c50)} | ${(c50 / size).toFixed(0)} ns | ${fmt(w50)} | ${(w50 / size).toFixed(0)} ns |`,
    );
  }

  // Issue 16's workload: 5,000 plugin tools, one pattern per list. POLICY_BASELINE_DIR (a checkout of an earlier commit
  // sharing node_modules) runs that engine in the same loop, alternating, so both see the same machine load.
  const pluginDoc = onePatternDocument();
  const plugin5k = pluginTools(5_000);
  type Engine = { CompiledPolicy: typeof CompiledPolicy };
  const baselineDir = process.env.POLICY_BASELINE_DIR;
  const baseline = baselineDir ? ((await import(`${baselineDir}/lib/policy`)) as Engine) : null;
  const coldPlugin: number[] = [];
  const coldBaseline: number[] = [];
  for (let i = 0; i < 80; i += 1) {
    const engines: Array<[Engine, number[]]> = [
      [{ CompiledPolicy }, coldPlugin],
      ...(baseline ? [[baseline, coldBaseline] as [Engine, number[]]] : []),
    ];
    for (const [engine, out] of i % 2 === 0 ? engines : [...engines].reverse()) {
      const start = process.hrtime.bigint();
      const resolved = new engine.CompiledPolicy(pluginDoc, plugin5k).resolve(PLUGIN_CONTEXT);
      resolved.check("read");
      if (i >= 10) out.push(Number(process.hrtime.bigint() - start));
    }
  }
  coldPlugin.sort((a, b) => a - b);
  coldBaseline.sort((a, b) => a - b);
  const pluginRows = [
    `| this engine | ${fmt(percentile(coldPlugin, 50))} | ${fmt(percentile(coldPlugin, 99))} | ${fmt(coldPlugin[0]!)} | ≤ 23.5 ms (OpenClaw's whole resolution) |`,
    ...(baseline
      ? [
          `| baseline (\`${process.env.POLICY_BASELINE_LABEL ?? baselineDir}\`) | ${fmt(percentile(coldBaseline, 50))} | ${fmt(percentile(coldBaseline, 99))} | ${fmt(coldBaseline[0]!)} | |`,
        ]
      : []),
  ];

  const ratio = (samples: number[]) => `${(percentile(samples, 50) / floor50).toFixed(1)}× floor`;
  const row = (label: string, samples: number[], target = "") =>
    `| ${label} | ${fmt(percentile(samples, 50))} | ${fmt(percentile(samples, 99))} | ${target} |`;
  return [
    "## Policy engine (`lib/policy`)",
    "",
    `Fixture: 200 tools (100 plugin tools over 5 MCP servers), ${populated} of 12 layers active for the context (owner role, not owner-sender, provider/model key, agent, 2 teams + sender, sandboxed, subagent depth 1), 20+ patterns per list, 20 mode overrides, 20 ask rules.`,
    "",
    "| measurement | p50 | p99 | target |",
    "|---|---|---|---|",
    row("resolve, cold (compile + resolve each time)", cold),
    row("resolve, compiled, result + decision caches off", uncached),
    row("floor: OR of the selected units' bitsets (one per layer that applies) + read a bit", floor),
    row(
      "resolve, compiled, new context with same unit selection",
      fresh,
      `p50 < 20 µs; ≤ 10× floor: **${ratio(fresh)}**`,
    ),
    row(
      "resolve, cached (equal context, a fresh copy per call)",
      cached,
      `p50 < 20 µs; ≤ 3× floor: **${ratio(cached)}**`,
    ),
    row("`check(name)` on a resolved policy", check, "< 1 µs"),
    row("`ToolRegistry.checkMode(name, mode)`", checkMode, "< 1 µs"),
    "",
    "Growth (same document, half the tools are plugin tools):",
    "",
    "| tools | cold p50 | cold per tool | compiled, caches off p50 | per tool |",
    "|---|---|---|---|---|",
    ...growthRows,
    "",
    "Plugin scale (issue 16): 5,000 plugin tools over 5 MCP servers beside the 20 core tools, one pattern in every list the context selects (`bench/policy-plugins.ts`); cold = a new compilation, one resolution and one `check`, 70 runs after 10 warm-up runs" +
      (baseline ? ", alternating with the baseline engine in the same process." : "."),
    "",
    "| engine | cold p50 | cold p99 | cold min | target |",
    "|---|---|---|---|---|",
    ...pluginRows,
    "",
    "How the numbers fit together: `resolveEffectiveToolPolicy` compiles a document once per (document, tool list) identity",
    "(every allow/deny list becomes a unit: a bitset of the tools it removes; why it removes one is worked out when that tool's",
    "decision is first read). A resolution ORs the selected units' bitsets and builds decisions lazily. Each context's result is cached (512 entries),",
    "and contexts that select the same units share their decisions, so a request normally pays the *cached* or *new context*",
    "row. The *cold* row is paid once per saved document and is dominated by matching ~20 units × tools × 20-40 patterns;",
    "it grows linearly with the tool count. `check` is a Map lookup plus an array index. The *floor* row is the work no",
    "resolution can skip (OR the bitsets of the units the context selects, one per layer, and read a bit); floor, cached and",
    "new-context batches take turns in one loop, each call with a fresh copy of its context, so their ratios compare like",
    "with like on a shared machine (issue 16's goal: cached ≤ 3×, new context ≤ 10×). The machine was shared with other",
    "jobs during the run, so p99 values are noisy.",
    "",
  ].join("\n");
}
