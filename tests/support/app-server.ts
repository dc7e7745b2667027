// Starts the built Next.js app (scripts/server.mjs: Next.js plus the lean event streams) against a given database, for integration and browser tests.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { cleanUpAfterServer } from "./workspaces";

export const ROOT = path.resolve(__dirname, "../..");
export const TEST_AUTH_SECRET = "toolgate-test-secret-0123456789abcdef";
export const DEMO_PASSWORD = "toolgate-demo";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export type RunningApp = {
  url: string;
  port: number;
  databaseUrl: string;
  workspaceRoot: string;
  process: ChildProcess;
  stop: () => Promise<void>;
  logs: string[];
};

/**
 * `port`: a restart on the port of an app that was stopped (the browser reconnects to the same address), or an app
 * that must know its own address before it starts (PUBLIC_BASE_URL pointing at itself).
 */
export async function startApp({
  databaseUrl,
  env = {},
  port: given,
}: {
  databaseUrl: string;
  env?: Record<string, string>;
  port?: number;
}): Promise<RunningApp> {
  if (!fs.existsSync(path.join(ROOT, ".next/BUILD_ID")))
    throw new Error("the app is not built: run `npx next build` first");
  const port = given ?? (await freePort());
  const logs: string[] = [];
  // Each test app keeps its users' workspaces in its own temporary directory, not in data/.
  const workspaceRoot = env.WORKSPACE_ROOT ?? fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "scripts/server.mjs"), "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: databaseUrl,
        AUTH_SECRET: TEST_AUTH_SECRET,
        DEMO_PASSWORD,
        // Shared test apps serve every test file's users at once: the per-user limits are tested on their own app.
        CHAT_TURNS_PER_MINUTE: "100000",
        APPROVAL_REQUESTS_PER_MINUTE: "100000",
        SESSION_WRITES_PER_MINUTE: "100000",
        CREDENTIAL_WRITES_PER_MINUTE: "100000",
        EVENT_STREAMS_PER_USER: "100000",
        // Each test app anchors its audit log in a witness of its own, not in the checkout's data/.
        AUDIT_WITNESS: `file:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-witness-")), "audit-witness.jsonl")}`,
        ...env,
        WORKSPACE_ROOT: workspaceRoot,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const collect = (chunk: Buffer) => {
    logs.push(chunk.toString());
    if (logs.length > 2000) logs.splice(0, logs.length - 2000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited early (${child.exitCode}):\n${logs.join("")}`);
    try {
      const res = await fetch(`${url}/api/auth/csrf`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`app did not start in time:\n${logs.join("")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    const exited = new Promise<void>((r) => (gone() ? r() : child.once("exit", () => r())));
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (gone()) break;
      try {
        process.kill(-child.pid!, signal);
      } catch {
        break; // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    }
    // Stopped or killed (here or by the test) mid-command, it leaves its layer mounted and its egress directory:
    // removed here, its own only (support/workspaces.ts); a restart on the same root would have recovered them.
    if (gone()) cleanUpAfterServer(workspaceRoot, child.pid!);
  };
  return { url, port, databaseUrl, workspaceRoot, process: child, stop, logs };
}
