// `npm run bench -- mcp-cluster` (issue 30): 1,000 tool calls through /mcp spread over three app instances on one
// PostgreSQL database behind nginx (round robin, no sticky sessions), from 10 SDK clients at once, each with a
// member's token. Counts the calls that failed, the audit rows the calls left and whether the audit chain verifies.
import os from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn } from "../tests/support/http-client";
import { startHttpFixture } from "../tests/support/mcp-fixture";
import { createDb } from "@/lib/db/client";
import { startNginx, type Balancer } from "./cluster/nginx";
import { stats } from "./stats";

const PG = process.env.TEST_DATABASE_URL_PG ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const CALLS = Number(process.env.BENCH_MCP_CLUSTER_CALLS ?? 1000);
const CLIENTS = 10;

export async function runMcpClusterBench(): Promise<string> {
  const base = await reachablePostgresBase(PG);
  if (!base) throw new Error(`no PostgreSQL server at ${PG}`);
  const load = os.loadavg()[0]!;
  const pg = await newPostgresUrl(base);
  prepareDatabase(pg.url);
  const upstream = await startHttpFixture();
  const db = createDb(pg.url);
  const apps: RunningApp[] = [];
  let lb: Balancer | null = null;
  try {
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
    await db.policyVersion.create({ data: { version: 2, document: document as never, comment: "mcp cluster bench" } });
    const env = { SEED_DEMO_USERS: "true", MCP_REQUESTS_PER_MINUTE: "100000" };
    apps.push(...(await Promise.all([0, 1, 2].map(() => startApp({ databaseUrl: pg.url, env })))));
    lb = await startNginx(apps.map((a) => a.url));
    const member = await signedIn(lb.url, "member@example.com");
    const token = (await member.json("/api/tokens", { method: "POST", body: { name: "cluster bench" } })).body
      .token as string;
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const client = new Client({ name: "toolgate-cluster-bench", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${lb!.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      }),
    );
    // Every instance discovers the upstream server in the background: wait until a listing through nginx shows it
    // three times in a row (round robin reaches each instance).
    let name: string | undefined;
    for (let seen = 0, deadline = Date.now() + 60_000; seen < 3 && Date.now() < deadline;) {
      const found = (await clients[0]!.listTools()).tools.find((t) => t.name.endsWith("add"))?.name;
      seen = found ? seen + 1 : 0;
      name = found ?? name;
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    if (!name) throw new Error("the gateway never listed the upstream add tool");
    const auditBefore = await db.auditLog.count();
    const latencies: number[] = [];
    const failures: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        while (next < CALLS) {
          const i = next++;
          const t0 = performance.now();
          try {
            const result = await client.callTool({ name: name!, arguments: { a: i, b: 1 } });
            const text = (result.content as Array<{ text?: string }>)[0]?.text;
            if (result.isError || text !== String(i + 1))
              failures.push(`call ${i}: ${JSON.stringify(result.content).slice(0, 200)}`);
          } catch (error) {
            failures.push(`call ${i}: ${error instanceof Error ? error.message : String(error)}`);
          }
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(clients.map((c) => c.close()));
    const auditRows = (await db.auditLog.count()) - auditBefore;
    const s = stats(latencies);
    if (failures.length > 0) console.error(failures.slice(0, 10).join("\n"));
    return [
      "## MCP gateway across three instances (issue 30, `npm run bench -- mcp-cluster`)",
      "",
      `${CALLS.toLocaleString("en")} calls of the upstream fixture's \`add\` through \`/mcp\` behind nginx (round robin over three instances on one PostgreSQL database, no sticky sessions), ${CLIENTS} SDK clients at once with one member token; each answer is checked (a + b). Load average at the start: ${load.toFixed(2)}.`,
      "",
      "| calls | failed | seconds | calls/s | p50 (ms) | p99 (ms) | audit rows written |",
      "|---|---|---|---|---|---|---|",
      `| ${CALLS} | **${failures.length}** | ${seconds.toFixed(1)} | ${(CALLS / seconds).toFixed(1)} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${auditRows} |`,
      "",
    ].join("\n");
  } finally {
    await lb?.stop();
    await Promise.all(apps.map((a) => a.stop()));
    await upstream.stop();
    await db.$disconnect();
    await pg.drop().catch(() => undefined);
  }
}
