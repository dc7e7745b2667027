import "server-only";
// How a stdio server is started: always in the sandbox (stdio-sandbox.ts), never as the app's user with the app's
// environment. The directories it must not see are the app's (the working directory the app was started in),
// the data directory holding the auth secret and the SQLite database, and the workspaces.
import path from "node:path";
import type { McpServerConfig } from "@/lib/policy";
import { loadConfig } from "@/lib/config";
import { buildStdioSandboxArgv } from "./stdio-sandbox";
import type { SpawnSpec } from "./stdio-transport";

function forbiddenDirs(): string[] {
  const appDir = process.cwd();
  const dirs = [appDir, path.join(appDir, "data")];
  const config = loadConfig();
  dirs.push(config.workspaceRoot);
  const sqlite = /^file:(.*)$/.exec(config.DATABASE_URL)?.[1];
  if (sqlite) dirs.push(path.dirname(path.resolve(/*turbopackIgnore: true*/ appDir, sqlite)));
  return dirs;
}

export function stdioSpawnSpec(config: McpServerConfig, env: Record<string, string>): SpawnSpec {
  const t = config.transport;
  if (t.type !== "stdio") throw new Error("not a stdio server");
  return buildStdioSandboxArgv({
    command: t.command,
    args: t.args,
    env,
    cwd: t.cwd,
    serverId: config.id,
    network: t.sandbox.network,
    readOnlyPaths: t.sandbox.readOnlyPaths,
    writablePaths: t.sandbox.writablePaths,
    forbidden: forbiddenDirs(),
  });
}
