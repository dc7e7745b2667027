// Spawns the fixture MCP server (tests/fixtures/mcp-server.mjs) for real: stdio configs for the app to spawn
// itself, and an HTTP instance started here on 127.0.0.1 with a free port read from its stdout.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ROOT } from "./app-server";

export const MCP_FIXTURE = path.join(ROOT, "tests/fixtures/mcp-server.mjs");
export const HOSTILE_FIXTURE = path.join(ROOT, "tests/fixtures/hostile-mcp-server.mjs");

/** The hostile server (issue 36) over stdio, in one of its modes (see the fixture's header). */
export function hostileStdioTransport(mode = "default") {
  return { type: "stdio" as const, command: process.execPath, args: [HOSTILE_FIXTURE], env: { HOSTILE_MODE: mode } };
}

/** A stdio transport config that runs the fixture with this Node binary. */
export function stdioFixtureTransport() {
  return { type: "stdio" as const, command: process.execPath, args: [MCP_FIXTURE] };
}

export type HttpFixture = {
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
  exited: Promise<number | null>;
};

export async function startHttpFixture(
  env: Record<string, string> = {},
  mode: "--http" | "--http-sessions" = "--http",
  script = MCP_FIXTURE,
): Promise<HttpFixture> {
  const child = spawn(process.execPath, [script, mode, "0"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`HTTP fixture did not start: ${output}`)), 15_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /MCP_FIXTURE_LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`HTTP fixture exited (${code}): ${output}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, stop, exited };
}
