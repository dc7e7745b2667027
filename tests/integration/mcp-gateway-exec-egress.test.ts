// Issue 30 with issue 28: an outside client's `exec` through /mcp gets the same per-command egress proxy as a chat's
// (lib/tools/egress-run.ts, wired for every turn in lib/runs/turn-setup.ts, the gateway's calls included): a listed
// domain answers, an unlisted one is refused at once and becomes a domain approval of the token's user. The official
// SDK client over real HTTP against the built app, real bubblewrap and socat, a local HTTP server that EGRESS_HOSTS
// names. Skipped with the reason only when bwrap or socat cannot run here.
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createDb, type Db } from "@/lib/db/client";
import { probeSandbox } from "@/lib/tools/sandbox";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { signedIn } from "../support/http-client";
import { setPolicy } from "../support/approvals-helpers";

const probe = await probeSandbox();
const ready = probe.ok && fs.existsSync("/usr/bin/socat") && fs.existsSync("/usr/bin/curl");
if (!ready)
  console.warn(
    `[gateway exec egress tests] skipped: bwrap or socat cannot run here (${probe.ok ? "no socat/curl" : probe.reason})`,
  );

type Output = {
  exitCode?: number;
  stdout?: string;
  network?: { reached: string[]; approvals: Array<{ domain: string; approvalId: string | null }> };
};

describe.skipIf(!ready).each(databaseTargets())(
  "MCP gateway: exec gets the per-command egress proxy (%s)",
  (_kind, make) => {
    let target: DatabaseTarget;
    let app: RunningApp;
    let db: Db;
    let server: Server;
    let port = 0;
    let client: Client;
    let memberId: string;

    beforeAll(async () => {
      server = createServer((req, res) => res.end(`hello from ${req.headers.host?.split(":")[0]}`));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
      target = await make();
      prepareDatabase(target.url);
      app = await startApp({
        databaseUrl: target.url,
        env: { EGRESS_HOSTS: "registry.test=127.0.0.1,mirror.test=127.0.0.1" },
      });
      db = createDb(target.url);
      const member = await signedIn(app.url, "member@example.com");
      memberId = (await member.json("/api/me")).body.user.id;
      await setPolicy(db, {
        version: 2,
        modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
        exec: { network: { allow: [{ domain: "registry.test", ports: [port] }] } },
      });
      const made = await member.json("/api/tokens", { method: "POST", body: { name: "egress", mode: "coding" } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      client = new Client({ name: "vitest-sdk-client", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${made.body.token}` } },
        }),
      );
    }, 180_000);

    afterAll(async () => {
      await client?.close();
      await db?.$disconnect();
      await app?.stop();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await target?.drop?.();
    });

    async function exec(command: string): Promise<Output> {
      const result = await client.callTool({ name: "exec", arguments: { command } }, undefined, { timeout: 60_000 });
      const text = ((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text ?? "";
      expect(result.isError, text).toBeFalsy();
      return JSON.parse(text) as Output;
    }

    const get = (host: string) => `curl -s -m 10 -w ' %{http_code}' http://${host}:${port}/x`;

    it("a listed domain answers; an unlisted one is refused at once and asks an owner, as the token's user", async () => {
      const listed = await exec(get("registry.test"));
      expect(listed.stdout).toBe("hello from registry.test 200");
      expect(listed.network?.reached).toEqual(["registry.test"]);
      const unlisted = await exec(get("mirror.test"));
      expect(unlisted.stdout).toMatch(/ 403$/);
      const rows = await db.approval.findMany({
        where: { requesterId: memberId, kind: "domain", command: `mirror.test:${port}` },
      });
      expect(rows).toHaveLength(1);
      expect(unlisted.network?.approvals).toEqual([{ domain: `mirror.test:${port}`, approvalId: rows[0]!.id }]);
    });
  },
);
