// The MCP gateway (issue 30): a tool call through Toolgate's /mcp (a member's token; policy, claim, record and audit
// of every call) against a direct call to the same upstream server (the fixture over Streamable HTTP), both with the
// official SDK client, in one run, the two taking turns in rounds.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import os from "node:os";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn } from "../tests/support/http-client";
import { startHttpFixture } from "../tests/support/mcp-fixture";
import { createDb } from "@/lib/db/client";
import { stats } from "./stats";

const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 300);
const ROUNDS = 3;
const WARMUP = 50;

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "toolgate-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function timedCalls(client: Client, name: string, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: { a: i, b: 1 } });
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  return samples;
}

const f = (n: number) => n.toFixed(2);

export async function runMcpBench(): Promise<string> {
  const rows: string[] = [];
  const load = os.loadavg()[0]!;
  const upstream = await startHttpFixture();
  const targets: Array<{ kind: string; url: string; drop?: () => Promise<void> }> = [
    { kind: "SQLite", url: newSqliteUrl() },
  ];
  const pgBase = await reachablePostgresBase(process.env.TEST_DATABASE_URL_PG ?? PG_DEFAULT);
  if (pgBase) targets.push({ kind: "PostgreSQL", ...(await newPostgresUrl(pgBase)) });
  try {
    for (const target of targets) {
      prepareDatabase(target.url);
      let app: RunningApp | undefined;
      const db = createDb(target.url);
      try {
        app = await startApp({ databaseUrl: target.url, env: { MCP_REQUESTS_PER_MINUTE: "100000" } });
        const document = {
          system: { mcp: { enabled: true, allowedServers: ["bench"] } },
          mcpServers: [
            {
              id: "bench",
              transport: { type: "http", url: upstream.url },
              allowedModes: ["chat_safe", "coding"],
              timeoutMs: 10_000,
              tools: { add: {} },
            },
          ],
        };
        await db.policyVersion.create({ data: { version: 2, document: document as never, comment: "mcp bench" } });
        const member = await signedIn(app.url, "member@example.com");
        const token = (await member.json("/api/tokens", { method: "POST", body: { name: "bench" } })).body
          .token as string;
        const proxied = await connect(`${app.url}/mcp`, { authorization: `Bearer ${token}` });
        const deadline = Date.now() + 30_000;
        let name: string | undefined;
        while (!name && Date.now() < deadline) {
          name = (await proxied.listTools()).tools.find((t) => t.name.endsWith("add"))?.name;
          if (!name) await new Promise((r) => setTimeout(r, 200));
        }
        if (!name) throw new Error("the gateway never listed the upstream add tool");
        const direct = await connect(upstream.url);
        await timedCalls(direct, "add", WARMUP);
        await timedCalls(proxied, name, WARMUP);
        const ours: number[] = [];
        const theirs: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          theirs.push(...(await timedCalls(direct, "add", CALLS)));
          ours.push(...(await timedCalls(proxied, name, CALLS)));
        }
        await Promise.all([direct.close(), proxied.close()]);
        const [g, d] = [stats(ours), stats(theirs)];
        rows.push(
          `| ${target.kind} | ${f(d.p50)} | ${f(g.p50)} | **${(g.p50 / d.p50).toFixed(1)}×** | **+${f(g.p50 - d.p50)}** | ${f(d.p99)} | ${f(g.p99)} |`,
        );
      } finally {
        await db.$disconnect();
        await app?.stop();
        await target.drop?.().catch(() => undefined);
      }
    }
  } finally {
    await upstream.stop();
  }
  return [
    "## MCP gateway: a proxied call against a direct one (issue 30)",
    "",
    `The official SDK client calls the fixture server's \`add\` over Streamable HTTP directly, and through Toolgate's \`/mcp\` with a member's token (token check, policy, claim, upstream call, result, audit row, events). Sequential calls, ${ROUNDS} rounds of ${CALLS} calls each side, taking turns, after ${WARMUP} warm-up calls each. Load average at the start: ${load.toFixed(2)}. Goal: ≤ 1.5× p50 and ≤ +3 ms.`,
    "",
    "| database | direct p50 (ms) | gateway p50 (ms) | ratio | difference | direct p99 (ms) | gateway p99 (ms) |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
